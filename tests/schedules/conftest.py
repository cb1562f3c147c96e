"""Fixtures for schedule tests: a job of team acme and a schedule maker driven by an explicit clock."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import pytest

from jobs.models import SqlJob
from schedules.models import Schedule
from schedules.services.schedules import schedule_create
from teams.models import Team


@pytest.fixture
def job(team: Team) -> SqlJob:
    """A job whose SQL uses the built-in logical date."""
    return SqlJob.objects.create(team=team, name="daily", sql="SELECT ${ds} AS day, ${ts} AS at")


@pytest.fixture
def make_schedule(team: Team, job: SqlJob) -> Callable[..., Schedule]:
    """`make_schedule(cron, now=…, **fields)` → a schedule of `job` created at `now`."""
    counter = iter(range(1, 10_000))

    def make(cron: str, *, now: datetime, **fields: Any) -> Schedule:
        return schedule_create(team=team, user=None, job=fields.pop("job", job),
                               name=fields.pop("name", f"s{next(counter)}"), cron=cron, now=now, **fields)

    return make
