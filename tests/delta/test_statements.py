"""Which statements the connector takes, and the contract the Spark runtime calls."""

from __future__ import annotations

from typing import Any

import pytest

from lakeport_engine.bindings.delta import DeltaBindingError, delta_mode
from lakeport_engine.delta import DeltaConnectorError, EmbeddedDelta
from lakeport_engine.delta.statements import StatementReader
from tests.delta.conftest import Lake

pytestmark = pytest.mark.spark


@pytest.mark.parametrize(("sql", "catalog", "database", "expected"), [
    ("SELECT * FROM lake.db.t", None, None, True),
    ("SELECT * FROM LAKE.db.t", None, None, True),
    ("SELECT * FROM other.db.t", None, None, False),
    ("SELECT * FROM db.t", None, None, False),
    ("SELECT * FROM db.t", "lake", None, True),
    ("SELECT * FROM t", "lake", "db", True),
    ("SELECT * FROM t", "pg", "public", False),
    ("SELECT 1", "lake", None, False),
    ("WITH t AS (SELECT 1) SELECT * FROM t", "lake", None, False),
    ("SELECT * FROM parquet.`/tmp/x`", "lake", None, False),
    ("INSERT INTO pg.public.t SELECT * FROM lake.db.t", None, None, True),
    ("INSERT INTO lake.db.t SELECT * FROM pg.public.t", None, None, True),
    ("CREATE TABLE lake.db.t (id INT)", None, None, True),
    ("CREATE TABLE t AS SELECT 1 AS id", "lake", "db", True),
    ("CREATE TABLE spark_catalog.default.t AS SELECT 1 AS id", None, None, False),
    ("DROP TABLE lake.db.t", None, None, True),
    ("DROP TABLE t", "pg", None, False),
    ("CREATE DATABASE lake.db", None, None, True),
    ("CREATE SCHEMA db", "lake", None, True),
    ("CREATE DATABASE db", None, None, False),
    ("SHOW DATABASES", "lake", None, True),
    ("SHOW DATABASES", None, None, False),
    ("SHOW SCHEMAS IN lake", None, None, True),
    ("SHOW TABLES", "lake", None, True),
    ("SHOW TABLES IN lake.db", None, None, True),
    ("SHOW TABLES IN db", None, None, False),
    ("DESCRIBE lake.db.t", None, None, True),
    ("DESC TABLE EXTENDED t", "lake", "db", True),
    ("DESCRIBE HISTORY lake.db.t LIMIT 3", None, None, True),
    ("DESCRIBE HISTORY t", "pg", None, False),
    # read from the project's SQL tokens, not regexes: comments and quoted names are where regexes slipped
    ("SHOW /* all */ TABLES -- here\n IN `lake`.db", None, None, True),
    ("DESC HISTORY `lake`.`db`.`t` LIMIT 2", None, None, True),
    ("SELECT 'lake.db.t' AS s", None, None, False),
    ("EXPLAIN /* plan */ EXTENDED SELECT * FROM lake.db.t", None, None, True),
    ("SET spark.sql.shuffle.partitions=4", "lake", None, False),
    ("UPDATE lake.db.t SET x = 1", None, None, True),
])
def test_handles(lake: Lake, sql: str, catalog: str | None, database: str | None, expected: bool) -> None:
    assert lake.delta.handles(sql, current_catalog=catalog, current_database=database) is expected


def test_rewrite_keeps_the_rest_of_the_statement_verbatim(lake: Lake) -> None:
    reader = StatementReader(lake.delta._catalogs, current_catalog=None, current_database=None,
                             is_temp_view=lambda name: False)
    sql = ("SELECT o.`id`, 'lake.db.t' AS label FROM lake.db.t TIMESTAMP AS OF '2024-01-01 00:00:00' o "
           "JOIN lake.db.u VERSION AS OF 3 ON o.id = u.id -- lake.db.t\nWHERE o.x IN (SELECT x FROM lake.db.t)")
    plan = reader.read(sql)
    assert plan is not None and plan.kind == "query"
    refs = sorted(((str(r.ref), r.version, r.timestamp_sql, r.alias) for r in plan.references), key=repr)
    assert refs == sorted([("lake.db.t", None, None, "t"), ("lake.db.t", None, "'2024-01-01 00:00:00'", None),
                           ("lake.db.u", 3, None, "u")], key=repr)
    from lakeport_engine.delta.statements import rewrite

    views = {r.snapshot_key: f"v{i}" for i, r in enumerate(sorted(plan.references, key=lambda r: r.start))}
    assert rewrite(sql, plan.references, views) == (
        "SELECT o.`id`, 'lake.db.t' AS label FROM `v0` o "
        "JOIN `v1` AS `u` ON o.id = u.id -- lake.db.t\nWHERE o.x IN (SELECT x FROM `v2` AS `t`)")


def test_register_replaces_config_and_validates(spark: Any, tmp_path: Any) -> None:
    delta = EmbeddedDelta(spark)
    assert not delta.is_registered("lake")
    assert not delta.handles("SELECT * FROM lake.db.t", current_catalog=None, current_database=None)
    delta.register("lake", {"warehouse": str(tmp_path / "one")})
    delta.register("Lake", {"warehouse": f"file://{tmp_path}/two", "default-database": "main"})
    assert delta.is_registered("lake") and delta.is_registered("LAKE")
    assert delta._catalogs["lake"].warehouse == f"{tmp_path}/two"
    assert delta._catalogs["lake"].default_database == "main"
    for bad in [{}, {"warehouse": "relative"}, {"warehouse": "ftp://x/y"}, {"warehouse": "/x", "default-database": "../x"}]:
        with pytest.raises(DeltaConnectorError):
            delta.register("bad", bad)


def test_delta_mode_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LAKEPORT_DELTA_MODE", raising=False)
    assert delta_mode() == "embedded"
    monkeypatch.setenv("LAKEPORT_DELTA_MODE", "JVM")
    assert delta_mode() == "jvm"
    monkeypatch.setenv("LAKEPORT_DELTA_MODE", "maven")
    with pytest.raises(DeltaBindingError, match="embedded' or 'jvm'"):
        delta_mode()


def test_execute_returns_dataframes_usable_after_the_statement(lake: Lake) -> None:
    lake.sql("CREATE TABLE lake.default.t AS SELECT id FROM range(5)")
    frame = lake.delta.execute("SELECT sum(id) AS s FROM lake.default.t", current_catalog=None,
                               current_database=None)
    assert not [t for t in lake.spark.catalog.listTables() if t.name.startswith("__lp_delta_")]
    assert frame.collect()[0]["s"] == 10
    assert lake.delta.execute("INSERT INTO lake.default.t VALUES (5)", current_catalog=None,
                              current_database=None) is None
    assert frame.collect()[0]["s"] == 10  # a DataFrame is its snapshot: later commits do not change it


def test_temp_views_and_cache_over_delta_tables_keep_working(lake: Lake) -> None:
    lake.sql("CREATE TABLE lake.default.t AS SELECT id FROM range(4)")
    lake.sql("CREATE OR REPLACE TEMPORARY VIEW delta_evens AS SELECT id FROM lake.default.t WHERE id % 2 = 0")
    lake.sql("CACHE TABLE delta_cached AS SELECT count(*) AS n FROM lake.default.t")
    try:
        assert lake.rows("SELECT * FROM delta_evens") == [(0,), (2,)]
        assert lake.rows("SELECT n FROM delta_cached") == [(4,)]
        # As over a Spark table, a temporary view and a cache see a later commit of the session (read your writes).
        lake.sql("INSERT INTO lake.default.t VALUES (10)")
        assert lake.rows("SELECT * FROM delta_evens") == [(0,), (10,), (2,)]
        assert lake.rows("SELECT count(*) FROM delta_evens", catalog="lake") == [(3,)]
        assert lake.rows("SELECT n FROM delta_cached") == [(5,)]
        # time travel stays where it was asked to be
        lake.sql("CREATE OR REPLACE TEMPORARY VIEW delta_v0 AS SELECT count(*) AS n FROM lake.default.t VERSION AS OF 0")
        lake.sql("INSERT INTO lake.default.t VALUES (11)")
        assert lake.rows("SELECT n FROM delta_v0") == [(4,)]
    finally:
        lake.spark.sql("UNCACHE TABLE IF EXISTS delta_cached")
        lake.spark.catalog.dropTempView("delta_evens")
        lake.spark.catalog.dropTempView("delta_v0")


def test_explain_shows_the_plan_of_a_delta_query(lake: Lake) -> None:
    lake.sql("CREATE TABLE lake.default.t AS SELECT id FROM range(4)")
    plan = lake.rows("EXPLAIN SELECT count(*) FROM lake.default.t")
    assert "FileScan parquet" in plan[0][0]
    plan = lake.rows("EXPLAIN FORMATTED SELECT * FROM t", catalog="lake")
    assert "Scan parquet" in plan[0][0]
    with pytest.raises(DeltaConnectorError, match="EXPLAIN of INSERT is not supported"):
        lake.sql("EXPLAIN INSERT INTO lake.default.t VALUES (1)")


def test_permanent_views_over_delta_tables_are_refused(lake: Lake) -> None:
    lake.sql("CREATE TABLE lake.default.t AS SELECT id FROM range(4)")
    with pytest.raises(DeltaConnectorError, match="CREATE VIEW .a permanent view; use CREATE TEMPORARY VIEW"):
        lake.sql("CREATE VIEW spark_catalog.default.v AS SELECT * FROM lake.default.t")
