"""`runner.py --streaming`: run a script's streaming INSERT as one long-lived query, with JSON-line events.

The statements before the streaming one run first as a batch (CREATE TABLE IF NOT EXISTS of the sink, USE …).
Events go to stdout, one JSON object a line: `query_started`, `batch` per micro-batch (events.py), then `stopped`
or `failed`. SIGTERM/SIGINT stop the query after the batch in flight; the checkpoint directory resumes it.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
import time
from pathlib import Path
from types import FrameType
from typing import IO, Any

from pyspark.errors import StreamingQueryException

from jobs.spark.errors import SparkRuntimeError
from jobs.spark.sqltext import SqlTextError, Statement, split_statements
from jobs.spark.store import CatalogStoreError, open_store
from jobs.spark.streaming.errors import StreamingStatementError, user_message
from jobs.spark.streaming.events import BatchEvents
from jobs.spark.streaming.sinks import StreamingSink
from jobs.spark.streaming.statement import is_streaming
from lakeport_kernel.redaction import redact

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
# How long a graceful stop waits for the batch in flight before it interrupts it (the sinks stay exactly once).
STOP_GRACE_SECONDS = 120.0


class EventStream:
    """JSON lines on one text stream, from the main thread and Spark's listener thread alike."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self._lock = threading.Lock()

    def send(self, event: dict[str, Any]) -> None:
        line = json.dumps({"ts": time.time(), **event}, default=str) + "\n"
        with self._lock:
            self.out.write(line)
            self.out.flush()


def split_script(script: str) -> tuple[list[Statement], Statement]:
    """The batch statements and the one streaming statement, which must come last."""
    statements = split_statements(script)
    streaming = [s for s in statements if is_streaming(s.sql)]
    if len(streaming) != 1 or statements[-1] is not streaming[0]:
        raise StreamingStatementError(
            f"A streaming script has exactly one streaming INSERT (… FROM STREAM(…) [EMIT …]), as its last statement; "
            f"this one has {len(streaming)}.")
    return statements[:-1], streaming[0]


def run_streaming(args: argparse.Namespace) -> int:
    """Run the streaming script of `args` (runner.py's parsed arguments) until it is stopped; the exit code."""
    events = EventStream(sys.stdout)
    try:
        script = sys.stdin.read() if args.script == "-" else Path(args.script).read_text(encoding="utf-8")
    except OSError as exc:
        print(f"runner.py: cannot read script {args.script}: {exc.strerror}", file=sys.stderr)
        return EXIT_USAGE
    try:
        batch, statement = split_script(script)
        store = open_store(args.store, args.team)
    except (CatalogStoreError, SparkRuntimeError, SqlTextError, ValueError) as exc:
        events.send({"event": "failed", "statement": None, "message": redact(str(exc))})
        return EXIT_FAILED
    return _run(args, store, batch, statement, events)


def _run(args: argparse.Namespace, store: Any, batch: list[Statement], statement: Statement,
         events: EventStream) -> int:
    # Spark and the sources load only now: argument errors answer without a JVM
    from jobs.spark.resolver import static_conf
    from jobs.spark.runner import build_session
    from jobs.spark.script import ScriptRunner
    from jobs.spark.streaming import sources
    from jobs.spark.streaming.query import plan_streaming, start_streaming

    script = ";\n".join(s.sql for s in [*batch, statement])
    try:
        conf = static_conf(script, store, args.team, delta_mode=args.delta_mode)
    except (CatalogStoreError, SparkRuntimeError, ValueError) as exc:
        events.send({"event": "failed", "statement": None, "message": redact(str(exc))})
        return EXIT_FAILED
    spark = build_session(args.master, args.app_name, conf)
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        runner = ScriptRunner(spark, store, team=args.team, connect_timeout=args.connect_timeout,
                              delta_mode=args.delta_mode)
        if batch:
            result = runner.run(";\n".join(s.sql for s in batch))
            if not result.succeeded:
                events.send({"event": "failed", **(result.error or {})})
                return EXIT_FAILED
        try:
            plan = plan_streaming(runner.resolver, statement, stream_view=sources.stream_view)
        except SparkRuntimeError as exc:
            events.send({"event": "failed", "statement": len(batch), "line": statement.line,
                         "message": redact(exc.message)})
            return EXIT_FAILED
        except Exception as exc:  # noqa: BLE001 - Spark's own refusal, as a message without a JVM stack
            events.send({"event": "failed", "statement": len(batch), "line": statement.line,
                         "message": runner.resolver.describe_failure(exc, statement)})
            return EXIT_FAILED
        listener = BatchEvents(events.send, plan.sink.rows_written)
        spark.streams.addListener(listener)
        query = start_streaming(plan, checkpoint=args.checkpoint, name=args.query_name,
                                available_now=args.available_now)
        events.send({"event": "query_started", "query_id": str(query.id), "run_id": str(query.runId),
                     "checkpoint": args.checkpoint, **plan.describe()})
        return _supervise(query, stop, events, listener, plan.sink)
    finally:
        spark.stop()


def _supervise(query: Any, stop: threading.Event, events: EventStream, listener: BatchEvents,
               sink: StreamingSink) -> int:
    """Wait for the query; on a stop signal, let the batch in flight finish, then stop it."""
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
        events.send({"event": "failed", "query_id": str(query.id), "batches": listener.batches,
                     "message": redact(message)})
        return EXIT_FAILED
    events.send({"event": "stopped", "query_id": str(query.id), "batches": listener.batches,
                 "signal": stop.is_set()})
    return EXIT_OK
