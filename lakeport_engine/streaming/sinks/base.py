"""What every streaming sink shares: the batch contract, the transaction id, and what a query tells its sink.

A micro-batch sink writes one batch in one transaction that also records `(app id, batch id)`; a batch Spark
replays after a crash whose id is already recorded is consumed without writing (Spark 4.3 must still run a
replayed stateful batch, or its state store commit fails). The app id is `lakeport-<query id>`: Spark keeps the
query id in the checkpoint, so it survives restarts.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Protocol

from pyspark.sql import DataFrame
from pyspark.sql.streaming.query import StreamingQuery
from pyspark.sql.streaming.readwriter import DataStreamWriter

from lakeport_engine.streaming.errors import user_message
from lakeport_kernel.redaction import redact

logger = logging.getLogger("lakeport.streaming")

# Spark sets this local property on the thread that runs a streaming batch (StreamExecution.QUERY_ID_KEY).
QUERY_ID_PROPERTY = "sql.streaming.queryId"


@dataclass(frozen=True)
class QueryShape:
    """What the sink needs to know about the query: output columns, which of them are the grouping key."""

    columns: tuple[str, ...]
    key: tuple[str, ...] = ()  # output columns the query groups by (empty without an aggregation)
    group_by: tuple[str, ...] = field(default=())  # the GROUP BY expressions as written, for messages
    aggregates: bool = False


class StreamingSink(Protocol):
    """A table a streaming query writes into."""

    kind: str
    target: str

    def check(self, mode: str, shape: QueryShape) -> None:
        """Raise StreamingSinkError/StreamingStatementError if the sink cannot take `mode` rows of this shape."""
        ...

    def start(self, writer: DataStreamWriter) -> StreamingQuery:
        """Start Spark's stream writer into this sink (foreachBatch, or Spark's file sink)."""
        ...

    def rows_written(self, batch_id: int) -> int | None:
        """Rows the sink wrote for a batch (0 when it was replayed and skipped), None when not known."""
        ...

    @property
    def failure(self) -> str | None:
        """Why the last batch failed in the sink, as a user reads it (the query's own error wraps it in stacks)."""
        ...


class BatchSink:
    """Base of the sinks that write each micro-batch themselves (`write` in one transaction)."""

    kind = "batch"
    target = ""

    def __init__(self) -> None:
        self._written: dict[int, int] = {}
        self.failure: str | None = None

    def start(self, writer: DataStreamWriter) -> StreamingQuery:
        return writer.foreachBatch(self._batch).start()

    def rows_written(self, batch_id: int) -> int | None:
        return self._written.get(batch_id)

    def _batch(self, frame: DataFrame, batch_id: int) -> None:
        query_id = frame.sparkSession.sparkContext.getLocalProperty(QUERY_ID_PROPERTY) or "adhoc"
        try:
            written = self.write(frame, batch_id, f"lakeport-{query_id}")
            if written is None:
                # A replay of a committed batch: its stateful operators must still run to their state commit
                # (Spark 4.3 validates it), so the frame is consumed into the no-op sink.
                frame.write.format("noop").mode("overwrite").save()
                written = 0
        except Exception as exc:
            self.failure = redact(f"Batch {batch_id} into {self.target} failed: {user_message(exc)}")
            raise
        self._written[batch_id] = written
        for old in [b for b in self._written if b < batch_id - 100]:
            del self._written[old]

    def write(self, frame: DataFrame, batch_id: int, app_id: str) -> int | None:
        """Write one batch exactly once for `app_id`; returns the rows written, or None for a batch committed
        before (a replay) when `frame` was not read: the caller then consumes it without writing."""
        raise NotImplementedError
