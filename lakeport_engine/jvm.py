"""The driver's py4j view of the JVM, for the few Spark internals the runtime calls (py4j has no types)."""

from __future__ import annotations

from typing import Any

from pyspark.sql import SparkSession


def jvm(spark: SparkSession) -> Any:
    """`spark`'s JVM gateway view; a session without one (Spark Connect) cannot host the runtime."""
    view = spark.sparkContext._jvm
    if view is None:
        raise RuntimeError("this Spark session has no JVM (Spark Connect is not supported by the Lakeport runtime)")
    return view
