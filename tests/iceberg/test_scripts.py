"""Iceberg catalogs in scripts run by the platform's ScriptRunner (resolver, SQL guard, lineage, snapshot pins):
statements mixing Iceberg and Delta tables in both directions, USE CATALOG, lineage naming Iceberg tables by their
location with the snapshot read or committed, and a run that reads its own writes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lakeport_engine.iceberg.catalog import open_catalog
from lakeport_engine.script import ScriptRunner
from lakeport_engine.store import CatalogEntry, InMemoryCatalogStore
from tests.iceberg.conftest import oracle

pytestmark = pytest.mark.spark


def _runner(spark: Any, tmp_path: Path) -> tuple[ScriptRunner, Path]:
    (tmp_path / "ice").mkdir()
    (tmp_path / "lake").mkdir()
    entries = [CatalogEntry("ice", "iceberg", {"warehouse": str(tmp_path / "ice")}),
               CatalogEntry("lake", "delta", {"warehouse": str(tmp_path / "lake")})]
    return ScriptRunner(spark, InMemoryCatalogStore(entries, team="acme"), team="acme", lineage=True), tmp_path / "ice"


def test_a_script_mixes_iceberg_and_delta_and_lineage_names_snapshots(spark: Any, tmp_path: Path) -> None:
    runner, warehouse = _runner(spark, tmp_path)
    result = runner.run("""
        CREATE DATABASE ice.sales;
        CREATE TABLE ice.sales.t (id BIGINT, s STRING) PARTITIONED BY (bucket(2, id));
        INSERT INTO ice.sales.t VALUES (1, 'a'), (2, 'b'), (3, NULL);
        CREATE TABLE lake.default.copy AS SELECT id, s FROM ice.sales.t WHERE id > 1;
        INSERT INTO ice.sales.t SELECT id + 10, s FROM lake.default.copy;
        SELECT count(*) AS n FROM ice.sales.t i JOIN lake.default.copy c ON i.id = c.id + 10;
        USE CATALOG ice;
        SELECT id FROM sales.t ORDER BY id;
    """)
    assert result.succeeded, result.error
    by_index = result.statements
    assert by_index[5].rows == [[2]]
    assert by_index[7].rows == [[1], [2], [3], [12], [13]]
    table = open_catalog(str(warehouse)).load_table("sales.t")
    assert sum(oracle(table).values()) == 5
    snapshots = [s.snapshot_id for s in table.snapshots()]
    location = str(warehouse / "sales" / "t")
    # the first INSERT: an output at the snapshot it committed
    (written,) = by_index[2].lineage["outputs"]
    assert (written["namespace"], written["physical_name"], written["name"]) == ("file", location, "ice.sales.t")
    assert written.get("version") == snapshots[0]
    # CTAS into Delta reads the Iceberg table at the snapshot current then
    (read,) = by_index[3].lineage["inputs"]
    assert (read["physical_name"], read["name"], read.get("version")) == (location, "ice.sales.t", snapshots[0])
    # the Delta → Iceberg insert: input Delta, output Iceberg at the new snapshot
    inserted = by_index[4].lineage
    assert [o["name"] for o in inserted["outputs"]] == ["ice.sales.t"]
    assert inserted["outputs"][0].get("version") == snapshots[1]
    assert [i["name"] for i in inserted["inputs"]] == ["lake.default.copy"]


def test_refusals_in_a_script_name_the_statement_and_the_rule(spark: Any, tmp_path: Path) -> None:
    runner, _warehouse = _runner(spark, tmp_path)
    result = runner.run("CREATE TABLE ice.default.t (id INT);\nDELETE FROM ice.default.t WHERE id = 1;")
    assert not result.succeeded
    failed = result.statements[1]
    assert failed.status.value.lower() == "failed"
    assert "DELETE FROM" in (failed.error or "") and "Iceberg" in (failed.error or "")
    assert "Traceback" not in (failed.error or "") and "at org.apache" not in (failed.error or "")


def test_metadata_tables_obey_grants_and_row_policies_and_a_bad_alter_fails_the_run(spark: Any, tmp_path: Path) -> None:
    runner, _warehouse = _runner(spark, tmp_path)
    setup = runner.run("CREATE DATABASE ice.sales;\nCREATE TABLE ice.sales.t (id BIGINT, region STRING);\n"
                       "CREATE TABLE ice.sales.u (id BIGINT);\nINSERT INTO ice.sales.t VALUES (1, 'EU'), (2, 'US');")
    assert setup.succeeded, setup.error

    def as_alice(script: str, *, visible: bool | None = None) -> Any:
        doc: dict[str, Any] = {"user": "alice", "admin": False, "governed": ["ice"],
                               "grants": [{"securable": "ice.sales.t", "privilege": "SELECT"}]}
        if visible is not None:
            doc["rows"] = [{"table": "ice.sales.t", "filter": "region = 'EU'", "masks": {}, "visible": visible}]
        alice = ScriptRunner(spark.newSession(), runner.store, team="acme", access=doc)  # type: ignore[arg-type]
        return alice.run(script)

    allowed = as_alice("SELECT operation, summary['added-records'] FROM ice.sales.t.snapshots")
    assert allowed.succeeded, allowed.error
    assert allowed.statements[0].rows == [["append", "2"]]
    refused = as_alice("SELECT * FROM ice.sales.u.snapshots")  # SELECT on the table is what its metadata needs
    assert not refused.succeeded and "SELECT on table 'ice.sales.u'" in refused.error["message"]
    hidden = as_alice("SELECT file_path, lower_bounds FROM ice.sales.t.files", visible=False)
    assert not hidden.succeeded
    assert "metadata table 'files'" in hidden.error["message"] and "rule: row-policy" in hidden.error["message"]
    assert as_alice("SELECT * FROM ice.sales.t", visible=False).statements[0].rows == [[1, "EU"]]
    shown = as_alice("SELECT sum(record_count) FROM ice.sales.t.files", visible=True)  # the policy is the caller's to see
    assert shown.succeeded and shown.statements[0].rows == [[2]], shown.error
    bad = runner.run("ALTER TABLE ice.sales.t ADD COLUMN note STRING;\nALTER TABLE ice.sales.t ALTER COLUMN region "
                     "TYPE BIGINT;\nSELECT 1;")
    assert not bad.succeeded
    assert bad.statements[0].status.value.lower() == "succeeded"
    failed = bad.statements[1]
    assert failed.status.value.lower() == "failed"
    assert "ALTER TABLE ice.sales.t ALTER COLUMN region" in (failed.error or "")
    assert "rule iceberg-type-promotion" in (failed.error or "") and "at org.apache" not in (failed.error or "")
    assert [f.name for f in open_catalog(str(tmp_path / "ice")).load_table("sales.t").schema().fields] == [
        "id", "region", "note"]
