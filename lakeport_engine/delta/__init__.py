"""The embedded Delta connector: Delta Lake tables in Spark SQL without delta-spark jars.

    from lakeport_engine.delta import EmbeddedDelta
    delta = EmbeddedDelta(spark)
    delta.register("lake", {"warehouse": "/data/lake", "default-database": "default"})
    if delta.handles(sql, current_catalog=..., current_database=...):
        df = delta.execute(sql, current_catalog=..., current_database=...)

Imports no Django: it runs inside a Spark driver. Whether a session uses it at all is
`lakeport_engine.bindings.delta.delta_mode` (LAKEPORT_DELTA_MODE).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lakeport_engine.delta.errors import DeltaConflictError, DeltaConnectorError, UnsupportedFeatureError

if TYPE_CHECKING:
    from lakeport_engine.delta.connector import EmbeddedDelta

__all__ = ["DeltaConflictError", "DeltaConnectorError", "EmbeddedDelta", "UnsupportedFeatureError"]


def __getattr__(name: str) -> object:
    # The connector pulls in deltalake, pyarrow and numpy (~130 MiB): a module of this package (the statement
    # reader, which JDBC and Hive row policies use too) must not load them into an engine that reads no Delta table.
    if name == "EmbeddedDelta":
        from lakeport_engine.delta.connector import EmbeddedDelta

        return EmbeddedDelta
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
