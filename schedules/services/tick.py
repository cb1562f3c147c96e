"""The beat's tick: fire every due schedule once, start queued ticks, retry failed runs. Safe in many processes.

Each schedule row is locked with SKIP LOCKED while its due ticks are computed, so two ticking processes split
the schedules between them instead of both firing one; the fire row's UNIQUE(schedule, fire_time) and the run's
UNIQUE(job, idempotency_key) stop a second run of a tick even where row locks do not exist (SQLite) or after a
restart. `now` is a parameter so tests drive the clock.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from core.errors import InvalidInput
from jobs.models import RunStatus
from jobs.services.runs import run_submit
from schedules.cron import ScheduleSpecError, fire_times
from schedules.hooks import tick_not_run
from schedules.models import CatchUp, Concurrency, FireStatus, Schedule, ScheduleFire

logger = logging.getLogger("lakeport.schedules")
ACTIVE = (RunStatus.QUEUED, RunStatus.RUNNING)
MAX_MISSED_SCAN = 100_000  # ticks walked to find the latest missed one (a minutely cron down for ~70 days)


@dataclass
class TickReport:
    """What one tick did: (schedule id, fire time) pairs per outcome, and how many missed ticks were skipped."""

    submitted: list[tuple[int, datetime]] = field(default_factory=list)
    waiting: list[tuple[int, datetime]] = field(default_factory=list)
    skipped: list[tuple[int, datetime]] = field(default_factory=list)
    failed: list[tuple[int, datetime]] = field(default_factory=list)
    retried: list[tuple[int, datetime]] = field(default_factory=list)
    missed: int = 0


def schedules_tick(*, now: datetime | None = None) -> TickReport:
    """Fire the due ticks of every enabled schedule, start ticks waiting for a previous run, retry failed runs."""
    now = now or timezone.now()
    report = TickReport()
    for schedule_id in list(Schedule.objects.filter(enabled=True, next_fire_at__lte=now).values_list("id", flat=True)):
        _fire_due(schedule_id=schedule_id, now=now, report=report)
    for schedule_id in list(ScheduleFire.objects.filter(status=FireStatus.WAITING)
                            .values_list("schedule_id", flat=True).distinct()):
        _start_waiting(schedule_id=schedule_id, report=report)
    _retry_failed(now=now, report=report)
    if report.submitted or report.retried or report.skipped or report.failed or report.missed:
        logger.info("schedules.ticked", extra={"submitted": len(report.submitted), "retried": len(report.retried),
                                               "skipped": len(report.skipped), "failed": len(report.failed),
                                               "missed": report.missed})
    return report


def _locked(schedule_id: int) -> Schedule | None:
    # SKIP LOCKED: a schedule another process is firing right now is that process's job.
    return (Schedule.objects.select_for_update(skip_locked=True, of=("self",)).select_related("job")
            .filter(id=schedule_id).first())


def _busy(schedule: Schedule) -> bool:
    return ScheduleFire.objects.filter(schedule=schedule, run__status__in=ACTIVE).exists()


def _fire_due(*, schedule_id: int, now: datetime, report: TickReport) -> None:
    with transaction.atomic():
        schedule = _locked(schedule_id)
        if schedule is None or not schedule.enabled or schedule.next_fire_at is None or schedule.next_fire_at > now:
            return  # taken by another process, paused, or already fired
        try:
            latest, due, following = _due_ticks(schedule, now)
        except ScheduleSpecError as exc:  # e.g. a time zone removed from the tz database since it was saved
            logger.warning("schedules.unusable", extra={"schedule_id": schedule.id, "error": exc.message})
            Schedule.objects.filter(id=schedule.id).update(enabled=False, next_fire_at=None)
            return
        grace = timedelta(seconds=settings.LAKEPORT_SCHEDULE_GRACE_SECONDS)
        pick = latest if schedule.catchup == CatchUp.LATEST or now - latest <= grace else None
        missed = due - (1 if pick else 0)
        report.missed += missed
        if missed:
            tick_not_run(schedule=schedule, fire_time=schedule.next_fire_at or latest,  # the first one missed
                         outcome="missed", message=f"{missed} tick(s) missed (catch-up: {schedule.catchup}).")
        Schedule.objects.filter(id=schedule.id).update(
            next_fire_at=following, last_fire_at=pick or schedule.last_fire_at)
        if pick is not None:
            _fire(schedule=schedule, fire_time=pick, report=report)


def _due_ticks(schedule: Schedule, now: datetime) -> tuple[datetime, int, datetime]:
    """The latest due tick, how many ticks are due (missed ones included) and the first tick after `now`."""
    assert schedule.next_fire_at is not None
    latest, count = schedule.next_fire_at, 1
    times = fire_times(schedule.cron, schedule.time_zone, after=schedule.next_fire_at)
    for _ in range(MAX_MISSED_SCAN):
        moment = next(times)
        if moment > now:
            return latest, count, moment
        latest, count = moment, count + 1
    return latest, count, next(fire_times(schedule.cron, schedule.time_zone, after=now))


def _fire(*, schedule: Schedule, fire_time: datetime, report: TickReport) -> None:
    busy = _busy(schedule) or ScheduleFire.objects.filter(schedule=schedule, status=FireStatus.WAITING).exists()
    status = FireStatus.SUBMITTED
    if busy:
        status = FireStatus.SKIPPED if schedule.concurrency == Concurrency.SKIP else FireStatus.WAITING
    try:
        with transaction.atomic():
            fire = ScheduleFire.objects.create(
                schedule=schedule, fire_time=fire_time, status=status,
                message="The previous run was still going." if status == FireStatus.SKIPPED else "")
            if status == FireStatus.SKIPPED:
                tick_not_run(schedule=schedule, fire_time=fire_time, outcome=FireStatus.SKIPPED, message=fire.message)
    except IntegrityError:
        return  # the fire key exists: another process (or an earlier life of this one) fired this tick
    if status == FireStatus.SUBMITTED:
        _submit(fire=fire, schedule=schedule, report=report, outcome=report.submitted)
    else:
        (report.skipped if status == FireStatus.SKIPPED else report.waiting).append((schedule.id, fire_time))


def _submit(*, fire: ScheduleFire, schedule: Schedule, report: TickReport,
            outcome: list[tuple[int, datetime]]) -> None:
    attempt = fire.attempts + 1
    key = f"schedule-{schedule.id}-{fire.fire_time:%Y%m%dT%H%M%SZ}-{attempt}"
    try:
        submission = run_submit(job=schedule.job, user=schedule.created_by, idempotency_key=key,
                                parameters=schedule.parameters, logical_date=fire.fire_time,
                                time_zone=schedule.time_zone)
    except InvalidInput as exc:  # the job changed since the schedule was saved
        message = "; ".join(exc.messages())
        ScheduleFire.objects.filter(id=fire.id).update(status=FireStatus.FAILED, message=message[:1000])
        tick_not_run(schedule=schedule, fire_time=fire.fire_time, outcome=FireStatus.FAILED, message=message)
        report.failed.append((schedule.id, fire.fire_time))
        return
    ScheduleFire.objects.filter(id=fire.id).update(status=FireStatus.SUBMITTED, run=submission.run,
                                                   attempts=attempt)
    outcome.append((schedule.id, fire.fire_time))
    logger.info("schedules.fired", extra={"schedule_id": schedule.id, "fire_time": fire.fire_time.isoformat(),
                                          "run_id": submission.run.id, "attempt": attempt})


def _start_waiting(*, schedule_id: int, report: TickReport) -> None:
    with transaction.atomic():
        schedule = _locked(schedule_id)
        if schedule is None or _busy(schedule):
            return
        fire = ScheduleFire.objects.filter(schedule=schedule, status=FireStatus.WAITING).order_by("fire_time").first()
        if fire is not None:
            _submit(fire=fire, schedule=schedule, report=report, outcome=report.submitted)


def _retry_failed(*, now: datetime, report: TickReport) -> None:
    candidates = (ScheduleFire.objects.filter(status=FireStatus.SUBMITTED, run__status=RunStatus.FAILED,
                                              attempts__lte=F("schedule__max_retries"))
                  .values_list("id", "attempts", "run__finished_at", "schedule__retry_backoff_seconds"))
    for fire_id, attempts, finished_at, backoff in list(candidates):
        if finished_at is None or finished_at + timedelta(seconds=backoff * 2 ** (attempts - 1)) > now:
            continue
        with transaction.atomic():
            fire = (ScheduleFire.objects.select_for_update(skip_locked=True, of=("self",))
                    .select_related("schedule__job", "run").filter(id=fire_id, attempts=attempts).first())
            if fire is None or fire.run is None or fire.run.status != RunStatus.FAILED:
                continue
            _submit(fire=fire, schedule=fire.schedule, report=report, outcome=report.retried)
