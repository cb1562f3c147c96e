"""Two real `celery beat` processes, each with its own schedule file, and one real worker on Redis, against the
real PostgreSQL test database: every minute of ten `* * * * *` schedules makes exactly one fire row and one run,
none lost and none doubled, while both beats send the tick five times a second — and across a beat killed with
SIGKILL and started again between two fire times.

The clock is real (the tick reads `timezone.now()` in the worker): each schedule is created as if 40 s ago, so its
first tick is due within 20 s or just past (fired late, inside the grace period), and two ticks take about a minute.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
from collections import Counter
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
import redis
from django.conf import settings
from django.utils import timezone

from jobs.models import TERMINAL_STATUSES, JobRun, RunStatus, SqlJob
from schedules.models import FireStatus, Schedule, ScheduleFire
from schedules.services.schedules import schedule_create
from schedules.tasks import TICK_TASK
from teams.models import Team
from tests.support.paths import REPO
from tests.support.processes import stop_process_group
from tests.support.servers import wait_until
from tests.support.worker import WORKER_SPARK, Worker, celery_command, spawn_worker, worker_env

SCHEDULES = 10  # a tick that fires ten schedules lasts long enough for the other beat's ticks to run beside it
ORIGIN = re.compile(r"gen(\d+)@")  # the `origin` header of a Celery message: its sender's pid
# Both beats send the tick five times a second (production: every 15 s): at a fire time their ticks overlap.
TICK_ENV = {"LAKEPORT_SCHEDULE_TICK_SECONDS": "0.2", **WORKER_SPARK}


class Beat:
    """One `celery beat` process with its own schedule file; `pids` has one entry per start."""

    def __init__(self, env: dict[str, str], logdir: Path, name: str) -> None:
        self.env, self.logdir, self.name = env, logdir, name
        self.proc: subprocess.Popen[bytes] | None = None
        self.pids: list[int] = []

    def start(self) -> None:
        """Start the beat on its own schedule file (kept across restarts, as a real restart keeps it)."""
        cmd = celery_command("beat", schedule=self.logdir / f"{self.name}-schedule")
        self.proc = subprocess.Popen(cmd, cwd=REPO, env=self.env, stdout=open(self.logdir / f"{self.name}.log", "ab"),  # noqa: SIM115
                                     stderr=subprocess.STDOUT, start_new_session=True)
        self.pids.append(self.proc.pid)

    def kill(self) -> None:
        """SIGKILL the beat's process group: no shutdown code runs, its schedule file is left as it was."""
        assert self.proc is not None
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        """Stop the beat (SIGTERM, then SIGKILL)."""
        stop_process_group(self.proc)


class TickWitness:
    """Counts the schedule ticks each process sends to the broker, read from Redis MONITOR in a thread.

    A tick message names its sender in the `origin` header (`gen<pid>@host`); beat's own log cannot tell, as it
    goes quiet once beat starts ticking.
    """

    def __init__(self, url: str) -> None:
        self.client = redis.Redis.from_url(url)
        self.db = int(self.client.connection_pool.connection_kwargs.get("db", 0))
        self.sent: Counter[int] = Counter()
        self._ready, self._stopping = threading.Event(), threading.Event()
        self._thread = threading.Thread(target=self._read, name="tick-witness", daemon=True)

    def start(self) -> None:
        """Start reading; returns once MONITOR is on, so no later tick is missed."""
        self._thread.start()
        assert self._ready.wait(30), "MONITOR did not start"

    def _read(self) -> None:
        with self.client.monitor() as monitor:
            self._ready.set()
            for command in monitor.listen():
                if self._stopping.is_set():
                    return
                text = command.get("command", "")
                if command.get("db") == self.db and text.startswith("LPUSH") and TICK_TASK in text:
                    origin = ORIGIN.search(text)
                    if origin:
                        self.sent[int(origin.group(1))] += 1

    def stop(self) -> None:
        """Stop reading (one more command wakes the reader up)."""
        self._stopping.set()
        self.client.ping()
        self._thread.join(timeout=30)


def _flush_broker() -> None:
    redis.Redis.from_url(settings.CELERY_BROKER_URL).flushdb()


@pytest.fixture
def platform(db: object, tmp_path: Path) -> Iterator[tuple[Worker, Beat, Beat, TickWitness]]:
    """One worker (threads: ticks from both beats run side by side), two beats and a witness, on an empty broker."""
    _flush_broker()
    witness = TickWitness(settings.CELERY_BROKER_URL)
    witness.start()
    env = worker_env(TICK_ENV)
    worker = spawn_worker(env, tmp_path, hostname="beat-race@%h", beat=False, concurrency=4)
    beats = (Beat(env, tmp_path, "beat-a"), Beat(env, tmp_path, "beat-b"))
    try:
        for beat in beats:
            beat.start()
        yield worker, beats[0], beats[1], witness
    finally:
        for beat in beats:
            beat.stop()
        worker.stop()
        witness.stop()
        _flush_broker()


def _fires(schedule: Schedule) -> list[ScheduleFire]:
    return list(ScheduleFire.objects.filter(schedule=schedule).select_related("run").order_by("fire_time"))


def _fired(schedules: list[Schedule], moment: datetime) -> bool:
    return ScheduleFire.objects.filter(schedule__in=schedules, fire_time=moment).count() == len(schedules)


def _settled(schedules: list[Schedule], upto: datetime) -> bool:
    """Every tick up to `upto` has its run (a queued tick started) and the run has finished."""
    fires = ScheduleFire.objects.filter(schedule__in=schedules, fire_time__lte=upto)
    return (fires.count() >= 2 * len(schedules)
            and not fires.exclude(status=FireStatus.SUBMITTED).exists()
            and not fires.exclude(run__status__in=TERMINAL_STATUSES).exists())


@pytest.mark.django_db(transaction=True)
def test_two_beats_fire_each_minute_once_even_across_a_beat_restart(
        platform: tuple[Worker, Beat, Beat, TickWitness], team: Team) -> None:
    worker, beat_a, beat_b, witness = platform
    wait_until(lambda: witness.sent[beat_a.pids[0]] and witness.sent[beat_b.pids[0]], timeout=120,
               what="both beats to send ticks")

    # Created "40 s ago": the first tick is either just past (fired late, within the grace period) or at most 20 s
    # away, and the second is at least 20 s away — time for the restart below.
    created = timezone.now() - timedelta(seconds=40)
    jobs = [SqlJob.objects.create(team=team, name=f"minutely-{i}", sql="SELECT ${ds} AS day, ${ts} AS at")
            for i in range(SCHEDULES)]
    schedules = [schedule_create(team=team, user=None, job=job, name=f"every-minute-{i}", cron="* * * * *",
                                 concurrency="queue", now=created) for i, job in enumerate(jobs)]
    first = schedules[0].next_fire_at
    assert first is not None and all(s.next_fire_at == first for s in schedules)
    second = first + timedelta(minutes=1)

    wait_until(lambda: _fired(schedules, first), timeout=120, what=f"the {first:%H:%M} tick")
    assert not ScheduleFire.objects.filter(fire_time__gte=second).exists()

    # Beat a dies between the two fire times and comes back on the same schedule file.
    beat_a.kill()
    beat_a.start()
    wait_until(lambda: witness.sent[beat_a.pids[1]], timeout=120, what="the restarted beat to send ticks")
    assert not ScheduleFire.objects.filter(fire_time__gte=second).exists(), "restarted too late to race tick 2"

    wait_until(lambda: _fired(schedules, second), timeout=150, what=f"the {second:%H:%M} tick")
    # Both beats (the restarted one included) went on sending ticks through the second fire time.
    sent = dict(witness.sent)
    wait_until(lambda: all(witness.sent[pid] >= sent.get(pid, 0) + 3 for pid in (beat_a.pids[1], beat_b.pids[0])),
               timeout=60, what="more ticks from both beats after the second fire")
    # The worker ran every tick's run (a tick that found the previous run going waited for it: concurrency=queue).
    wait_until(lambda: _settled(schedules, second), timeout=240, what="every tick's run to finish")
    for beat in (beat_a, beat_b):
        beat.stop()
    worker.stop()

    for schedule, job in zip(schedules, jobs, strict=True):
        fires = _fires(schedule)
        times = [f.fire_time for f in fires]
        # None lost: every minute from the first tick on, in order; none doubled: one row per minute.
        assert times == [first + timedelta(minutes=m) for m in range(len(times))] and len(times) >= 2
        runs = list(JobRun.objects.filter(job=job).order_by("id"))
        submitted = [f for f in fires if f.status == FireStatus.SUBMITTED]
        assert len(runs) == len(submitted), f"{len(runs)} runs for {len(submitted)} submitted ticks of {schedule}"
        assert sorted(r.id for r in runs) == sorted(f.run.id for f in submitted if f.run is not None)
        # Each run is its own tick's, with that tick's logical date, submitted once.
        for fire in submitted:
            assert fire.attempts == 1 and fire.run is not None
            assert fire.run.parameters["ts"]["value"] == fire.fire_time.isoformat()
        for fire in fires[:2]:
            assert fire.status == FireStatus.SUBMITTED
            assert fire.run is not None and fire.run.status == RunStatus.SUCCEEDED, worker.log()[-4000:]
    assert "Traceback" not in worker.log()
