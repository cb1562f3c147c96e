"""Run a streaming script on a ScriptRunner until it is stopped: the part `runner.py --streaming` and the team
engine's `stream` requests share.

The batch statements run first (CREATE TABLE IF NOT EXISTS of the sink, USE …), then the streaming INSERT is
planned (`plan_streaming`: nothing starts when it is refused) and started on `checkpoint`. Events go to `send`:
`query_started`, `batch` per micro-batch (events.py), then `stopped` or `failed`. Setting `stop` lets the batch
in flight finish, then stops the query (the sinks stay exactly once either way).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from pyspark.errors import StreamingQueryException

from lakeport_engine.errors import SparkRuntimeError
from lakeport_engine.protocol import LineageDocument
from lakeport_engine.script import ScriptRunner
from lakeport_engine.sqltext import Statement
from lakeport_engine.streaming import sources
from lakeport_engine.streaming.errors import incompatible_checkpoint, user_message
from lakeport_engine.streaming.events import BatchEvents
from lakeport_engine.streaming.query import StreamingPlan, plan_streaming, start_streaming, streaming_lineage
from lakeport_engine.streaming.sinks import StreamingSink
from lakeport_kernel.redaction import redact

logger = logging.getLogger("lakeport.streaming")

EXIT_OK, EXIT_FAILED = 0, 1
# How long a graceful stop waits for the batch in flight before it interrupts it (the sinks stay exactly once).
STOP_GRACE_SECONDS = 120.0

EventSink = Callable[[dict[str, Any]], None]


def drive(runner: ScriptRunner, batch: list[Statement], statement: Statement, *, checkpoint: str,
          send: EventSink, stop: threading.Event, query_name: str | None = None,
          available_now: bool = False) -> int:
    """Run `batch`, then the streaming `statement` until `stop` is set or the query ends; the exit code.

    A refused statement (planning, the guard, Spark's analysis) sends `failed` with `"planning": true` and starts
    nothing; a query that fails later sends `failed` without it.
    """
    if batch:
        result = runner.run(";\n".join(s.sql for s in batch))
        if not result.succeeded:
            send({"event": "failed", "planning": True, **(result.error or {})})
            return EXIT_FAILED
    try:
        plan = plan_streaming(runner.resolver, statement, stream_view=sources.stream_view)
    except SparkRuntimeError as exc:
        send({"event": "failed", "planning": True, "statement": len(batch), "line": statement.line,
              "message": redact(exc.message)})
        return EXIT_FAILED
    except Exception as exc:  # noqa: BLE001 - Spark's own refusal, as a message without a JVM stack
        send({"event": "failed", "planning": True, "statement": len(batch), "line": statement.line,
              "message": runner.resolver.describe_failure(exc, statement)})
        return EXIT_FAILED
    spark = runner.spark
    listener = BatchEvents(send, plan.sink.rows_written)
    spark.streams.addListener(listener)
    try:
        lineage = _lineage(runner, plan)
        query = start_streaming(plan, checkpoint=checkpoint, name=query_name, available_now=available_now)
        send({"event": "query_started", "query_id": str(query.id), "run_id": str(query.runId),
              "checkpoint": checkpoint, **plan.describe(), "lineage": lineage})
        return supervise_query(query, stop, send, listener, plan.sink)
    finally:
        spark.streams.removeListener(listener)


def _lineage(runner: ScriptRunner, plan: StreamingPlan) -> LineageDocument | None:
    """The query's lineage (StatementLineage.as_dict()), when capture is on; never fails the query."""
    if not runner.capture_lineage:
        return None
    try:
        return streaming_lineage(runner.resolver, plan).as_dict()
    except Exception as exc:  # noqa: BLE001 - lineage is an observation: it never stops a stream
        logger.warning("Lineage of the streaming query was not captured: %s.", type(exc).__name__)
        return None


def supervise_query(query: Any, stop: threading.Event, send: EventSink, listener: BatchEvents,
                    sink: StreamingSink) -> int:
    """Wait for the query; on `stop`, let the batch in flight finish, then stop it."""
    while query.isActive and not stop.is_set():
        try:
            query.awaitTermination(0.5)
        except StreamingQueryException:
            break  # reported below from query.exception()
    if stop.is_set() and query.isActive:
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        while query.isActive and query.status.get("isTriggerActive") and time.monotonic() < deadline:
            time.sleep(0.1)
        query.stop()
    error = query.exception()
    if error is not None:
        message = sink.failure or user_message(error)
        incompatible = incompatible_checkpoint(message)
        send({"event": "failed", "query_id": str(query.id), "batches": listener.batches,
              "message": redact(incompatible or message), "checkpoint_incompatible": incompatible is not None})
        return EXIT_FAILED
    send({"event": "stopped", "query_id": str(query.id), "batches": listener.batches, "signal": stop.is_set()})
    return EXIT_OK
