"""Waiting for a run to end without polling it: `GET runs/<id>/?wait=` and `POST jobs/<id>/runs/?wait=`.

Whatever ends a run (the worker's finish, a cancel, the reaper) calls `run_ended_notify`, a PostgreSQL NOTIFY sent
when its transaction commits. Each web process keeps one listening connection (a daemon thread, started on the
first wait) and wakes the requests waiting for that run; a waiting request then reads the run again, so a
notification is only ever a wake-up, never the truth. Without PostgreSQL (SQLite for `make run`) or while the
listening connection is down, waits read the run every FALLBACK_POLL_SECONDS instead.

A waiting request holds a web thread: at most LAKEPORT_RUN_WAITERS requests wait at once per process, and one
more is answered at once (with the run as it is), so waits cannot take every thread a process has.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import psycopg
from django.conf import settings
from django.db import connection

from jobs.models import TERMINAL_STATUSES, JobRun
from jobs.selectors import run_get

logger = logging.getLogger("lakeport.jobs")

CHANNEL = "lakeport_run_ended"
MAX_WAIT_SECONDS = 30.0
FALLBACK_POLL_SECONDS = 0.1
RECHECK_SECONDS = 1.0  # a connected wait still reads the run this often: a notification may be lost with its connection
RECONNECT_SECONDS = 1.0


def run_ended_notify(run_id: int) -> None:
    """Wake the requests waiting for run `run_id` (sent when the caller's transaction commits; now in autocommit)."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_notify(%s, %s)", [CHANNEL, str(run_id)])


def run_await_end(*, run: JobRun, seconds: float) -> JobRun:
    """`run` read again once it has ended or after `seconds`, whichever is first (itself if it has already ended)."""
    if seconds <= 0 or run.is_finished:
        return run

    def ended() -> bool:
        return JobRun.objects.filter(id=run.id, status__in=TERMINAL_STATUSES).exists()

    run_wait_ended(run_id=run.id, seconds=seconds, ended=ended)
    return run_get(team=run.team, run_id=run.id)  # a run deleted meanwhile is a 404


def run_wait_ended(*, run_id: int, seconds: float, ended: Callable[[], bool]) -> bool:
    """Return once `ended()` is true, or after `seconds` (at most MAX_WAIT_SECONDS); returns `ended()`'s last answer.

    `ended` reads the run again (the caller's query); it is asked once the wait is registered, so a run that has
    ended by then costs no wait. Without a free wait slot it is asked once, at once.
    """
    seconds = min(seconds, MAX_WAIT_SECONDS)
    if seconds <= 0 or not _slots().acquire(blocking=False):
        return ended()
    try:
        listener = _listener()
        wake = listener.register(run_id) if listener is not None else threading.Event()
        try:
            deadline = time.monotonic() + seconds
            while not ended():  # asked after registering: a run that ends from here on wakes this wait
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                connected = listener is not None and listener.connected.is_set()
                wake.wait(min(remaining, RECHECK_SECONDS if connected else FALLBACK_POLL_SECONDS))
                wake.clear()
            return True
        finally:
            if listener is not None:
                listener.unregister(run_id, wake)
    finally:
        _slots().release()


class _Listener(threading.Thread):
    """The process's LISTEN connection: wakes the events registered for a run when its notification arrives."""

    def __init__(self, params: dict[str, Any]) -> None:
        super().__init__(name="lakeport-run-waits", daemon=True)
        self._params = params
        self._lock = threading.Lock()
        self._waiting: dict[int, set[threading.Event]] = {}
        self.connected = threading.Event()
        self.stopping = threading.Event()

    def register(self, run_id: int) -> threading.Event:
        wake = threading.Event()
        with self._lock:
            self._waiting.setdefault(run_id, set()).add(wake)
        return wake

    def unregister(self, run_id: int, wake: threading.Event) -> None:
        with self._lock:
            events = self._waiting.get(run_id)
            if events is not None:
                events.discard(wake)
                if not events:
                    del self._waiting[run_id]

    def _wake(self, run_ids: list[int] | None) -> None:
        with self._lock:
            events = [e for rid, es in self._waiting.items() if run_ids is None or rid in run_ids for e in es]
        for event in events:
            event.set()

    def run(self) -> None:
        failed = False
        while not self.stopping.is_set():
            try:
                with psycopg.connect(**self._params, autocommit=True) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self.connected.set()
                    failed = False
                    self._wake(None)  # waits that fell back to polling go back to sleeping on notifications
                    while not self.stopping.is_set():
                        for note in conn.notifies(timeout=RECHECK_SECONDS):
                            if note.payload.isdigit():
                                self._wake([int(note.payload)])
            except psycopg.Error as exc:
                if not failed:  # once per outage, not every second of it
                    logger.warning("run_waits.listen_failed", extra={"error_class": type(exc).__name__})
                failed = True
            self.connected.clear()
            self._wake(None)  # waiting requests read their runs again, then poll until reconnected
            if self.stopping.wait(RECONNECT_SECONDS):
                return


_state_lock = threading.Lock()
_state: dict[str, Any] = {}


def _slots() -> threading.BoundedSemaphore:
    with _state_lock:
        if "slots" not in _state:
            _state["slots"] = threading.BoundedSemaphore(max(1, settings.LAKEPORT_RUN_WAITERS))
        slots: threading.BoundedSemaphore = _state["slots"]
        return slots


def _listener() -> _Listener | None:
    """The process's listener, started on first use; None without PostgreSQL."""
    if connection.vendor != "postgresql":
        return None
    with _state_lock:
        listener: _Listener | None = _state.get("listener")
        if listener is None or not listener.is_alive():
            params = {k: v for k, v in connection.get_connection_params().items()
                      if k not in ("cursor_factory", "context")}
            listener = _Listener(params)
            listener.start()
            _state["listener"] = listener
        return listener


def run_waits_stop() -> None:
    """Close this process's listening connection (e.g. before its database is dropped); the next wait reopens it."""
    with _state_lock:
        listener: _Listener | None = _state.pop("listener", None)
    if listener is not None:
        listener.stopping.set()
        listener.join(timeout=RECHECK_SECONDS + 5)
