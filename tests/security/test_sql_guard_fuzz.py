"""Fuzz of the SQL guard: statements generated from a grammar of allowed and forbidden constructs, checked on the
suite's real Spark session. Every forbidden one is refused (with its rule); no allowed one is refused."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jobs.spark.guard import GuardRefusal, GuardScope, SqlGuard
from jobs.spark.sqltext import split_statements

pytestmark = pytest.mark.spark

ALLOWED_SOURCES = ["pg.public.orders", "`pg`.public.orders", "PG.public.orders".replace("PG", "pg"), "v", "q",
                   "IDENTIFIER('pg.public.orders')", "range(3)"]
FORBIDDEN_SOURCES = {
    "text.`/etc/passwd`": "path-read", "CSV.`/tmp/x`": "path-read", "`parquet`.`/var/x`": "path-read",
    "binaryFile.`/`": "path-read", "read_files('/etc')": "path-read", "global_temp.g": "global-state",
    "spark_catalog.default.t": "session-catalog", "IDENTIFIER('other.db.t')": "unbound-catalog",
    "IDENTIFIER(concat('pg', '.x.y'))": "dynamic-name", "pg.public.orders WITH ('url' = 'x')": "inline-source",
}
ALLOWED_EXPRS = ["1", "upper('a')", "id + 1", "concat_ws(', ', 'a', 'b')", "(SELECT max(id) FROM pg.public.orders)"]
FORBIDDEN_EXPRS = {
    "reflect('java.lang.System', 'getenv', 'HOME')": "reflection",
    "JAVA_METHOD('java.lang.System', 'getenv', 'HOME')": "reflection",
    "(SELECT max(value) FROM text.`/etc/passwd`)": "path-read",
    "IDENTIFIER('reflect')('a', 'b')": "dynamic-name",
}
SPACING = st.sampled_from([" ", "  ", "\n", " /* c */ ", " -- x\n"])


def query(source: str, expr: str, wrap: int, space: str) -> str:
    sql = f"SELECT{space}{expr} AS c FROM{space}{source}"
    shapes = [
        sql,
        f"WITH q AS ({sql}) SELECT * FROM q",
        f"SELECT * FROM pg.public.orders WHERE id IN (SELECT 1 FROM ({sql}) s)",
        f"EXPLAIN {sql}",
        f"CREATE TEMPORARY VIEW w AS {sql}",
        f"CREATE TABLE pg.public.t AS WITH q AS ({sql}) SELECT * FROM q",
        f"INSERT OVERWRITE TABLE pg.public.orders {sql}",
    ]
    return shapes[wrap % len(shapes)]


@pytest.fixture(scope="module")
def guard(spark: Any) -> tuple[SqlGuard, GuardScope]:
    session = spark.newSession()
    session.sql("CREATE OR REPLACE TEMPORARY VIEW v AS SELECT 1 AS id")
    jsession = session._jsparkSession
    scope = GuardScope(catalogs=frozenset({"pg"}), embedded=frozenset(), session_catalog_bound=False,
                       current_catalog=lambda: "pg", temp_views=frozenset({"v", "q"}),
                       is_temp_view=lambda n: bool(jsession.sessionState().catalog().getTempView(n).isDefined()))
    return SqlGuard(session), scope


def verdict(guard: tuple[SqlGuard, GuardScope], sql: str) -> str | None:
    checker, scope = guard
    try:
        checker.check(sql, split_statements(sql)[0], scope)
    except GuardRefusal as refusal:
        return refusal.rule
    return None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(source=st.sampled_from(ALLOWED_SOURCES), expr=st.sampled_from(ALLOWED_EXPRS), wrap=st.integers(0, 6),
       space=SPACING)
def test_no_allowed_statement_is_refused(guard: Any, source: str, expr: str, wrap: int, space: str) -> None:
    sql = query(source, expr, wrap, space)
    assert verdict(guard, sql) is None, sql


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), wrap=st.integers(0, 6), space=SPACING, in_source=st.booleans())
def test_every_forbidden_statement_is_refused(guard: Any, data: Any, wrap: int, space: str, in_source: bool) -> None:
    if in_source:
        source, rule = data.draw(st.sampled_from(sorted(FORBIDDEN_SOURCES.items())))
        expr = data.draw(st.sampled_from(ALLOWED_EXPRS))
    else:
        expr, rule = data.draw(st.sampled_from(sorted(FORBIDDEN_EXPRS.items())))
        source = data.draw(st.sampled_from(ALLOWED_SOURCES))
    sql = query(source, expr, wrap, space)
    assert verdict(guard, sql) == rule, sql
