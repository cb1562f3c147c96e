"""Reads of SQL jobs, runs and run logs; everything is scoped to one team (another team's id → 404)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import QuerySet

from core.errors import Conflict, InvalidInput, NotFound
from jobs.models import JobRun, JobRunLogLine, RunStatus, SqlJob
from teams.models import Team

MAX_LOG_PAGE = 1000


def job_list(*, team: Team) -> QuerySet[SqlJob]:
    """The team's jobs by name."""
    return SqlJob.objects.filter(team=team).select_related("created_by").order_by("name")


def job_get(*, team: Team, job_id: int) -> SqlJob:
    """One job of the team; a missing or another team's job raises NotFound."""
    job = SqlJob.objects.filter(team=team, id=job_id).select_related("created_by", "team").first()
    if job is None:
        raise NotFound(f"No job {job_id} in team '{team.name}'.")
    return job


def run_list(
    *,
    team: Team,
    job_id: int | None = None,
    statuses: list[str] | None = None,
    username: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
) -> QuerySet[JobRun]:
    """The team's runs, newest first, filtered by job, status, submitting user and submission time."""
    qs = JobRun.objects.filter(team=team).select_related("job", "submitted_by", "team")
    if job_id is not None:
        qs = qs.filter(job_id=job_id)
    if statuses:
        unknown = [s for s in statuses if s not in RunStatus.values]
        if unknown:
            raise InvalidInput.of({"status": [f"Unknown status '{unknown[0]}'; use one of {', '.join(RunStatus.values)}."]})
        qs = qs.filter(status__in=statuses)
    if username:
        qs = qs.filter(submitted_by__username=username)
    if since is not None:
        qs = qs.filter(created_at__gte=since)
    if until is not None:
        qs = qs.filter(created_at__lt=until)
    return qs.order_by("-created_at", "-id")


def run_get(*, team: Team, run_id: int) -> JobRun:
    """One run of the team; a missing or another team's run raises NotFound."""
    run = JobRun.objects.filter(team=team, id=run_id).select_related("job", "submitted_by", "team").first()
    if run is None:
        raise NotFound(f"No run {run_id} in team '{team.name}'.")
    return run


@dataclass(frozen=True)
class LogPage:
    """Log lines from `offset` on, the offset to ask for next, and the run's status when read."""

    lines: Sequence[Mapping[str, Any]]
    offset: int
    next_offset: int
    finished: bool
    status: str


def run_log_page(*, run: JobRun, offset: int, limit: int = MAX_LOG_PAGE) -> LogPage:
    """Lines of `run`'s log with seq ≥ `offset` (at most `limit`); poll again with `next_offset`."""
    rows = list(
        JobRunLogLine.objects.filter(run=run, seq__gte=offset).order_by("seq").values("seq", "ts", "level", "message")[
            : max(1, min(limit, MAX_LOG_PAGE))
        ]
    )
    next_offset = rows[-1]["seq"] + 1 if rows else offset
    return LogPage(lines=rows, offset=offset, next_offset=next_offset, finished=run.is_finished, status=run.status)


@dataclass(frozen=True)
class RunResult:
    """The bounded preview of a finished run's last query; empty when it kept none."""

    columns: list[dict[str, str]]
    rows: list[list[Any]]
    truncated: bool


def run_result_get(*, run: JobRun) -> RunResult:
    """The preview `run` kept of its last query (`{"columns", "rows", "truncated"}`); Conflict until it finishes."""
    if not run.is_finished:
        raise Conflict(f"Run {run.id} is {run.status}; its result is available when it finishes.")
    result = run.result or {}
    return RunResult(columns=result.get("columns") or [], rows=result.get("rows") or [],
                     truncated=bool(result.get("truncated")))
