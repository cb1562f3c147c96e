"""Paimon catalogs in scripts run by the platform's ScriptRunner (resolver, SQL guard, lineage, snapshot pins):
statements mixing Paimon and Delta tables in both directions, USE CATALOG, lineage naming Paimon tables by their
directory with the snapshot read or committed; refusals name the statement."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lakeport_engine.paimon.catalog import open_catalog
from lakeport_engine.script import ScriptRunner
from lakeport_engine.store import CatalogEntry, InMemoryCatalogStore
from tests.paimon.conftest import oracle

pytestmark = pytest.mark.spark


def _runner(spark: Any, tmp_path: Path) -> tuple[ScriptRunner, Path]:
    (tmp_path / "pai").mkdir()
    (tmp_path / "lake").mkdir()
    entries = [CatalogEntry("pai", "paimon", {"warehouse": str(tmp_path / "pai")}),
               CatalogEntry("lake", "delta", {"warehouse": str(tmp_path / "lake")})]
    return ScriptRunner(spark, InMemoryCatalogStore(entries, team="acme"), team="acme", lineage=True), tmp_path / "pai"


def test_a_script_mixes_paimon_and_delta_and_lineage_names_snapshots(spark: Any, tmp_path: Path) -> None:
    runner, warehouse = _runner(spark, tmp_path)
    result = runner.run("""
        CREATE DATABASE pai.sales;
        CREATE TABLE pai.sales.t (id BIGINT, s STRING) TBLPROPERTIES ('primary-key'='id', 'bucket'='2');
        INSERT INTO pai.sales.t VALUES (1, 'a'), (2, 'b'), (3, NULL);
        CREATE TABLE lake.default.copy AS SELECT id, s FROM pai.sales.t WHERE id > 1;
        INSERT INTO pai.sales.t SELECT id, concat('u', id) FROM lake.default.copy;
        SELECT count(*) AS n FROM pai.sales.t p JOIN lake.default.copy c ON p.id = c.id;
        USE CATALOG pai;
        SELECT id, s FROM sales.t ORDER BY id;
    """)
    assert result.succeeded, result.error
    by_index = result.statements
    assert by_index[5].rows == [[2]]
    assert by_index[7].rows == [[1, "a"], [2, "u2"], [3, "u3"]]  # upserted, not appended
    table = open_catalog(str(warehouse)).get_table("sales.t")
    assert sum(oracle(table).values()) == 3
    location = str(warehouse / "sales.db" / "t")
    (written,) = by_index[2].lineage["outputs"]
    assert (written["namespace"], written["physical_name"], written["name"]) == ("file", location, "pai.sales.t")
    assert written.get("version") == 1
    (read,) = by_index[3].lineage["inputs"]
    assert (read["physical_name"], read["name"], read.get("version")) == (location, "pai.sales.t", 1)
    inserted = by_index[4].lineage
    assert [o["name"] for o in inserted["outputs"]] == ["pai.sales.t"]
    assert inserted["outputs"][0].get("version") == 2
    assert [i["name"] for i in inserted["inputs"]] == ["lake.default.copy"]


def test_refusals_in_a_script_name_the_statement_and_the_rule(spark: Any, tmp_path: Path) -> None:
    runner, _warehouse = _runner(spark, tmp_path)
    result = runner.run("CREATE TABLE pai.default.t (id INT);\nDELETE FROM pai.default.t WHERE id = 1;")
    assert not result.succeeded
    failed = result.statements[1]
    assert failed.status.value.lower() == "failed"
    assert "DELETE FROM" in (failed.error or "") and "Paimon" in (failed.error or "")
    assert "Traceback" not in (failed.error or "") and "at org.apache" not in (failed.error or "")
    result = runner.run("SELECT * FROM pai.default.missing;")
    assert not result.succeeded and "pai.default.missing does not exist" in (result.statements[0].error or "")
