"""The schedule tick with a controllable clock against real PostgreSQL: one run per tick even with two ticking
processes racing, catch-up and concurrency policies, retries with backoff, pause/resume, DST nights."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.conf import settings
from django.db import connection

from config.celery import app
from jobs.models import JobRun, RunStatus
from schedules.models import FireStatus, Schedule, ScheduleFire
from schedules.selectors import schedule_fire_runs
from schedules.services.schedules import schedule_pause, schedule_resume
from schedules.services.tick import schedules_tick

T0 = datetime(2026, 1, 5, 9, 0, 30, tzinfo=UTC)


def _fires(schedule: Schedule) -> list[tuple[datetime, str]]:
    return list(ScheduleFire.objects.filter(schedule=schedule).order_by("fire_time").values_list("fire_time", "status"))


@pytest.mark.django_db(transaction=True)
def test_two_processes_ticking_at_once_submit_one_run_per_tick(make_schedule: Callable[..., Schedule]) -> None:
    schedules = [make_schedule("* * * * *", now=T0) for _ in range(4)]
    errors: list[BaseException] = []

    def ticker(now: datetime, barrier: threading.Barrier) -> None:
        try:
            barrier.wait()
            schedules_tick(now=now)
        except BaseException as exc:  # noqa: BLE001 (reported by the main thread)
            errors.append(exc)
        finally:
            connection.close()  # each thread has its own connection

    for minute in range(1, 6):  # five ticks, each raced by two "beat" threads with their own connections
        now = T0 + timedelta(minutes=minute)
        barrier = threading.Barrier(2)
        threads = [threading.Thread(target=ticker, args=(now, barrier)) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert not errors
    for schedule in schedules:
        # Ticks are 09:01 … 09:05; each finds the previous run still QUEUED (no worker here), so concurrency=skip
        # records the later ticks as skipped — but never two rows or two runs for one tick.
        fires = _fires(schedule)
        assert [f[0] for f in fires] == [datetime(2026, 1, 5, 9, m, tzinfo=UTC) for m in range(1, 6)]
        assert len(schedule_fire_runs(schedule=schedule)) == 1
    # a restart replays an old clock: nothing fires twice
    schedules_tick(now=T0 + timedelta(minutes=5))
    assert JobRun.objects.count() == 4


@pytest.mark.django_db
def test_each_tick_fires_once_with_its_logical_date(make_schedule: Callable[..., Schedule]) -> None:
    schedule = make_schedule("*/15 * * * *", now=T0)
    assert schedule.next_fire_at == datetime(2026, 1, 5, 9, 15, tzinfo=UTC)
    for step in range(0, 50, 5):  # 09:00:30 … 09:45:30 every five minutes
        now = T0 + timedelta(minutes=step)
        schedules_tick(now=now)
        schedules_tick(now=now)  # a second beat on the same clock
        JobRun.objects.filter(status=RunStatus.QUEUED).update(status=RunStatus.SUCCEEDED, finished_at=now)
    runs = sorted(schedule_fire_runs(schedule=schedule), key=lambda r: r.id)
    assert [r.parameters["ts"]["value"] for r in runs] == [
        "2026-01-05T09:15:00+00:00", "2026-01-05T09:30:00+00:00", "2026-01-05T09:45:00+00:00"]
    assert runs[0].sql == "SELECT DATE '2026-01-05' AS day, TIMESTAMP '2026-01-05 09:15:00+00:00' AS at"


@pytest.mark.django_db
def test_catch_up_skip_fires_nothing_for_missed_ticks(make_schedule: Callable[..., Schedule]) -> None:
    schedule = make_schedule("0 * * * *", now=T0, catchup="skip")
    report = schedules_tick(now=T0 + timedelta(hours=5, minutes=10))  # down from 09:00 to 14:10
    assert report.missed == 5 and not report.submitted
    assert _fires(schedule) == []
    schedule.refresh_from_db()
    assert schedule.next_fire_at == datetime(2026, 1, 5, 15, 0, tzinfo=UTC)


@pytest.mark.django_db
def test_catch_up_latest_runs_the_latest_missed_tick_once(make_schedule: Callable[..., Schedule]) -> None:
    schedule = make_schedule("0 * * * *", now=T0, catchup="latest")
    report = schedules_tick(now=T0 + timedelta(hours=5, minutes=10))
    assert report.missed == 4
    assert _fires(schedule) == [(datetime(2026, 1, 5, 14, 0, tzinfo=UTC), FireStatus.SUBMITTED)]
    schedules_tick(now=T0 + timedelta(hours=5, minutes=11))
    assert len(schedule_fire_runs(schedule=schedule)) == 1


@pytest.mark.django_db
def test_concurrency_skip_and_queue(make_schedule: Callable[..., Schedule]) -> None:
    skip = make_schedule("*/10 * * * *", now=T0, concurrency="skip", name="skip")
    queue = make_schedule("*/10 * * * *", now=T0, concurrency="queue", name="queue")
    schedules_tick(now=T0 + timedelta(minutes=10))  # 09:10: both submit; the runs stay RUNNING
    JobRun.objects.update(status=RunStatus.RUNNING)
    schedules_tick(now=T0 + timedelta(minutes=20))  # 09:20: previous still going
    assert [s for _, s in _fires(skip)] == [FireStatus.SUBMITTED, FireStatus.SKIPPED]
    assert [s for _, s in _fires(queue)] == [FireStatus.SUBMITTED, FireStatus.WAITING]
    assert len(schedule_fire_runs(schedule=queue)) == 1
    JobRun.objects.update(status=RunStatus.SUCCEEDED, finished_at=T0)
    schedules_tick(now=T0 + timedelta(minutes=21))  # the queued 09:20 tick starts now that the run finished
    assert [s for _, s in _fires(queue)] == [FireStatus.SUBMITTED, FireStatus.SUBMITTED]
    waited = schedule_fire_runs(schedule=queue)[0]
    assert waited.parameters["ts"]["value"] == "2026-01-05T09:20:00+00:00"  # its own logical date
    assert len(schedule_fire_runs(schedule=skip)) == 1


@pytest.mark.django_db
def test_a_failed_run_is_retried_with_backoff_up_to_the_limit(make_schedule: Callable[..., Schedule]) -> None:
    schedule = make_schedule("0 10 * * *", now=T0, max_retries=2, retry_backoff_seconds=60)
    fired_at = datetime(2026, 1, 5, 10, 0, 5, tzinfo=UTC)
    schedules_tick(now=fired_at)

    def fail_latest(at: datetime) -> None:
        JobRun.objects.filter(status=RunStatus.QUEUED).update(status=RunStatus.FAILED, finished_at=at)

    fail_latest(fired_at)
    schedules_tick(now=fired_at + timedelta(seconds=59))  # backoff not over
    assert len(schedule_fire_runs(schedule=schedule)) == 1
    schedules_tick(now=fired_at + timedelta(seconds=60))
    schedules_tick(now=fired_at + timedelta(seconds=60))
    assert len(schedule_fire_runs(schedule=schedule)) == 2
    fail_latest(fired_at + timedelta(seconds=70))
    schedules_tick(now=fired_at + timedelta(seconds=70 + 119))  # second backoff doubles: 120 s
    assert len(schedule_fire_runs(schedule=schedule)) == 2
    schedules_tick(now=fired_at + timedelta(seconds=70 + 120))
    fail_latest(fired_at + timedelta(seconds=200))
    schedules_tick(now=fired_at + timedelta(hours=2))  # retries used up
    fire = ScheduleFire.objects.get(schedule=schedule)
    assert fire.attempts == 3 and len(schedule_fire_runs(schedule=schedule)) == 3
    assert {r.parameters["ds"]["value"] for r in schedule_fire_runs(schedule=schedule)} == {"2026-01-05"}


@pytest.mark.django_db
def test_pause_and_resume(make_schedule: Callable[..., Schedule]) -> None:
    schedule = make_schedule("0 * * * *", now=T0)
    schedule_pause(schedule=schedule)
    assert not schedules_tick(now=T0 + timedelta(hours=3)).submitted
    schedule = schedule_resume(schedule=schedule, now=T0 + timedelta(hours=3))
    assert schedule.next_fire_at == datetime(2026, 1, 5, 13, 0, tzinfo=UTC)  # no catch-up of the pause
    assert schedules_tick(now=T0 + timedelta(hours=4)).submitted == [
        (schedule.id, datetime(2026, 1, 5, 13, 0, tzinfo=UTC))]


def _walk(schedule: Schedule, start: datetime, end: datetime, step: timedelta) -> list[datetime]:
    now = start
    while now <= end:
        schedules_tick(now=now)
        JobRun.objects.filter(status=RunStatus.QUEUED).update(status=RunStatus.SUCCEEDED, finished_at=now)
        now += step
    return [f for f, _ in _fires(schedule)]


@pytest.mark.django_db
@pytest.mark.parametrize(("cron", "start", "expected"), [
    # Spring forward (29 March 2026, 02:00 → 03:00 CEST): 02:30 does not exist and fires at 03:00 CEST.
    ("30 2 * * *", datetime(2026, 3, 28, 12, 0, tzinfo=UTC),
     [datetime(2026, 3, 29, 1, 0, tzinfo=UTC), datetime(2026, 3, 30, 0, 30, tzinfo=UTC)]),
    # Fall back (25 October 2026, 03:00 CEST → 02:00 CET): 02:30 happens twice and fires once, at the first.
    ("30 2 * * *", datetime(2026, 10, 24, 12, 0, tzinfo=UTC),
     [datetime(2026, 10, 25, 0, 30, tzinfo=UTC), datetime(2026, 10, 26, 1, 30, tzinfo=UTC)]),
    # An hourly schedule fires every real hour through the repeated one: 01:00, 02:00 CEST, 02:00 CET, 03:00 CET.
    ("0 * * * *", datetime(2026, 10, 24, 22, 30, tzinfo=UTC),
     [datetime(2026, 10, 24, 23, 0, tzinfo=UTC), datetime(2026, 10, 25, 0, 0, tzinfo=UTC),
      datetime(2026, 10, 25, 1, 0, tzinfo=UTC), datetime(2026, 10, 25, 2, 0, tzinfo=UTC)]),
])
def test_dst_nights_in_europe_berlin(make_schedule: Callable[..., Schedule], cron: str, start: datetime,
                                     expected: list[datetime]) -> None:
    schedule = make_schedule(cron, now=start, time_zone="Europe/Berlin")
    end = expected[-1] + timedelta(minutes=1)
    assert _walk(schedule, start, end, timedelta(minutes=15)) == expected


def test_beat_sends_the_tick_and_workers_know_it() -> None:
    # Celery's Django fixup calls django.setup() again, which re-applies LOGGING and drops the handlers the test
    # session added to the root logger (the leak scan's capture): put them back as they were.
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        app.loader.import_default_modules()
    finally:
        root.handlers[:], root.level = handlers, level
    app.finalize()
    entry = app.conf.beat_schedule["schedules.tick"]
    assert entry["task"] == "schedules.tick"
    assert entry["schedule"] == settings.LAKEPORT_SCHEDULE_TICK_SECONDS
    assert "schedules.tick" in app.tasks


@pytest.mark.django_db
def test_a_tick_whose_job_no_longer_accepts_the_overrides_is_recorded_failed(
        make_schedule: Callable[..., Schedule], job: Any) -> None:
    job.sql, job.parameters = "SELECT ${n} AS n", {"n": {"type": "int", "default": "1"}}
    job.save()
    schedule = make_schedule("0 * * * *", now=T0, parameters={"n": "2"})
    job.sql, job.parameters = "SELECT 1 AS one", {}  # the job was edited: `n` is gone
    job.save()
    report = schedules_tick(now=datetime(2026, 1, 5, 10, 0, 1, tzinfo=UTC))
    assert report.failed == [(schedule.id, datetime(2026, 1, 5, 10, 0, tzinfo=UTC))]
    fire = ScheduleFire.objects.get(schedule=schedule)
    assert fire.status == FireStatus.FAILED and "Unknown parameter 'n'" in fire.message
    assert not schedule_fire_runs(schedule=schedule)
