"""Reads of schedules, scoped to one team (another team's schedule → 404)."""

from __future__ import annotations

from django.db.models import QuerySet

from core.errors import NotFound
from jobs.models import JobRun
from schedules.models import Schedule, ScheduleFire
from teams.models import Team


def schedule_list(*, team: Team, job_id: int | None = None) -> QuerySet[Schedule]:
    """The team's schedules by name, optionally of one job."""
    qs = Schedule.objects.filter(team=team).select_related("job", "created_by").order_by("name")
    return qs.filter(job_id=job_id) if job_id is not None else qs


def schedule_get(*, team: Team, schedule_id: int) -> Schedule:
    """One schedule of the team; a missing or another team's schedule raises NotFound."""
    schedule = Schedule.objects.filter(team=team, id=schedule_id).select_related("job", "created_by").first()
    if schedule is None:
        raise NotFound(f"No schedule {schedule_id} in team '{team.name}'.")
    return schedule


def schedule_recent_fires(*, schedule: Schedule, limit: int = 10) -> list[ScheduleFire]:
    """The schedule's latest ticks, newest first, with their runs."""
    return list(ScheduleFire.objects.filter(schedule=schedule).select_related("run").order_by("-fire_time")[:limit])


def schedule_fire_runs(*, schedule: Schedule) -> list[JobRun]:
    """Every run a schedule submitted (retries included), newest first; its idempotency keys name it."""
    return list(JobRun.objects.filter(job_id=schedule.job_id, idempotency_key__startswith=f"schedule-{schedule.id}-")
                .order_by("-id"))
