"""Delta tables in one statement with JDBC (PostgreSQL) and Hive tables: the other catalogs keep working."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

from tests.delta.conftest import Lake

pytestmark = pytest.mark.spark


@pytest.fixture
def pg_catalog(spark: Any, pg_source: Any) -> str:
    """A JDBCTableCatalog over a fresh PostgreSQL database with `public.customers`, registered in Spark."""
    with psycopg.connect(pg_source.dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE customers (id INT PRIMARY KEY, name TEXT, country TEXT)")
        conn.execute("INSERT INTO customers VALUES (1, 'Ada', 'UK'), (2, 'Grace', 'US'), (3, 'Linus', 'FI')")
        conn.execute("CREATE TABLE totals (country TEXT, total BIGINT)")
    name = pg_source.name  # unique per test: a Spark catalog is instantiated once per session
    prefix = f"spark.sql.catalog.{name}"
    spark.conf.set(prefix, "org.apache.spark.sql.execution.datasources.v2.jdbc.JDBCTableCatalog")
    spark.conf.set(f"{prefix}.url", pg_source.jdbc_url)
    spark.conf.set(f"{prefix}.driver", "org.postgresql.Driver")
    spark.conf.set(f"{prefix}.user", "postgres")
    return name


def _orders(lake: Lake) -> None:
    lake.sql("CREATE TABLE lake.default.orders (id INT, customer_id INT, amount DOUBLE, day STRING) "
             "PARTITIONED BY (day)")
    lake.sql("INSERT INTO lake.default.orders VALUES (10, 1, 5.0, 'd1'), (11, 1, 7.5, 'd2'), (12, 2, 1.0, 'd1'), "
             "(13, 9, 2.0, 'd2')")


def test_select_joins_delta_with_jdbc_table(lake: Lake, pg_catalog: str) -> None:
    _orders(lake)
    query = (f"SELECT c.name, sum(o.amount) AS total FROM lake.default.orders o "
             f"JOIN {pg_catalog}.public.customers c ON o.customer_id = c.id GROUP BY c.name")
    assert lake.delta.handles(query, current_catalog=None, current_database=None)
    assert lake.rows(query) == [("Ada", 12.5), ("Grace", 1.0)]
    # Inside the Delta catalog, short names are Delta tables; the JDBC table keeps its full name.
    assert lake.rows(f"SELECT orders.id FROM orders LEFT ANTI JOIN {pg_catalog}.public.customers c "
                     "ON orders.customer_id = c.id", catalog="lake", database="default") == [(13,)]


def test_insert_into_delta_from_jdbc_and_into_jdbc_from_delta(lake: Lake, pg_catalog: str, pg_source: Any) -> None:
    _orders(lake)
    lake.sql("CREATE TABLE lake.default.customers AS SELECT * FROM " f"{pg_catalog}.public.customers")
    assert lake.rows("SELECT id, name, country FROM lake.default.customers") == [
        (1, "Ada", "UK"), (2, "Grace", "US"), (3, "Linus", "FI")]
    lake.sql(f"INSERT INTO {pg_catalog}.public.totals SELECT c.country, CAST(sum(o.amount) AS BIGINT) "
             "FROM lake.default.orders o JOIN lake.default.customers c ON o.customer_id = c.id GROUP BY c.country")
    with psycopg.connect(pg_source.dsn) as conn:
        assert sorted(conn.execute("SELECT country, total FROM totals").fetchall()) == [("UK", 12), ("US", 1)]


def test_select_joins_delta_with_hive_table(lake: Lake, spark: Any) -> None:
    _orders(lake)
    spark.sql("CREATE DATABASE IF NOT EXISTS delta_join_test")
    spark.sql("DROP TABLE IF EXISTS delta_join_test.days")
    spark.sql("CREATE TABLE delta_join_test.days (day STRING, label STRING) STORED AS PARQUET")
    spark.sql("INSERT INTO delta_join_test.days VALUES ('d1', 'Monday'), ('d2', 'Tuesday')")
    try:
        assert lake.rows("SELECT d.label, count(*) FROM lake.default.orders o "
                         "JOIN spark_catalog.delta_join_test.days d ON o.day = d.day GROUP BY d.label") == [
            ("Monday", 2), ("Tuesday", 2)]
        assert lake.rows("SELECT d.label, count(*) FROM lake.default.orders o "
                         "JOIN delta_join_test.days d ON o.day = d.day GROUP BY d.label") == [
            ("Monday", 2), ("Tuesday", 2)]
    finally:
        spark.sql("DROP TABLE IF EXISTS delta_join_test.days")
        spark.sql("DROP DATABASE IF EXISTS delta_join_test")
