"""Tick listeners: how an app above `schedules` (alerts) hears of ticks that did not run without `schedules`
importing it.

A listener registered in an `AppConfig.ready()` is called `listener(schedule, fire_time, outcome, message)` inside the
tick's transaction when a tick was skipped (the previous run still going), could not be submitted (`failed`), or
ticks were missed (`missed`: catch-up `skip` dropped them; `fire_time` is the latest of them); it must guard its own
writes with a savepoint.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from schedules.models import Schedule

TickListener = Callable[["Schedule", datetime, str, str], None]

_lock = threading.Lock()
_listeners: list[TickListener] = []


def register_tick_listener(listener: TickListener) -> None:
    """Call `listener` for every tick that did not run (idempotent)."""
    with _lock:
        if listener not in _listeners:
            _listeners.append(listener)


def tick_not_run(*, schedule: Schedule, fire_time: datetime, outcome: str, message: str) -> None:
    """(Inside the tick's transaction.) Tell every listener that a tick of `schedule` did not run."""
    with _lock:
        listeners = list(_listeners)
    for listener in listeners:
        listener(schedule, fire_time, outcome, message)
