"""The embedded Delta connector: Delta Lake tables in Spark SQL without delta-spark jars.

    from jobs.spark.delta import EmbeddedDelta, delta_mode
    delta = EmbeddedDelta(spark)
    delta.register("lake", {"warehouse": "/data/lake", "default-database": "default"})
    if delta.handles(sql, current_catalog=..., current_database=...):
        df = delta.execute(sql, current_catalog=..., current_database=...)

Imports no Django: it runs inside a Spark driver.
"""

from __future__ import annotations

from jobs.spark.delta.connector import EmbeddedDelta
from jobs.spark.delta.errors import DeltaConflictError, DeltaConnectorError, UnsupportedFeatureError
from jobs.spark.delta.mode import delta_mode

__all__ = ["DeltaConflictError", "DeltaConnectorError", "EmbeddedDelta", "UnsupportedFeatureError", "delta_mode"]
