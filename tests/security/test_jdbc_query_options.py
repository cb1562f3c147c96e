"""The JDBC binding's second layer (issue 28): options a query passes to a JDBC table never replace the catalog's
connection, table or session SQL, even where the SQL guard is not in the way.

Spark's JDBCTable merges a query's options over the catalog's (`t WITH (…)` in SQL, DataFrame reader and writer
options); the guard refuses them in SQL, and the binding's catalog (io.lakeport.spark.GuardedJdbcTableCatalog from
the platform jar) drops every option not on a short allow-list. Driven here through the DataFrame API on a session
with the team's catalog bound, which no guard checks: the read still reads the catalog's table, no
sessionInitStatement runs, a write goes to the catalog's table, and TBLPROPERTIES never reach PostgreSQL's CREATE.
"""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

from lakeport_engine.bindings.jdbc import GUARDED_JDBC_CATALOG_CLASS, register
from lakeport_engine.platform_jar import PLATFORM_JAR
from tests.conftest import PgDatabase
from tests.spark.conftest import pg_config

pytestmark = pytest.mark.spark


@pytest.fixture
def bound(spark: Any, pg_source: PgDatabase) -> tuple[Any, PgDatabase]:
    """A session with catalog `pg` bound by the platform's binding over a database with orders and accounts."""
    with psycopg.connect(pg_source.dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE public.orders (id int primary key, amount int)")
        conn.execute("INSERT INTO public.orders VALUES (1, 10), (2, 20)")
        conn.execute("CREATE TABLE public.accounts (name text primary key, is_superuser boolean)")
        conn.execute("INSERT INTO public.accounts VALUES ('dev', false)")
    session = spark.newSession()
    register(session, "pg", pg_config(pg_source), connect_timeout=10)
    return session, pg_source


def _accounts(db: PgDatabase) -> list[tuple[Any, ...]]:
    with psycopg.connect(db.dsn) as conn:
        return conn.execute("SELECT name, is_superuser FROM public.accounts ORDER BY name").fetchall()


def test_the_binding_uses_the_guarded_catalog(bound: tuple[Any, PgDatabase]) -> None:
    session, _ = bound
    assert PLATFORM_JAR.is_file(), "the platform jar is built in setup (platform/scripts/build-jvm.sh)"
    assert session.conf.get("spark.sql.catalog.pg") == GUARDED_JDBC_CATALOG_CLASS


@pytest.mark.parametrize("options", [
    {"dbtable": "public.accounts"},
    {"DBTABLE": "(SELECT name AS id, 1 AS amount FROM public.accounts) s"},
    {"query": "SELECT 1 AS id, 2 AS amount"},
    {"sessionInitStatement": "UPDATE public.accounts SET is_superuser = true"},
    {"prepareQuery": "UPDATE public.accounts SET is_superuser = true;"},
    {"url": "jdbc:postgresql://127.0.0.1:1/none", "user": "nobody", "password": "x", "driver": "java.lang.Object"},
    {"customSchema": "id STRING, amount STRING"},
])
def test_query_options_never_replace_the_catalogs_connection_or_table(bound: tuple[Any, PgDatabase],
                                                                      options: dict[str, str]) -> None:
    session, db = bound
    rows = session.read.options(**options).table("pg.public.orders").orderBy("id").collect()
    assert [(r.id, r.amount) for r in rows] == [(1, 10), (2, 20)]
    assert _accounts(db) == [("dev", False)]


def test_allow_listed_tuning_options_still_apply(bound: tuple[Any, PgDatabase]) -> None:
    session, _ = bound
    rows = session.read.options(fetchsize="1", pushDownPredicate="false").table("pg.public.orders").where(
        "id = 2").collect()
    assert [(r.id, r.amount) for r in rows] == [(2, 20)]


def test_writer_options_never_replace_the_target(bound: tuple[Any, PgDatabase]) -> None:
    session, db = bound
    frame = session.createDataFrame([(3, 30)], "id int, amount int")
    frame.writeTo("pg.public.orders").option("dbtable", "public.accounts").option(
        "sessionInitStatement", "UPDATE public.accounts SET is_superuser = true").append()
    with psycopg.connect(db.dsn) as conn:
        assert conn.execute("SELECT id, amount FROM public.orders ORDER BY id").fetchall() == [(1, 10), (2, 20), (3, 30)]
    assert _accounts(db) == [("dev", False)]


def test_table_properties_never_reach_the_databases_create_table(bound: tuple[Any, PgDatabase]) -> None:
    session, db = bound
    session.sql("CREATE TABLE pg.public.made (a int) TBLPROPERTIES ('x' = "
                "'; UPDATE public.accounts SET is_superuser = true; --')").collect()
    assert _accounts(db) == [("dev", False)]
    with psycopg.connect(db.dsn) as conn:
        assert conn.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = 'made'").fetchone() == (1,)
