"""Writes of schedules: create, update, pause, resume, delete, with the checks every schedule must pass."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from core.errors import InvalidInput
from jobs.models import JobKind, SqlJob
from jobs.services.limits import team_limits
from jobs.services.parameters import ParameterError, script_rendered
from schedules.cron import ScheduleSpecError, check_cron, fire_times, zone
from schedules.models import CatchUp, Concurrency, Schedule
from teams.models import Team

INTERVAL_SAMPLE = 1000  # ticks examined for the minimum interval: a year of daily ticks, days of 5-minute ones
EDITABLE = ("name", "cron", "time_zone", "catchup", "concurrency", "max_retries", "retry_backoff_seconds",
            "parameters", "job")


def check_parameters(*, job: SqlJob, parameters: Any) -> dict[str, Any]:
    """A schedule's overrides must be declared by the job and valid; required ones must get a value."""
    if parameters in (None, ""):
        parameters = {}
    if not isinstance(parameters, dict):
        raise ParameterError("parameters", "Expected an object of parameter names to values.")
    script_rendered(job.sql, declared=job.parameters or {}, overrides=parameters, logical_date=timezone.now())
    return parameters


def first_fire_after(schedule: Schedule, moment: datetime) -> datetime:
    """The schedule's first tick strictly after `moment`."""
    return next(fire_times(schedule.cron, schedule.time_zone, after=moment))


def shortest_interval(expression: str, time_zone: str, *, after: datetime, fires: int = INTERVAL_SAMPLE,
                      below: float = 0.0) -> float:
    """The shortest time in seconds between two consecutive ticks among the first `fires` after `after` (stops early
    at a gap under `below`); irregular crons (`0,1 3 * * *`) are judged by their closest pair."""
    shortest = float("inf")
    previous: datetime | None = None
    for n, moment in enumerate(fire_times(expression, time_zone, after=after)):
        if previous is not None:
            shortest = min(shortest, (moment - previous).total_seconds())
            if shortest < below or n >= fires:
                break
        previous = moment
    return shortest


def check_interval(schedule: Schedule) -> None:
    """Refuse a cron that fires more often than the team's minimum schedule interval (an operator setting)."""
    minimum = team_limits(schedule.team.name).min_schedule_interval_seconds
    if minimum <= 0:
        return
    gap = shortest_interval(schedule.cron, schedule.time_zone, after=timezone.now(), below=minimum)
    if gap < minimum:
        raise ScheduleSpecError("cron", f"Cron expression '{schedule.cron}' fires every {gap:g} s at times; a "
                                        f"schedule of team '{schedule.team.name}' may fire at most every {minimum} s "
                                        f"(LAKEPORT_MIN_SCHEDULE_INTERVAL_SECONDS).")


def _check(schedule: Schedule, *, timing: bool = True) -> None:
    """Every rule a schedule must pass; `timing` False skips the minimum interval for a cron saved before (unchanged)."""
    if schedule.job.kind == JobKind.STREAMING:  # a stream runs until stopped: stream/start/, not fires
        raise InvalidInput.of({"job": [f"Job '{schedule.job.name}' is a streaming job; it cannot be scheduled."]})
    check_cron(schedule.cron)
    zone(schedule.time_zone)
    first_fire_after(schedule, timezone.now())  # one that never fires (31 February) is refused
    if timing:
        check_interval(schedule)
    if schedule.catchup not in CatchUp.values:
        raise InvalidInput.of({"catchup": [f"Use one of {', '.join(CatchUp.values)}."]})
    if schedule.concurrency not in Concurrency.values:
        raise InvalidInput.of({"concurrency": [f"Use one of {', '.join(Concurrency.values)}."]})
    schedule.parameters = check_parameters(job=schedule.job, parameters=schedule.parameters)


def schedule_create(*, team: Team, user: Any, job: SqlJob, name: str, cron: str, time_zone: str = "UTC",
                    enabled: bool = True, catchup: str = CatchUp.SKIP, concurrency: str = Concurrency.SKIP,
                    max_retries: int = 0, retry_backoff_seconds: int = 60, parameters: dict[str, Any] | None = None,
                    now: datetime | None = None) -> Schedule:
    """Create a schedule of `job`; a bad cron or time zone raises ScheduleSpecError, a bad override ParameterError.

    Its first tick is the first one after `now`: a new schedule never fires for the past.
    """
    schedule = Schedule(team=team, job=job, name=name, cron=cron.strip(), time_zone=time_zone, enabled=enabled,
                        catchup=catchup, concurrency=concurrency, max_retries=max_retries,
                        retry_backoff_seconds=retry_backoff_seconds, parameters=parameters or {},
                        created_by=user if getattr(user, "is_authenticated", False) else None)
    _check(schedule)
    schedule.next_fire_at = first_fire_after(schedule, now or timezone.now()) if enabled else None
    if Schedule.objects.filter(team=team, name=name).exists():
        raise InvalidInput.of({"name": [f"A schedule named '{name}' already exists in team '{team.name}'."]})
    try:
        with transaction.atomic():
            schedule.save()
    except IntegrityError:  # a concurrent create with the same name
        raise InvalidInput.of({"name": [f"A schedule named '{name}' already exists in team '{team.name}'."]}) from None
    return schedule


@transaction.atomic
def schedule_update(*, schedule: Schedule, data: dict[str, Any], now: datetime | None = None) -> Schedule:
    """Change the given fields; a new cron or time zone moves the next tick to the first one after `now`."""
    schedule = Schedule.objects.select_for_update().select_related("job").get(pk=schedule.pk)
    timing = any(k in data and data[k] != getattr(schedule, k) for k in ("cron", "time_zone"))
    if "name" in data and data["name"] != schedule.name and Schedule.objects.filter(
            team_id=schedule.team_id, name=data["name"]).exclude(pk=schedule.pk).exists():
        raise InvalidInput.of({"name": [f"A schedule named '{data['name']}' already exists in this team."]})
    for field in EDITABLE:
        if field in data:
            setattr(schedule, field, data[field].strip() if field == "cron" else data[field])
    _check(schedule, timing=timing)
    if "enabled" in data:
        schedule.enabled = bool(data["enabled"])
    if not schedule.enabled:
        schedule.next_fire_at = None
    elif timing or schedule.next_fire_at is None:
        schedule.next_fire_at = first_fire_after(schedule, now or timezone.now())
    schedule.updated_at = timezone.now()
    schedule.save()
    return schedule


def schedule_pause(*, schedule: Schedule) -> Schedule:
    """Stop firing; ticks while paused are never fired later (resume starts from the next tick)."""
    Schedule.objects.filter(pk=schedule.pk).update(enabled=False, next_fire_at=None, updated_at=timezone.now())
    schedule.refresh_from_db()
    return schedule


@transaction.atomic
def schedule_resume(*, schedule: Schedule, now: datetime | None = None) -> Schedule:
    """Fire again from the first tick after `now` (a paused schedule does not catch up on its pause)."""
    schedule = Schedule.objects.select_for_update().get(pk=schedule.pk)
    if not schedule.enabled:
        schedule.enabled = True
        schedule.next_fire_at = first_fire_after(schedule, now or timezone.now())
        schedule.updated_at = timezone.now()
        schedule.save(update_fields=["enabled", "next_fire_at", "updated_at"])
    return schedule


def schedule_delete(*, schedule: Schedule) -> None:
    """Delete a schedule and its fire history; runs it submitted stay."""
    schedule.delete()
