"""Fuzz of the SQL guard: statements generated from a grammar of allowed and forbidden constructs, checked on the
suite's real Spark session: queries built from sources and expressions, and command-level statements (ADD JAR,
INSERT OVERWRITE DIRECTORY, CREATE FUNCTION, USING … OPTIONS, CACHE, SET) in any case, spacing and comments.
Every forbidden one is refused (with its rule); no allowed one is refused."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lakeport_engine.guard import GuardRefusal, GuardScope, SqlGuard
from lakeport_engine.sqltext import split_statements

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


# Command-level forbidden statements, `{s}` where the generator puts spacing or a comment (SET takes its key=value
# as raw text: a comment there is a syntax error, refused before the guard, so SET keeps one space).
FORBIDDEN_COMMANDS = {
    "ADD{s}JAR{s}/tmp/x.jar": "resource",
    "ADD{s}FILE{s}'/etc/passwd'": "resource",
    "ADD{s}ARCHIVE{s}/tmp/a.zip": "resource",
    "LIST{s}JARS": "resource",
    "INSERT{s}OVERWRITE{s}DIRECTORY{s}'/tmp/out'{s}USING{s}csv{s}SELECT{s}1": "write-directory",
    "INSERT{s}OVERWRITE{s}LOCAL{s}DIRECTORY{s}'/tmp/out'{s}USING{s}parquet{s}SELECT{s}*{s}FROM{s}pg.public.orders":
        "write-directory",
    "CREATE{s}FUNCTION{s}f{s}AS{s}'x.Y'{s}USING{s}JAR{s}'/tmp/x.jar'": "create-function",
    "CREATE{s}TEMPORARY{s}FUNCTION{s}f{s}AS{s}'x.Y'": "create-function",
    "CREATE{s}TEMPORARY{s}VIEW{s}x{s}USING{s}csv{s}OPTIONS{s}(path{s}'/etc/passwd')": "inline-source",
    "CREATE{s}TABLE{s}pg.public.y{s}USING{s}jdbc{s}OPTIONS{s}(url{s}'jdbc:postgresql://h/d')": "inline-source",
    "CACHE{s}TABLE{s}pg.public.orders": "cache",
    "CACHE{s}LAZY{s}TABLE{s}c{s}AS{s}SELECT{s}1": "cache",
    "UNCACHE{s}TABLE{s}pg.public.orders": "cache",
    "CLEAR{s}CACHE": "cache",
    "SET spark.sql.catalog.x=org.apache.spark.sql.execution.datasources.v2.jdbc.JDBCTableCatalog": "conf",
    "SET spark.sql.warehouse.dir=/tmp/w": "conf",
    "SET spark.hadoop.fs.defaultFS=file:///": "conf",
}
CASING = st.sampled_from([str.upper, str.lower, str.title, lambda t: t])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(command=st.sampled_from(sorted(FORBIDDEN_COMMANDS.items())), space=SPACING, case=CASING)
def test_every_forbidden_command_is_refused_whatever_its_spelling(guard: Any, command: tuple[str, str], space: str,
                                                                   case: Any) -> None:
    template, rule = command
    # keywords change case, quoted paths and dotted names do not (they are values, not syntax)
    words = [w if ("'" in w or "." in w or "/" in w) else case(w) for w in template.split("{s}")]
    sql = space.join(words)
    assert verdict(guard, sql) == rule, sql
