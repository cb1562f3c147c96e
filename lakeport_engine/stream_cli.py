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
from types import FrameType
from typing import IO, Any

from lakeport_engine.errors import SparkRuntimeError
from lakeport_engine.sqltext import SqlTextError, Statement
from lakeport_engine.store import CatalogStoreError, open_store
from lakeport_engine.streaming.script import split_script
from lakeport_kernel.redaction import redact

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


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


__all__ = ["EXIT_FAILED", "EXIT_OK", "EXIT_USAGE", "EventStream", "run_streaming", "split_script"]


def run_streaming(args: argparse.Namespace, script: str) -> int:
    """Run the streaming `script` with `args` (runner.py's parsed arguments) until it is stopped; the exit code."""
    events = EventStream(sys.stdout)
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
    from lakeport_engine.resolver import static_conf
    from lakeport_engine.script import ScriptRunner
    from lakeport_engine.session import build_session
    from lakeport_engine.streaming.driver import drive

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
        return drive(runner, batch, statement, checkpoint=args.checkpoint, send=events.send, stop=stop,
                     query_name=args.query_name, available_now=args.available_now)
    finally:
        spark.stop()
