"""RunRecorder: the RunListener that turns engine events into run rows, log lines, progress and heartbeats.

The worker relays its engine's events to the listener methods (from the channel's reader thread); they only
change the recorder's state. A monitor thread writes that state to the run (statement rows, log lines, the
Spark application) within `LIVE_WRITE_DELAY_SECONDS` of a change, writes the heartbeat with the latest
progress, and watches for a cancel request (or for the run being reaped away). What a short run had no time to
write goes with the run's end (`stop` hands it over): one commit instead of one per event, on the path between
a run's last statement and its result.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from django.db import close_old_connections, connection

from jobs.engines.base import Outcome, RunError, StatementEvent
from jobs.models import JobRun, empty_progress
from jobs.services.limits import statement_limit_message, team_limits
from jobs.services.runs import LogLine, run_heartbeat, run_log_lines, run_update
from jobs.services.timing import run_heartbeat_seconds
from lakeport_engine.script import StatementStatus
from lakeport_kernel.redaction import redact

logger = logging.getLogger("lakeport.jobs")

MAX_STATEMENT_TEXT = 2000
PROGRESS_SAMPLE_SECONDS = 0.5
LIVE_WRITE_DELAY_SECONDS = 0.2  # a change is visible in the API this long after the engine reported it, at most


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


@dataclass
class Unwritten:
    """What the recorder has not written to the run yet: run fields and log lines, in order."""

    fields: dict[str, Any] = field(default_factory=dict)
    lines: list[LogLine] = field(default_factory=list)
    statements: bool = False  # the statement rows and progress changed (read from the recorder when taken)


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
        self._wake = threading.Event()  # something is waiting to be written
        self._cancel: Callable[[], None] | None = None
        self._thread: threading.Thread | None = None
        self._unwritten = Unwritten()
        self._unwritten_since: float | None = None
        # The team's maximum statement duration (jobs/services/limits.py): the monitor cancels a statement past it.
        self.max_statement_seconds = team_limits(run.team.name).max_statement_seconds
        self._running: tuple[int, float] | None = None  # (index, monotonic start) of the statement running now
        self.overrun: RunError | None = None  # set when the limit cancelled a statement: the run fails with it

    # ---- RunListener ---------------------------------------------------------------------------------
    def on_statement_start(self, index: int, total: int, sql: str) -> None:
        """A statement begins: mark it running and count the total."""
        first = " ".join(sql.split())[:200]
        with self._lock:
            self.statements[index] = {"index": index, "sql": redact(sql)[:MAX_STATEMENT_TEXT], "status": StatementStatus.RUNNING,
                                      "started_at": datetime.now(UTC).isoformat(), "elapsed_ms": None,
                                      "rows": None, "truncated": False, "line": None, "column": None,
                                      "start": None, "end": None, "error": None}
            self.progress["statements_total"] = total
            self._running = (index, time.monotonic())
            self._note_statements([("INFO", f"Statement {index + 1}/{total} started: {first}")])

    def on_statement_end(self, result: StatementEvent) -> None:
        """A statement finished (succeeded, failed or skipped)."""
        entry = statement_entry(result)
        n = entry["index"] + 1
        lines: list[LogLine] = []
        if entry["status"] == StatementStatus.SUCCEEDED:
            rows = f", {entry['rows']} row(s){' (truncated)' if entry['truncated'] else ''}" if entry["rows"] is not None else ""
            lines.append(("INFO", f"Statement {n} succeeded in {entry['elapsed_ms']} ms{rows}."))
        elif entry["status"] == StatementStatus.FAILED:
            line, column = result.get("line"), result.get("column")  # where it failed (the entry has where it starts)
            where = f" at line {line}, column {column}" if line else ""
            lines.append(("ERROR", f"Statement {n} failed{where}: {entry['error']}"))
        with self._lock:
            previous = self.statements.get(entry["index"], {})
            if entry["started_at"] is None:
                entry["started_at"] = previous.get("started_at")
            self.statements[entry["index"]] = entry
            if self._running is not None and self._running[0] == entry["index"]:
                self._running = None
            self.progress["statements_done"] = sum(1 for s in self.statements.values() if s["status"] == StatementStatus.SUCCEEDED)
            self._note_statements(lines)

    def on_log(self, message: str) -> None:
        """A log line from the runtime (already redacted; redacted again here)."""
        self.note(lines=[("INFO", message)])

    def statement_list(self) -> list[dict[str, Any]]:
        return [self.statements[i] for i in sorted(self.statements)]

    def note(self, *, fields: Mapping[str, Any] | None = None, lines: list[LogLine] | None = None) -> None:
        """Run fields and log lines to write with the recorder's next write (within LIVE_WRITE_DELAY_SECONDS)."""
        with self._lock:
            self._note(fields or {}, lines or [])

    def _note_statements(self, lines: list[LogLine]) -> None:
        """(Lock held.) The statement rows and progress changed, with these log lines."""
        self._note({}, lines, statements=True)

    def _note(self, fields: Mapping[str, Any], lines: list[LogLine], *, statements: bool = False) -> None:
        """(Lock held.)"""
        self._unwritten.fields.update(fields)
        self._unwritten.lines.extend(lines)
        self._unwritten.statements |= statements
        if self._unwritten_since is None:
            self._unwritten_since = time.monotonic()
            self._wake.set()

    def _take_unwritten(self) -> Unwritten:
        """What is not written yet, the statement rows and progress copied once here rather than at every event."""
        with self._lock:
            taken, self._unwritten, self._unwritten_since = self._unwritten, Unwritten(), None
            if taken.statements:
                taken.fields.update(statements=self.statement_list(), progress=dict(self.progress))
        return taken

    def _keep(self, taken: Unwritten) -> None:
        """Put back what a failed write took, before anything noted since."""
        with self._lock:
            self._unwritten = Unwritten({**taken.fields, **self._unwritten.fields}, [*taken.lines, *self._unwritten.lines],
                                        taken.statements or self._unwritten.statements)
            self._unwritten_since = time.monotonic()

    def write(self, unwritten: Unwritten) -> None:
        """Write `unwritten` to the run now (the run's fields, then its log lines)."""
        if unwritten.fields:
            run_update(run=self.run, **unwritten.fields)
        if unwritten.lines:
            run_log_lines(run_id=self.run.id, lines=unwritten.lines)

    # ---- control ----------------------------------------------------------------------------------------
    def on_cancel(self, callback: Callable[[], None]) -> None:
        """What to call when a user cancels the run (or the run is taken away from this process)."""
        self._cancel = callback
        if self.cancel_seen or self.lost:
            callback()

    def set_app(self, *, app_id: str, ui_url: str = "") -> None:
        """The Spark application running the run (and its UI, when there is one), written with the next write."""
        app_id, ui_url = (app_id or "")[:255], (ui_url or "")[:500]
        line = [("INFO", f"Spark application {app_id}" + (f" (UI {ui_url})" if ui_url else ""))] if app_id else []
        self.note(fields={"spark_app_id": app_id, "spark_ui_url": ui_url}, lines=line)

    def set_progress(self, **counts: int) -> None:
        with self._lock:
            self.progress.update(counts)

    def start(self) -> None:
        """Start the monitor thread (heartbeat, progress sampling, cancel watch, live writes)."""
        self._thread = threading.Thread(target=self._monitor, name=f"lakeport-run-{self.run.id}", daemon=True)
        self._thread.start()

    def stop(self) -> Unwritten:
        """Stop the monitor thread and wait for it; returns what is not written yet (the caller writes it)."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        return self._take_unwritten()

    def _monitor(self) -> None:
        beat_every = run_heartbeat_seconds()
        last_beat = 0.0
        last_written: dict[str, int] = {}
        try:
            while not self._stop.is_set():
                self._wake.clear()
                with self._lock:
                    progress = dict(self.progress)
                    due = None if self._unwritten_since is None else self._unwritten_since + LIVE_WRITE_DELAY_SECONDS
                now = time.monotonic()
                if due is not None and now >= due:
                    close_old_connections()
                    taken = self._take_unwritten()
                    try:
                        self.write(taken)
                    except Exception as exc:  # the database may blip; kept for the next write or the end
                        logger.warning("run.write_failed", extra={"run_id": self.run.id,
                                                                  "error_class": type(exc).__name__})
                        self._keep(taken)
                    continue
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
                self._check_statement_duration()
                wait = PROGRESS_SAMPLE_SECONDS if due is None else max(0.0, due - time.monotonic())
                self._wake.wait(min(wait, PROGRESS_SAMPLE_SECONDS))
        finally:
            connection.close()

    def _check_statement_duration(self) -> None:
        """Cancel the running statement once it has run longer than the team's maximum statement duration."""
        limit = self.max_statement_seconds
        with self._lock:
            running = self._running
        if not limit or running is None or self.overrun is not None or time.monotonic() - running[1] <= limit:
            return
        index = running[0]
        entry = self.statements.get(index) or {}
        self.overrun = {"statement": index, "line": entry.get("line"), "column": entry.get("column"),
                        "message": statement_limit_message(statement=index, seconds=limit, team=self.run.team.name)}
        self.note(lines=[("ERROR", self.overrun["message"])])
        self._fire_cancel("run.statement_limit")

    def failure(self, outcome: Outcome) -> Outcome:
        """`outcome`, failed with the statement-duration limit's error when the limit cancelled the run."""
        if self.overrun is None or outcome.succeeded:
            return outcome
        return replace(outcome, error=self.overrun, cancelled=False, engine_lost=False)

    def _fire_cancel(self, event: str) -> None:
        logger.info(event, extra={"run_id": self.run.id})
        if self._cancel is not None:
            try:
                self._cancel()
            except Exception as exc:
                logger.warning("run.cancel_failed", extra={"run_id": self.run.id, "error_class": type(exc).__name__})
