"""Lineage captured by the runtime: a JDBC → Delta → Hive → JDBC chain, temp views and CTEs, pinned Delta reads."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg
import pyarrow as pa
import pytest
from deltalake import DeltaTable, write_deltalake

from lakeport_engine.script import ScriptRunner
from lakeport_engine.store import CatalogEntry
from tests.spark.conftest import TEAM, pg_rows

pytestmark = pytest.mark.spark


def _lineage(result: Any, index: int) -> dict[str, Any]:
    assert result.succeeded, result.error
    lineage = result.statements[index].lineage
    assert lineage is not None, f"statement {index} has no lineage"
    return lineage


def _names(datasets: list[dict[str, Any]]) -> set[str]:
    return {d["name"] for d in datasets}


def _columns(lineage: dict[str, Any]) -> dict[str, tuple[set[str], str]]:
    return {c["column"]: ({f"{k.rsplit('/', 1)[-1]}:{col}" for k, col in c["inputs"]}, c["kind"])
            for c in lineage["columns"]}


def test_chain_jdbc_delta_hive_jdbc(session: Any, store: Any, sales_db: Any, tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    lake.mkdir()
    store.put(CatalogEntry("lake", "delta", {"warehouse": str(lake), "default-database": "sales"}))
    with psycopg.connect(sales_db.dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE shop.city_totals (customer text, total numeric(20,2), orders bigint)")
    result = ScriptRunner(session, store, team=TEAM).run(
        "CREATE DATABASE IF NOT EXISTS lake.sales;\n"
        "CREATE TEMPORARY VIEW big AS SELECT customer, amount FROM pg_sales.shop.orders WHERE amount > 1;\n"
        "CREATE TABLE lake.sales.totals AS\n"
        "  WITH t AS (SELECT customer, SUM(amount) AS total, COUNT(*) AS n FROM big GROUP BY customer)\n"
        "  SELECT customer, total, n FROM t;\n"
        "DROP TABLE IF EXISTS warehouse_hive.default.lp_lineage_totals;\n"
        "CREATE TABLE warehouse_hive.default.lp_lineage_totals (customer STRING, total DECIMAL(20,2), orders BIGINT)"
        " STORED AS PARQUET;\n"
        "INSERT INTO warehouse_hive.default.lp_lineage_totals SELECT upper(customer), total, n FROM lake.sales.totals;\n"
        "INSERT INTO pg_sales.shop.city_totals SELECT customer, total, orders FROM warehouse_hive.default.lp_lineage_totals"
    )
    ctas = _lineage(result, 2)
    assert _names(ctas["inputs"]) == {"pg_sales.shop.orders"}  # through the temp view and the CTE
    out = ctas["outputs"][0]
    assert (out["name"], out["namespace"], out["version"]) == ("lake.sales.totals", "file", 0)
    assert out["physical_name"] == str(lake / "sales" / "totals")
    columns = _columns(ctas)
    assert columns["customer"] == ({f"{sales_db.name}.shop.orders:customer"}, "identity")
    assert columns["total"] == ({f"{sales_db.name}.shop.orders:amount"}, "aggregation")

    to_hive = _lineage(result, 5)
    (read,) = to_hive["inputs"]
    assert (read["name"], read["version"]) == ("lake.sales.totals", 0)
    (hive,) = to_hive["outputs"]
    assert hive["name"] == "warehouse_hive.default.lp_lineage_totals"
    assert hive["namespace"].startswith("hive://127.0.0.1:") and hive["physical_name"] == "default.lp_lineage_totals"
    columns = _columns(to_hive)
    assert columns["customer"] == ({f"{lake}/sales/totals:customer".rsplit("/", 1)[-1]}, "expression")
    assert columns["orders"] == ({"totals:n"}, "identity")

    back = _lineage(result, 6)
    assert _names(back["inputs"]) == {"warehouse_hive.default.lp_lineage_totals"}
    (pg,) = back["outputs"]
    assert (pg["namespace"], pg["physical_name"]) == ("postgres://127.0.0.1:5432", f"{sales_db.name}.shop.city_totals")
    assert _columns(back)["total"] == ({"default.lp_lineage_totals:total"}, "identity")
    assert len(pg_rows(sales_db, "SELECT * FROM shop.city_totals")) == 4
    # nothing secret travels with lineage
    assert "password" not in repr([s.lineage for s in result.statements]).lower()


def test_a_hive_catalog_given_only_a_conf_dir_is_named_by_its_metastore(
        session: Any, store: Any, sales_db: Any, hive_metastore: Any, tmp_path: Path) -> None:
    (tmp_path / "hive-site.xml").write_text(
        "<configuration><property><name>hive.metastore.uris</name>"
        f"<value>{hive_metastore.uri}</value></property></configuration>")
    store.put(CatalogEntry("hms_conf", "hive", {"hive-conf-dir": str(tmp_path), "default-database": "default"}))
    result = ScriptRunner(session, store, team=TEAM).run(
        "DROP TABLE IF EXISTS hms_conf.default.lp_conf_dir_orders;\n"
        "CREATE TABLE hms_conf.default.lp_conf_dir_orders (customer STRING, amount DECIMAL(10,2)) STORED AS PARQUET;\n"
        "INSERT INTO hms_conf.default.lp_conf_dir_orders SELECT customer, amount FROM pg_sales.shop.orders")
    (hive,) = _lineage(result, 2)["outputs"]
    assert hive["name"] == "hms_conf.default.lp_conf_dir_orders"
    # the metastore's own address, as a catalog configured with metastore-uris names it
    assert hive["namespace"] == f"hive://127.0.0.1:{hive_metastore.port}"
    assert _columns(_lineage(result, 2))["amount"] == ({f"{sales_db.name}.shop.orders:amount"}, "identity")


def test_capture_off_records_nothing(session: Any, store: Any) -> None:
    result = ScriptRunner(session, store, team=TEAM, lineage=False).run("SELECT * FROM pg_sales.shop.orders")
    assert result.succeeded and result.statements[0].lineage is None


def test_a_run_reads_one_delta_version_while_another_job_commits(session: Any, store: Any, tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    path = lake / "sales" / "events"
    write_deltalake(str(path), pa.table({"id": pa.array([1, 2], pa.int64())}))
    store.put(CatalogEntry("lake", "delta", {"warehouse": str(lake), "default-database": "sales"}))

    class CommitBetween:
        """After the first read, another writer commits to the table (as a concurrent job would)."""

        def on_statement_start(self, index: int, total: int, sql: str) -> None:
            if index == 1:
                write_deltalake(str(path), pa.table({"id": pa.array([3], pa.int64())}), mode="append")

        def on_statement_end(self, result: Any) -> None: ...

        def on_log(self, message: str) -> None: ...

    result = ScriptRunner(session, store, team=TEAM, listener=CommitBetween()).run(
        "SELECT count(*) FROM lake.sales.events;\nSELECT count(*) FROM lake.sales.events")
    assert result.succeeded, result.error
    assert DeltaTable(str(path)).version() == 1
    assert [s.rows for s in result.statements] == [[[2]], [[2]]]
    assert [s.lineage["inputs"][0]["version"] for s in result.statements] == [0, 0]
    # a run asked for the versions of the earlier one reads them; a plain run reads the latest
    again = ScriptRunner(session.newSession(), store, team=TEAM,
                         snapshot={"versions": {f"file/{path}": 0}}).run("SELECT count(*) FROM lake.sales.events")
    assert again.statements[0].rows == [[2]]
    latest = ScriptRunner(session.newSession(), store, team=TEAM).run("SELECT count(*) FROM lake.sales.events")
    assert latest.statements[0].rows == [[3]]
