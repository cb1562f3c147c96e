"""Lakeport catalogs in a user's own PySpark code.

    from lakeport_engine.attach import attach
    from lakeport_engine.store import open_store

    lp = attach(spark, open_store("file:/secure/catalogs.json", "acme"))
    lp.sql("USE CATALOG pg_sales")
    df = lp.sql("SELECT * FROM shop.orders o JOIN maria_crm.crm.customers c ON o.customer = c.name")

`sql()` accepts one statement or a script; catalogs are resolved from the store just before each statement
runs, exactly as in the platform's jobs.
"""

from __future__ import annotations

from typing import Any

from lakeport_engine.resolver import CatalogResolver
from lakeport_engine.script import ScriptListener, ScriptResult, ScriptRunner
from lakeport_engine.sqltext import split_statements
from lakeport_engine.store import CatalogStore


class LakeportSession:
    """A SparkSession wrapper whose `sql()` understands `USE CATALOG` and the team's catalog names."""

    def __init__(self, spark: Any, store: CatalogStore, *, team: str, connect_timeout: float = 10.0,
                 delta_mode: str | None = None) -> None:
        self.spark = spark
        self.store = store
        self.team = team
        self._runner = ScriptRunner(spark, store, team=team, connect_timeout=connect_timeout, delta_mode=delta_mode)

    @property
    def resolver(self) -> CatalogResolver:
        return self._runner.resolver

    @property
    def current_catalog(self) -> str | None:
        """The catalog the last `USE CATALOG` switched to (a store name), if any."""
        return self.resolver.current_catalog

    def sql(self, text: str) -> Any:
        """Run one statement or a script and return the last statement's DataFrame (lazy for queries).

        Unknown catalogs are reported before any statement runs; Spark's own errors propagate unchanged.
        """
        statements = split_statements(text)
        unknown = self.resolver.unknown_catalogs(statements)
        if unknown is not None:
            raise unknown
        result = None
        for stmt in statements:
            result = self.resolver.execute(stmt)
        return result

    def run(self, script: str, *, listener: ScriptListener | None = None, preview_limit: int = 1000) -> ScriptResult:
        """Run a script like a platform job: per-statement results, stops at the first failure."""
        self._runner.listener = listener
        self._runner.preview_limit = preview_limit
        return self._runner.run(script)


def attach(spark: Any, store: CatalogStore, team: str | None = None, **options: Any) -> LakeportSession:
    """Attach a catalog store to `spark`; `team` defaults to the store's team (used in messages)."""
    return LakeportSession(spark, store, team=team or str(getattr(store, "team", "default")), **options)
