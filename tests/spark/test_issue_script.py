"""The issue's cross-catalog script (PostgreSQL + MariaDB + Hive Metastore) on real servers."""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal
from typing import Any

import pytest
from pymetastore.metastore import HMS

from lakeport_engine.script import ScriptRunner
from tests.spark.conftest import (
    CUSTOMERS,
    MARIA_PASSWORD,
    MARIA_USER,
    ORDERS,
    PG_PASSWORD,
    TEAM,
    RecordingListener,
    maria_rows,
    pg_rows,
)

pytestmark = pytest.mark.spark

ISSUE_SCRIPT = """\
USE CATALOG pg_sales;                      -- PostgreSQL
CREATE TABLE IF NOT EXISTS shop.order_totals (customer STRING, total DECIMAL(12,2));
INSERT INTO shop.order_totals
SELECT o.customer, SUM(o.amount)
FROM pg_sales.shop.orders o JOIN maria_crm.crm.customers c ON o.customer = c.name   -- MariaDB
GROUP BY o.customer;
USE CATALOG warehouse_hive;                -- Hive Metastore (Thrift)
CREATE DATABASE IF NOT EXISTS marts;
CREATE TABLE IF NOT EXISTS marts.customer_city AS
SELECT c.name, c.city FROM maria_crm.crm.customers c;
SELECT * FROM pg_sales.shop.order_totals ORDER BY customer;
"""


@pytest.fixture
def clean_marts(session: Any) -> Any:
    yield
    session.sql("DROP TABLE IF EXISTS spark_catalog.marts.customer_city")
    session.sql("DROP DATABASE IF EXISTS spark_catalog.marts CASCADE")


def test_issue_script_runs_across_postgresql_mariadb_and_hive(session: Any, store: Any, sales_db: Any,
                                                              hive_metastore: Any, clean_marts: Any) -> None:
    listener = RecordingListener()
    result = ScriptRunner(session, store, team=TEAM, listener=listener).run(ISSUE_SCRIPT)

    assert result.succeeded, result.error
    assert [s.status for s in result.statements] == ["succeeded"] * 7
    assert result.catalogs_used == ["pg_sales", "maria_crm", "warehouse_hive"]

    # PostgreSQL: totals of orders whose customer exists in MariaDB, read back with psycopg
    customers = {name for name, _ in maria_rows("SELECT name, city FROM customers")}
    expected: dict[str, Decimal] = defaultdict(Decimal)
    for customer, amount in pg_rows(sales_db, "SELECT customer, amount FROM shop.orders"):
        if customer in customers:
            expected[customer] += amount
    assert sorted(pg_rows(sales_db, "SELECT customer, total FROM shop.order_totals")) == sorted(expected.items())
    assert "mallory" not in dict(pg_rows(sales_db, "SELECT customer, total FROM shop.order_totals"))

    # the last statement's preview is that table, JSON-ready (decimals as strings)
    last = result.statements[-1]
    assert last.columns == [{"name": "customer", "type": "string"}, {"name": "total", "type": "decimal(12,2)"}]
    assert last.rows == [[c, str(t)] for c, t in sorted(expected.items())]
    assert (last.line, last.column) == (11, 1)

    # Hive: the table is in the metastore (read over Thrift) with MariaDB's rows
    host, port = hive_metastore.uri.removeprefix("thrift://").split(":")
    with HMS.create(host=host, port=int(port)) as hms:
        assert "marts" in hms.list_databases()
        assert "customer_city" in hms.list_tables("marts")
        columns = [c.name for c in hms.get_table("marts", "customer_city").columns]
    assert columns == ["name", "city"]
    hive_rows = sorted(tuple(r) for r in session.sql("SELECT * FROM spark_catalog.marts.customer_city").collect())
    assert hive_rows == sorted(CUSTOMERS) == sorted(maria_rows("SELECT name, city FROM customers"))
    assert len(ORDERS) == 5

    # nothing the user sees carries a secret
    seen = repr(result) + repr(listener.events)
    assert PG_PASSWORD not in seen and MARIA_PASSWORD not in seen


def test_only_the_catalogs_a_statement_needs_are_registered(session: Any, store: Any) -> None:
    runner = ScriptRunner(session, store, team=TEAM)
    result = runner.run("SELECT count(*) AS n FROM pg_sales.shop.orders")
    assert result.succeeded, result.error
    assert result.statements[0].rows == [[len(ORDERS)]]
    assert result.catalogs_used == ["pg_sales"]
    registered = {k.split(".")[3] for k in session.conf.getAll if k.startswith("spark.sql.catalog.") and k.count(".") == 3}
    assert registered == {"pg_sales"}  # not maria_crm, warehouse_hive or pg_unused

    assert runner.run("SELECT count(*) FROM maria_crm.crm.customers").succeeded
    registered = {k.split(".")[3] for k in session.conf.getAll if k.startswith("spark.sql.catalog.") and k.count(".") == 3}
    assert registered == {"pg_sales", "maria_crm"}


def test_passwords_stay_out_of_spark_conf_dumps(session: Any, store: Any) -> None:
    result = ScriptRunner(session, store, team=TEAM).run(
        "SELECT count(*) FROM pg_sales.shop.orders o JOIN maria_crm.crm.customers c ON o.customer = c.name"
    )
    assert result.succeeded, result.error
    dumps = [
        repr(session.conf.getAll),
        repr(session.sparkContext.getConf().getAll()),
        session._jsparkSession.sessionState().conf().getAllConfs().toString(),
        session.sparkContext._jsc.sc().conf().toDebugString(),
    ]
    for dump in dumps:
        assert PG_PASSWORD not in dump and MARIA_PASSWORD not in dump
    # the user name is there: the catalog really is configured through the conf
    assert session.conf.get("spark.sql.catalog.maria_crm.user") == MARIA_USER
