"""Streaming sinks, one module per kind, chosen by the catalog type of the INSERT's target table.

delta → `DeltaSink` (append, merge on the grouping key) or `ChangelogSink` (a table with an `op` column);
jdbc → `JdbcSink` (staging + one upserting transaction); hive → `FileTableSink` (Spark's file sink).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pyspark.sql import SparkSession

from lakeport_engine.streaming.errors import StreamingSinkError
from lakeport_engine.streaming.sinks.base import BatchSink, QueryShape, StreamingSink

SINK_CATALOG_TYPES = ("delta", "jdbc", "hive")


def sink_for(spark: SparkSession, *, catalog_type: str, catalog: str, spark_catalog: str | None,
             config: Mapping[str, Any], database: str, table: str, columns: tuple[str, ...] = ()) -> StreamingSink:
    """The sink for table `catalog.database.table` of a bound catalog (`config` holds its plain credentials)."""
    # Each kind imports its libraries (pyarrow, deltalake, psycopg: ~130 MiB) only when a query writes to it:
    # an idle team engine never pays for them.
    display = f"{catalog}.{database}.{table}"
    if catalog_type == "delta" and spark_catalog is None:
        from lakeport_engine.streaming.sinks.changelog import ChangelogSink, is_changelog
        from lakeport_engine.streaming.sinks.delta import DeltaSink, arrow_schema, open_target

        _, _, snapshot = open_target(catalog, config, database, table)
        if is_changelog(arrow_schema(snapshot)):
            return ChangelogSink(catalog, config, database, table, columns)
        return DeltaSink(catalog, config, database, table, columns)
    if catalog_type == "jdbc":
        from lakeport_engine.streaming.sinks.jdbc import JdbcSink

        return JdbcSink(catalog, config, database, table, columns)
    if catalog_type == "hive" and spark_catalog:
        from lakeport_engine.streaming.sinks.files import FileTableSink

        return FileTableSink(spark, f"`{spark_catalog}`.`{database}`.`{table}`", display)
    raise StreamingSinkError(
        f"Table {display} is in a '{catalog_type}' catalog, which cannot be a streaming sink: write into a table of a "
        "Delta (embedded), JDBC or Hive catalog."
    )


__all__ = ["SINK_CATALOG_TYPES", "BatchSink", "QueryShape", "StreamingSink", "sink_for"]
