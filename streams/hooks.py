"""Stream status listeners: how an app above `streams` (alerts) reacts to a stream's status changes without
`streams` importing it.

A listener registered in an `AppConfig.ready()` is called `listener(job_id, status, error, restarted)` inside the
transaction that moved the stream of job `job_id` to `status` (`error`: the stream's last error for FAILED and
RESTARTING; `restarted`: the change counts a driver restart after a failure), so what it writes commits with the
change; it must guard its own writes with a savepoint.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

StreamListener = Callable[[int, str, str | None, bool], None]

_lock = threading.Lock()
_listeners: list[StreamListener] = []


def register_stream_listener(listener: StreamListener) -> None:
    """Call `listener` on every stream status change from now on (idempotent)."""
    with _lock:
        if listener not in _listeners:
            _listeners.append(listener)


def stream_status_changed(*, job_id: int, status: str, error: str | None = None, restarted: bool = False) -> None:
    """(Inside the transaction of the change.) Tell every listener that the stream of `job_id` is now `status`."""
    with _lock:
        listeners = list(_listeners)
    for listener in listeners:
        listener(job_id, status, error, restarted)
