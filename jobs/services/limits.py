"""Fair share between teams: how much of the platform one team may hold at once.

Limits come from settings with per-team exceptions (LAKEPORT_TEAM_LIMITS, by team name). Runs over
`max_runs` stay QUEUED and are claimed when a slot frees (`run_claim` counts under the team's row lock);
editor calls over `max_editor_calls` are refused at once (503 naming the limit) rather than holding a web
thread; a statement running longer than `max_statement_seconds` is cancelled and its run fails naming the limit;
a schedule may not fire more often than `min_schedule_interval_seconds`.

Editor slots are PostgreSQL session advisory locks held by the web request for as long as it waits: a web
process that dies releases them with its connection, so no slot is ever leaked. Without PostgreSQL (SQLite
under `make run` with no DATABASE_URL) there is one web process and no slot is taken.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass

from django.conf import settings
from django.db import connection

from core.errors import Unavailable

# Advisory lock keys are (class, object) int4 pairs; this class is Lakeport's editor slots (object = slot).
EDITOR_SLOT_LOCK_CLASS = 0x4C50_0001


@dataclass(frozen=True)
class TeamLimits:
    """The limits one team works under."""

    max_runs: int
    max_editor_calls: int
    max_statement_seconds: float
    min_schedule_interval_seconds: int


def team_limits(team: str) -> TeamLimits:
    """The limits of team `team`: the settings' defaults, with the operator's exceptions for that team."""
    override = dict(settings.LAKEPORT_TEAM_LIMITS.get(team) or {})
    return TeamLimits(
        max_runs=int(override.get("max_runs", settings.LAKEPORT_TEAM_MAX_RUNS)),
        max_editor_calls=int(override.get("max_editor_calls", settings.LAKEPORT_TEAM_MAX_EDITOR_CALLS)),
        max_statement_seconds=float(override.get("max_statement_seconds", settings.LAKEPORT_MAX_STATEMENT_SECONDS)),
        min_schedule_interval_seconds=int(override.get("min_schedule_interval_seconds",
                                                       settings.LAKEPORT_MIN_SCHEDULE_INTERVAL_SECONDS)),
    )


def statement_limit_message(*, statement: int | None, seconds: float, team: str) -> str:
    """Why a run failed when one of its statements ran past the team's maximum statement duration."""
    which = f"Statement {statement + 1}" if statement is not None else "A statement"
    return (f"{which} ran longer than the maximum statement duration of {seconds:g} s for team '{team}' "
            f"(LAKEPORT_MAX_STATEMENT_SECONDS) and was cancelled.")


@contextlib.contextmanager
def editor_slot(*, team_id: int, team: str) -> Iterator[None]:
    """Hold one of the team's editor slots for the block; Unavailable (503) naming the limit when all are taken."""
    if connection.vendor != "postgresql":
        yield
        return
    limit = team_limits(team).max_editor_calls
    held: int | None = None
    with connection.cursor() as cursor:
        for slot in range(max(0, limit)):
            # one int4 for the team and slot: teams beyond 2^20 ids wrap, sharing slots (never fewer than the limit)
            key = ((team_id % (1 << 20)) << 10) | (slot % 1024)
            cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", [EDITOR_SLOT_LOCK_CLASS, key])
            if cursor.fetchone()[0]:
                held = key
                break
    if held is None:
        raise Unavailable(f"Team '{team}' already has {limit} editor call(s) running, the most a team may have at "
                          f"once (LAKEPORT_TEAM_MAX_EDITOR_CALLS); try again when one has answered.")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [EDITOR_SLOT_LOCK_CLASS, held])
