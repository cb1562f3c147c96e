"""File tables of a Hive catalog (`USING parquet|orc|json|csv`) as streaming sinks, through Spark's file sink.

Spark's file sink writes each batch's files, then records them in `<table location>/_spark_metadata`; readers of
the table list files through that log, so a batch cut by a crash is never seen and a replayed batch replaces its
own entry: exactly once without our help. It only appends (no key to update on), and Hive SerDe tables
(`STORED AS`) cannot take a stream (Spark's limit): both are refused before the query starts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pyspark.sql import SparkSession
from pyspark.sql.streaming.query import StreamingQuery
from pyspark.sql.streaming.readwriter import DataStreamWriter

from lakeport_engine.streaming.emit import APPEND
from lakeport_engine.streaming.errors import StreamingSinkError, StreamingStatementError
from lakeport_engine.streaming.sinks.base import QueryShape

if TYPE_CHECKING:
    from lakeport_engine.bindings.base import SinkTarget

FILE_PROVIDERS = frozenset({"parquet", "orc", "json", "csv"})


def hive_sink(target: SinkTarget) -> FileTableSink | None:
    """The hive binding's sink factory: the table through the session catalog (None when not bound into Spark)."""
    if not target.spark_catalog:
        return None
    return FileTableSink(target.spark, f"`{target.spark_catalog}`.`{target.database}`.`{target.table}`",
                         target.display)


class FileTableSink:
    """Append each batch into a Hive catalog's file table with Spark's own exactly-once file sink."""

    kind = "files"

    def __init__(self, spark: SparkSession, spark_name: str, display: str) -> None:
        self.spark_name = spark_name
        self.target = display
        try:
            table = spark.catalog.getTable(spark_name)
        except Exception:  # noqa: BLE001 - pyspark raises AnalysisException for a missing table
            raise StreamingSinkError(f"Sink table {display} does not exist: create it (USING parquet) before the "
                                     "streaming INSERT.") from None
        provider = (spark.sql(f"DESCRIBE TABLE EXTENDED {spark_name}").where("col_name = 'Provider'")
                    .select("data_type").first())
        kind = str(provider[0]).lower() if provider else "hive"
        if kind not in FILE_PROVIDERS:
            raise StreamingSinkError(f"Sink table {display} is a Hive SerDe table ({kind}); a stream can write a "
                                     "table created USING parquet (or orc, json, csv).")
        self.columns = [c.name for c in spark.catalog.listColumns(spark_name)] if table else []

    def check(self, mode: str, shape: QueryShape) -> None:
        if mode != APPEND:
            raise StreamingStatementError(
                f"Table {self.target} is a file table: it only appends, so it cannot take EMIT STREAM/CHANGES updates. "
                "Use EMIT AFTER WATERMARK (each window once, when final), or write updates into a Delta or JDBC table."
            )
        if len(shape.columns) != len(self.columns):
            raise StreamingSinkError(
                f"The query has {len(shape.columns)} column(s) but table {self.target} takes {len(self.columns)} "
                f"({', '.join(self.columns)}); columns match by position."
            )

    def start(self, writer: DataStreamWriter) -> StreamingQuery:
        return writer.toTable(self.spark_name)

    failure: str | None = None  # Spark's file sink fails the query with its own message

    def rows_written(self, batch_id: int) -> int | None:
        return None  # Spark's progress reports the file sink's rows
