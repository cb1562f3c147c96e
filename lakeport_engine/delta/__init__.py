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

from lakeport_engine.delta.connector import EmbeddedDelta
from lakeport_engine.delta.errors import DeltaConflictError, DeltaConnectorError, UnsupportedFeatureError

__all__ = ["DeltaConflictError", "DeltaConnectorError", "EmbeddedDelta", "UnsupportedFeatureError"]
