"""attach(spark, store) + sql(): Lakeport catalogs in a user's own PySpark code."""

from __future__ import annotations

from typing import Any

import pytest

from lakeport_engine.attach import attach
from lakeport_engine.errors import UnknownCatalogError
from tests.spark.conftest import CUSTOMERS, ORDERS, TEAM

pytestmark = pytest.mark.spark


def test_attach_sql_understands_use_catalog_and_returns_lazy_dataframes(session: Any, store: Any) -> None:
    lp = attach(session, store)
    assert lp.team == TEAM
    lp.sql("USE CATALOG pg_sales")
    assert lp.current_catalog == "pg_sales"
    df = lp.sql("SELECT o.customer, c.city FROM shop.orders o JOIN maria_crm.crm.customers c ON o.customer = c.name")
    rows = sorted(tuple(r) for r in df.collect())
    cities = dict(CUSTOMERS)
    assert rows == sorted((c, cities[c]) for c, _ in ORDERS if c in cities)
    # a DataFrame the user keeps working on with the DataFrame API
    assert df.filter("city = 'Porto'").count() == 1


def test_attach_sql_runs_scripts_and_rejects_unknown_catalogs_first(session: Any, store: Any) -> None:
    lp = attach(session, store, team=TEAM)
    df = lp.sql("USE CATALOG maria_crm;\n-- then\nSELECT count(*) AS n FROM crm.customers")
    assert df.collect()[0].n == len(CUSTOMERS)
    with pytest.raises(UnknownCatalogError, match="Unknown catalog 'elsewhere' for team 'acme'"):
        lp.sql("USE CATALOG pg_sales; SELECT * FROM elsewhere.a.b")
    assert lp.current_catalog == "maria_crm"  # nothing of the rejected script ran


def test_attach_run_gives_per_statement_results(session: Any, store: Any) -> None:
    result = attach(session, store).run("SELECT 1 AS one; SELECT count(*) AS n FROM pg_sales.shop.orders")
    assert result.succeeded
    assert [s.rows for s in result.statements] == [[[1]], [[len(ORDERS)]]]
