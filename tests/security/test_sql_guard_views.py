"""The SQL guard on materialized view statements (issue 32): Spark has no grammar for them, so the guard checks the
query a CREATE defines like any statement of the team, and lets the statements that carry no query through (their
names are the Delta connector's: only the team's bound Delta catalogs exist for it)."""

from __future__ import annotations

from typing import Any

import pytest

from lakeport_engine.guard import GuardRefusal, GuardScope, SqlGuard
from lakeport_engine.sqltext import split_statements

pytestmark = pytest.mark.spark

SCOPE = GuardScope(catalogs=frozenset({"pg"}), embedded=frozenset({"lake"}), session_catalog_bound=False,
                   current_catalog=lambda: "pg")


def verdict(guard: SqlGuard, sql: str) -> str | None:
    try:
        guard.check(sql, split_statements(sql)[0], SCOPE)
    except GuardRefusal as refusal:
        return refusal.rule
    return None


@pytest.fixture(scope="module")
def guard(spark: Any) -> SqlGuard:
    return SqlGuard(spark.newSession())


@pytest.mark.parametrize("sql", [
    "CREATE MATERIALIZED VIEW lake.db.mv AS SELECT id FROM lake.db.t WHERE id > 1",
    "CREATE MATERIALIZED VIEW IF NOT EXISTS lake.db.mv PARTITIONED BY (k) TBLPROPERTIES ('delta.appendOnly' = "
    "'false') SCHEDULE CRON '0 * * * *' AT TIME ZONE 'UTC' AS WITH x AS (SELECT k FROM lake.db.t) SELECT k FROM x",
    "REFRESH MATERIALIZED VIEW lake.db.mv FULL",
    "DROP MATERIALIZED VIEW IF EXISTS lake.db.mv",
    "SHOW MATERIALIZED VIEWS IN lake.db",
    "DESCRIBE MATERIALIZED VIEW lake.db.mv",
    "ALTER MATERIALIZED VIEW lake.db.mv REFRESH ON COMMIT",
])
def test_view_statements_pass(guard: SqlGuard, sql: str) -> None:
    assert verdict(guard, sql) is None


@pytest.mark.parametrize(("sql", "rule"), [
    ("CREATE MATERIALIZED VIEW lake.db.mv AS SELECT evil(id) FROM lake.db.t", "persistent-function"),
    ("CREATE MATERIALIZED VIEW lake.db.mv AS SELECT * FROM theirs.db.t", "unbound-catalog"),
    ("CREATE MATERIALIZED VIEW lake.db.mv REFRESH ON COMMIT AS SELECT * FROM lake.db.t WITH ('url' = 'x')",
     "inline-source"),
    ("CREATE MATERIALIZED VIEW lake.db.mv COMMENT 'AS SELECT 1' AS SELECT * FROM parquet.`/etc`", "path-read"),
    ("CREATE MATERIALIZED VIEW lake.db.mv AS SELECT from_xml(v, 'a INT', map('RowValidationXsdPath', '/etc/x')) "
     "FROM lake.db.t", "function-option"),
])
def test_the_query_of_a_view_is_guarded_like_any_statement(guard: SqlGuard, sql: str, rule: str) -> None:
    assert verdict(guard, sql) == rule
