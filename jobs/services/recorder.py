"""RunRecorder: the RunListener that turns engine events into run rows, log lines, progress and heartbeats.

The worker relays its engine's events to the listener methods (from the channel's reader thread); a monitor
thread writes the run heartbeat with the latest progress and watches for a cancel request (or for the run being
reaped away).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from django.db import close_old_connections, connection

from jobs.engines.base import StatementEvent
from jobs.models import JobRun, empty_progress
from jobs.services.runs import run_heartbeat, run_log, run_update
from jobs.services.timing import run_heartbeat_seconds
from jobs.spark.script import StatementStatus
from lakeport_kernel.redaction import redact

logger = logging.getLogger("lakeport.jobs")

MAX_STATEMENT_TEXT = 2000
PROGRESS_SAMPLE_SECONDS = 0.5


def statement_entry(result: Mapping[str, Any]) -> dict[str, Any]:
    """A statement event (or an entry already stored) as stored in `JobRun.statements`.

    `line`/`column` say where the statement starts in the run's script and `start`/`end` (character offsets) where
    it is, for every statement: a failed one's error position is the run's `error`. Entries recorded before spans
    existed have the error position there and no `start`/`end`.
    """
    started = result.get("started_at")
    rows = result.get("rows")
    error = result.get("error")
    span = result.get("span") or {}
    return {
        "index": result.get("index"),
        "sql": redact(str(result.get("sql") or ""))[:MAX_STATEMENT_TEXT],
        "status": result.get("status"),
        "started_at": datetime.fromtimestamp(started, UTC).isoformat() if isinstance(started, (int, float)) else started,
        "elapsed_ms": result.get("elapsed_ms"),
        "rows": len(rows) if isinstance(rows, list) else None,
        "truncated": bool(result.get("truncated", False)),
        "line": span.get("line", result.get("line")),
        "column": span.get("column", result.get("column")),
        "start": span.get("start", result.get("start")),
        "end": span.get("end", result.get("end")),
        "error": redact(str(error)) if error else None,
    }


class RunRecorder:
    """Records one attempt of one run: the worker's RunListener (jobs/engines/base.py)."""

    def __init__(self, run: JobRun) -> None:
        self.run = run
        self.statements: dict[int, dict[str, Any]] = {}
        self.progress: dict[str, int] = dict(run.progress or empty_progress())
        self.progress.update(empty_progress())
        self.cancel_seen = False
        self.lost = False
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._cancel: Callable[[], None] | None = None
        self._thread: threading.Thread | None = None
        self._app: dict[str, str] = {}  # the Spark application, written with the next statement row (see set_app)

    # ---- RunListener ---------------------------------------------------------------------------------
    def on_statement_start(self, index: int, total: int, sql: str) -> None:
        """A statement begins: mark it running and count the total."""
        with self._lock:
            self.statements[index] = {"index": index, "sql": redact(sql)[:MAX_STATEMENT_TEXT], "status": StatementStatus.RUNNING,
                                      "started_at": datetime.now(UTC).isoformat(), "elapsed_ms": None,
                                      "rows": None, "truncated": False, "line": None, "column": None,
                                      "start": None, "end": None, "error": None}
            self.progress["statements_total"] = total
            snapshot, progress = self.statement_list(), dict(self.progress)
        app, app_lines = self._take_app()
        run_update(run=self.run, statements=snapshot, progress=progress, **app)
        first = " ".join(sql.split())[:200]
        run_log(run_id=self.run.id, messages=[*app_lines, f"Statement {index + 1}/{total} started: {first}"])

    def on_statement_end(self, result: StatementEvent) -> None:
        """A statement finished (succeeded, failed or skipped)."""
        entry = statement_entry(result)
        with self._lock:
            previous = self.statements.get(entry["index"], {})
            if entry["started_at"] is None:
                entry["started_at"] = previous.get("started_at")
            self.statements[entry["index"]] = entry
            self.progress["statements_done"] = sum(1 for s in self.statements.values() if s["status"] == StatementStatus.SUCCEEDED)
            snapshot, progress = self.statement_list(), dict(self.progress)
        run_update(run=self.run, statements=snapshot, progress=progress)
        n = entry["index"] + 1
        if entry["status"] == StatementStatus.SUCCEEDED:
            rows = f", {entry['rows']} row(s){' (truncated)' if entry['truncated'] else ''}" if entry["rows"] is not None else ""
            run_log(run_id=self.run.id, messages=[f"Statement {n} succeeded in {entry['elapsed_ms']} ms{rows}."])
        elif entry["status"] == StatementStatus.FAILED:
            line, column = result.get("line"), result.get("column")  # where it failed (the entry has where it starts)
            where = f" at line {line}, column {column}" if line else ""
            run_log(run_id=self.run.id, messages=[f"Statement {n} failed{where}: {entry['error']}"], level="ERROR")

    def on_log(self, message: str) -> None:
        """A log line from the runtime (already redacted; redacted again here)."""
        run_log(run_id=self.run.id, messages=[message])

    def statement_list(self) -> list[dict[str, Any]]:
        return [self.statements[i] for i in sorted(self.statements)]

    # ---- control ----------------------------------------------------------------------------------------
    def on_cancel(self, callback: Callable[[], None]) -> None:
        """What to call when a user cancels the run (or the run is taken away from this process)."""
        self._cancel = callback
        if self.cancel_seen or self.lost:
            callback()

    def set_app(self, *, app_id: str, ui_url: str = "") -> None:
        """The Spark application running the run (and its UI, when there is one).

        Kept until the next statement row is written, and written with it (or at stop): the engine sends it just
        before the first statement starts, and a write of its own was one more round trip before a short run's
        result could be read.
        """
        with self._lock:
            self._app = {"spark_app_id": (app_id or "")[:255], "spark_ui_url": (ui_url or "")[:500]}

    def _take_app(self) -> tuple[dict[str, str], list[str]]:
        """The pending application fields, and its log line (none without an app id); nothing is pending after."""
        with self._lock:
            app, self._app = self._app, {}
        app_id, ui_url = app.get("spark_app_id"), app.get("spark_ui_url")
        return app, [f"Spark application {app_id}" + (f" (UI {ui_url})" if ui_url else "")] if app_id else []

    def set_progress(self, **counts: int) -> None:
        with self._lock:
            self.progress.update(counts)

    def start(self) -> None:
        """Start the monitor thread (heartbeat, progress sampling, cancel watch)."""
        self._thread = threading.Thread(target=self._monitor, name=f"lakeport-run-{self.run.id}", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the monitor thread and wait for it."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        app, lines = self._take_app()  # a run whose first statement never started
        if app:
            run_update(run=self.run, **app)
        if lines:
            run_log(run_id=self.run.id, messages=lines)

    def _monitor(self) -> None:
        beat_every = run_heartbeat_seconds()
        last_beat = 0.0
        last_written: dict[str, int] = {}
        try:
            while not self._stop.is_set():
                with self._lock:
                    progress = dict(self.progress)
                now = time.monotonic()
                if now - last_beat >= beat_every or progress != last_written:
                    close_old_connections()
                    try:
                        owned, cancel = run_heartbeat(run=self.run, progress=progress)
                    except Exception as exc:  # the database may blip; the next beat retries
                        logger.warning("run.heartbeat_failed", extra={"run_id": self.run.id,
                                                                      "error_class": type(exc).__name__})
                    else:
                        last_beat, last_written = now, progress
                        if cancel and not self.cancel_seen:
                            self.cancel_seen = True
                            self._fire_cancel("run.cancelling")
                        if not owned and not self.lost:
                            self.lost = True
                            self._fire_cancel("run.taken_away")
                self._stop.wait(PROGRESS_SAMPLE_SECONDS)
        finally:
            connection.close()

    def _fire_cancel(self, event: str) -> None:
        logger.info(event, extra={"run_id": self.run.id})
        if self._cancel is not None:
            try:
                self._cancel()
            except Exception as exc:
                logger.warning("run.cancel_failed", extra={"run_id": self.run.id, "error_class": type(exc).__name__})
