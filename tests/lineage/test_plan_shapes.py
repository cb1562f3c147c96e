"""Column lineage through the plan shapes beyond Project/Aggregate/Join/Union, on real JDBC tables.

GROUPING SETS / ROLLUP / CUBE and UNPIVOT analyse into `Expand`, PIVOT into two `Aggregate`s (the second over
`pivotfirst`), LATERAL VIEW into `Generate`, and a LATERAL subquery or table function into `LateralJoin`. Each test
writes the query into a PostgreSQL table and checks where each written column comes from, and how; tables read only
in a WHERE subquery are inputs too, and a scalar subquery's column is followed into it.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import psycopg
import pytest

from lakeport_engine.script import ScriptRunner
from tests.conftest import PgDatabase
from tests.spark.conftest import TEAM, pg_rows

pytestmark = pytest.mark.spark


def _insert(session: Any, store: Any, db: PgDatabase, table: str, columns: str, query: str) -> dict[str, Any]:
    """Create `shop.<table>` in PostgreSQL, INSERT the query into it, and return the statement's lineage."""
    with psycopg.connect(db.dsn, autocommit=True) as conn:
        conn.execute(f"CREATE TABLE shop.{table} ({columns})")
    result = ScriptRunner(session, store, team=TEAM).run(f"INSERT INTO pg_sales.shop.{table} {query}")
    assert result.succeeded, result.error
    lineage = result.statements[0].lineage
    assert lineage is not None, "the statement has no lineage"
    (written,) = lineage["outputs"]
    assert written["name"] == f"pg_sales.shop.{table}"
    return lineage


def _columns(lineage: dict[str, Any]) -> dict[str, tuple[set[str], str]]:
    """Written column → ({'<physical table>:<column>', …}, kind)."""
    return {c["column"]: ({f"{k.rsplit('/', 1)[-1]}:{col}" for k, col in c["inputs"]}, c["kind"])
            for c in lineage["columns"]}


def test_grouping_sets_follow_each_key_through_expand(session: Any, store: Any, sales_db: PgDatabase) -> None:
    orders = f"{sales_db.name}.shop.orders"
    lineage = _insert(
        session, store, sales_db, "city_rollup", "city text, customer text, total numeric(20,2), level bigint",
        "SELECT c.city, o.customer, sum(o.amount), grouping_id() FROM pg_sales.shop.orders o "
        "JOIN maria_crm.crm.customers c ON o.customer = c.name GROUP BY ROLLUP(c.city, o.customer)")
    columns = _columns(lineage)
    assert columns["city"] == ({"crm.customers:city"}, "identity")
    assert columns["customer"] == ({f"{orders}:customer"}, "identity")
    assert columns["total"] == ({f"{orders}:amount"}, "aggregation")
    assert "level" not in columns  # grouping_id() reads no column
    # the rows are ROLLUP's: per (city, customer), per city, and the grand total
    assert len(pg_rows(sales_db, "SELECT * FROM shop.city_rollup")) == 3 + 3 + 1


def test_cube_over_an_expression_keeps_the_expression_kind(session: Any, store: Any, sales_db: PgDatabase) -> None:
    orders = f"{sales_db.name}.shop.orders"
    lineage = _insert(
        session, store, sales_db, "initial_cube", "initial text, n bigint",
        "SELECT substr(customer, 1, 1) AS initial, count(DISTINCT customer) FROM pg_sales.shop.orders "
        "GROUP BY CUBE(substr(customer, 1, 1))")
    columns = _columns(lineage)
    assert columns["initial"] == ({f"{orders}:customer"}, "expression")
    assert columns["n"] == ({f"{orders}:customer"}, "aggregation")


def test_unpivot_gives_the_value_column_every_unpivoted_column(session: Any, store: Any, sales_db: PgDatabase) -> None:
    orders = f"{sales_db.name}.shop.orders"
    lineage = _insert(
        session, store, sales_db, "amounts_long", "customer text, measure text, value numeric(20,2)",
        "SELECT customer, measure, value FROM (SELECT customer, amount, id FROM pg_sales.shop.orders) "
        "UNPIVOT (value FOR measure IN (amount, id))")
    columns = _columns(lineage)
    assert columns["customer"] == ({f"{orders}:customer"}, "identity")
    # each row carries one of the two columns as it is (a cast to the common type at most)
    assert columns["value"] == ({f"{orders}:amount", f"{orders}:id"}, "identity")
    assert "measure" not in columns  # the column names, as literals
    assert len(pg_rows(sales_db, "SELECT * FROM shop.amounts_long")) == 2 * 5


def test_pivot_columns_are_aggregates_of_the_value_and_the_pivot_column(
        session: Any, store: Any, sales_db: PgDatabase) -> None:
    orders = f"{sales_db.name}.shop.orders"
    lineage = _insert(
        session, store, sales_db, "by_city", "customer text, lisbon numeric(20,2), porto numeric(20,2)",
        "SELECT * FROM (SELECT o.customer, c.city, o.amount FROM pg_sales.shop.orders o "
        "JOIN maria_crm.crm.customers c ON o.customer = c.name) "
        "PIVOT (sum(amount) FOR city IN ('Lisbon' AS lisbon, 'Porto' AS porto))")
    columns = _columns(lineage)
    assert columns["customer"] == ({f"{orders}:customer"}, "identity")
    assert columns["lisbon"] == ({f"{orders}:amount", "crm.customers:city"}, "aggregation")
    assert columns["porto"] == columns["lisbon"]


def test_lateral_view_columns_come_from_the_generator_input(session: Any, store: Any, sales_db: PgDatabase) -> None:
    orders = f"{sales_db.name}.shop.orders"
    lineage = _insert(
        session, store, sales_db, "name_parts", "customer text, pos integer, part text",
        "SELECT customer, pos, part FROM pg_sales.shop.orders "
        "LATERAL VIEW posexplode(split(customer, 'l')) parts AS pos, part")
    assert {d["name"] for d in lineage["inputs"]} == {"pg_sales.shop.orders"}
    columns = _columns(lineage)
    assert columns["customer"] == ({f"{orders}:customer"}, "identity")
    assert columns["part"] == ({f"{orders}:customer"}, "expression")
    assert columns["pos"] == ({f"{orders}:customer"}, "expression")


def test_lateral_subquery_columns_follow_into_the_subquery_and_outer_references(
        session: Any, store: Any, sales_db: PgDatabase) -> None:
    orders = f"{sales_db.name}.shop.orders"
    lineage = _insert(
        session, store, sales_db, "customer_totals", "name text, total numeric(20,2), ref bigint",
        "SELECT c.name, s.total, r.ref FROM maria_crm.crm.customers c, "
        "LATERAL (SELECT sum(o.amount) AS total FROM pg_sales.shop.orders o WHERE o.customer = c.name) s "
        "JOIN LATERAL (SELECT c.id * 1000 AS ref) r")
    assert {d["name"] for d in lineage["inputs"]} == {"pg_sales.shop.orders", "maria_crm.crm.customers"}
    columns = _columns(lineage)
    assert columns["name"] == ({"crm.customers:name"}, "identity")
    assert columns["total"] == ({f"{orders}:amount"}, "aggregation")
    assert columns["ref"] == ({"crm.customers:id"}, "expression")  # an outer reference, computed
    assert sorted(pg_rows(sales_db, "SELECT name, total FROM shop.customer_totals")) == [
        ("alice", Decimal("14.75")), ("bob", Decimal("7.00")), ("carol", Decimal("3.10"))]


def test_lateral_table_function_reads_its_outer_column(session: Any, store: Any, sales_db: PgDatabase) -> None:
    orders = f"{sales_db.name}.shop.orders"
    lineage = _insert(
        session, store, sales_db, "amount_pairs", "customer text, amount numeric(20,2)",
        "SELECT o.customer, e.col FROM pg_sales.shop.orders o, LATERAL explode(array(o.amount, o.amount * 2)) e")
    columns = _columns(lineage)
    assert columns["amount"] == ({f"{orders}:amount"}, "expression")
    assert columns["customer"] == ({f"{orders}:customer"}, "identity")


def test_tables_read_in_where_subqueries_are_inputs(session: Any, store: Any, sales_db: PgDatabase) -> None:
    orders = f"{sales_db.name}.shop.orders"
    lineage = _insert(
        session, store, sales_db, "known_orders", "customer text, amount numeric(10,2)",
        "SELECT customer, amount FROM pg_sales.shop.orders WHERE customer IN (SELECT name FROM maria_crm.crm.customers)")
    assert {d["name"] for d in lineage["inputs"]} == {"pg_sales.shop.orders", "maria_crm.crm.customers"}
    assert _columns(lineage)["amount"] == ({f"{orders}:amount"}, "identity")
    assert len(pg_rows(sales_db, "SELECT * FROM shop.known_orders")) == 4  # mallory is no customer


def test_a_scalar_subquery_column_comes_from_the_subquery(session: Any, store: Any, sales_db: PgDatabase) -> None:
    orders = f"{sales_db.name}.shop.orders"
    lineage = _insert(
        session, store, sales_db, "customer_spend", "name text, spend numeric(20,2)",
        "SELECT c.name, (SELECT sum(o.amount) FROM pg_sales.shop.orders o WHERE o.customer = c.name) "
        "FROM maria_crm.crm.customers c")
    # the subquery's aggregate, correlated on the customer's name
    assert _columns(lineage)["spend"] == ({f"{orders}:amount", "crm.customers:name"}, "aggregation")
    assert sorted(pg_rows(sales_db, "SELECT name, spend FROM shop.customer_spend"))[0] == ("alice", Decimal("14.75"))
