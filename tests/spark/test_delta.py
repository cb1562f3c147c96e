"""delta catalogs through the resolver: the embedded connector by default, a clear error in JVM mode without jars."""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from deltalake import DeltaTable

from lakeport_engine.script import ScriptRunner
from lakeport_engine.store import CatalogEntry
from tests.spark.conftest import ORDERS, TEAM

pytestmark = pytest.mark.spark


def test_delta_catalog_in_a_cross_catalog_script(session: Any, store: Any, tmp_path: Path) -> None:
    warehouse = tmp_path / "lake"
    warehouse.mkdir()
    store.put(CatalogEntry("lake", "delta", {"warehouse": str(warehouse), "default-database": "default"}))
    result = ScriptRunner(session, store, team=TEAM).run(
        "USE CATALOG lake;\n"
        "CREATE DATABASE IF NOT EXISTS sales;\n"
        "CREATE TABLE lake.sales.totals AS\n"
        "  SELECT o.customer, SUM(o.amount) AS total FROM pg_sales.shop.orders o GROUP BY o.customer;\n"
        "USE sales;\n"
        "SELECT customer, total FROM totals ORDER BY customer;\n"
        "SELECT count(*) AS n FROM maria_crm.crm.customers"
    )
    assert result.succeeded, result.error
    assert result.catalogs_used == ["lake", "pg_sales", "maria_crm"]
    expected: dict[str, Decimal] = defaultdict(Decimal)
    for customer, amount in ORDERS:
        expected[customer] += amount
    assert result.statements[4].rows == [[c, str(t)] for c, t in sorted(expected.items())]
    assert result.statements[5].rows == [[3]]  # back to Spark for a JDBC catalog while lake is current
    # the Delta log says the same (read with delta-rs, not Spark)
    table = DeltaTable(str(warehouse / "sales" / "totals")).to_pyarrow_table().to_pylist()
    assert sorted((r["customer"], r["total"]) for r in table) == sorted(expected.items())
    # the current catalog is ours to track: Spark has no catalog named lake
    assert "spark.sql.catalog.lake" not in session.conf.getAll


def test_jvm_delta_mode_without_jars_is_a_clear_error(session: Any, store: Any, tmp_path: Path) -> None:
    store.put(CatalogEntry("lake", "delta", {"warehouse": str(tmp_path)}))
    result = ScriptRunner(session, store, team=TEAM, delta_mode="jvm").run("SELECT * FROM lake.db.t")
    assert not result.succeeded
    assert "LAKEPORT_DELTA_MODE=jvm needs the delta-spark jars" in result.error["message"]
