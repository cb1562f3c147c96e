"""Issue 28, "one developer stalls every team": with `make run`'s worker layout (a worker per queue), team A's two
unbounded runs, more runs queued behind them and a burst of ten previews do not make team B wait: B's preview and
its run of `SELECT 1` complete, A's extra runs stay QUEUED (not failed) until A's runs end, A's previews over its
limit are refused at once naming it, those the web gave up on are abandoned by the worker, and the schedule tick
keeps its period (drift measured from each tick's fire time, relative to the tick period). A statement running
past its team's maximum duration is cancelled and its run FAILS naming the limit.

"Unbounded" runs wait at a PostgreSQL gate (tests/support/gate.py): mid-stage for as long as the test needs, with
no CPU spent, so the measurement is about queues and threads, not about this machine's speed.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.db import connections
from django.test import override_settings
from django.utils import timezone

from catalogs.models import Catalog
from catalogs.secrets import seal_configuration
from jobs.models import JobRun, RunStatus, SqlJob
from lakeport_engine.catalog_types.jdbc import JdbcConfig
from schedules.models import Schedule, ScheduleFire
from schedules.services.schedules import schedule_create
from teams.models import Team
from tests.jobs.conftest import flush_broker
from tests.support.gate import Gate
from tests.support.paths import REPO
from tests.support.processes import stop_process_group
from tests.support.servers import wait_until
from tests.support.worker import WORKER_SPARK, celery_command, worker_env

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.spark]

TICK_SECONDS = 5.0
EDITOR_WAIT_SECONDS = 45.0  # the web's wait for an editor call (B's on a warm engine answers in a few seconds)
LIMITS = {"LAKEPORT_TEAM_MAX_RUNS": "2", "LAKEPORT_TEAM_MAX_EDITOR_CALLS": "2",
          "LAKEPORT_TEAM_LIMITS": json.dumps({"tardy": {"max_statement_seconds": 8}}),
          "LAKEPORT_SCHEDULE_TICK_SECONDS": str(TICK_SECONDS), "LAKEPORT_MIN_SCHEDULE_INTERVAL_SECONDS": "60"}
# platform/scripts/run.sh's layout, smaller: (hostname, queues, threads)
LAYOUT = [("runs", "lakeport", 6), ("editor", "lakeport.editor", 4), ("ticks", "lakeport.beat", 2)]
GATED = "SELECT * FROM pg.public.released"


class Stack:
    """The workers of LAYOUT and beat, their logs in one directory."""

    def __init__(self, logdir: Path) -> None:
        import subprocess

        self.logdir = logdir
        env = worker_env({**WORKER_SPARK, **LIMITS})
        self.procs = []
        for name, queues, threads in LAYOUT:
            cmd = celery_command("worker", hostname=f"{name}-fair@%h", concurrency=threads, queue=queues)
            self.procs.append(subprocess.Popen(cmd, cwd=REPO, env=env, stdout=open(logdir / f"{name}.log", "ab"),  # noqa: SIM115
                                               stderr=subprocess.STDOUT, start_new_session=True))
        self.procs.append(subprocess.Popen(celery_command("beat", schedule=logdir / "beat-schedule"), cwd=REPO,
                                           env=env, stdout=open(logdir / "beat.log", "ab"),  # noqa: SIM115
                                           stderr=subprocess.STDOUT, start_new_session=True))

    def log(self, name: str) -> str:
        return (self.logdir / f"{name}.log").read_text(errors="replace")

    def stop(self) -> None:
        for proc in self.procs:
            stop_process_group(proc)


@pytest.fixture(scope="module")
def stack(django_db_setup: Any, django_db_blocker: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    flush_broker()
    running = Stack(tmp_path_factory.mktemp("fair-share"))
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def gate(pg_source: Any) -> Iterator[Gate]:
    """A closed gate in `pg_source`; afterwards it is opened and the workers are left idle (no schedule, no run
    going), so the test database can be flushed under them."""
    closed = Gate(pg_source.dsn).install()
    try:
        yield closed
    finally:
        closed.open()
        Schedule.objects.all().delete()
        wait_until(lambda: not JobRun.objects.filter(status__in=[RunStatus.QUEUED, RunStatus.RUNNING]).exists(),
                   timeout=300, what="every run to end")


def gated_catalog(team: Team, dsn_name: str) -> None:
    config = JdbcConfig.model_validate({"type": "postgresql", "base-url": "jdbc:postgresql://127.0.0.1:5432/",
                                        "default-database": dsn_name, "username": "postgres", "password": "unused-pw"})
    Catalog.objects.create(team=team, catalog_type="jdbc", catalog_name="pg", configuration=seal_configuration(config))


def submit(client: Any, team: str, job_id: int) -> int:
    response = client.post(f"/api/v1/teams/{team}/jobs/{job_id}/runs/")
    assert response.status_code == 201, response.json()
    return int(response.json()["id"])


def status(run_id: int) -> str:
    return JobRun.objects.filter(id=run_id).values_list("status", flat=True).first() or ""


def preview(client: Any, team: str, sql: str) -> tuple[int, dict[str, Any]]:
    response = client.post(f"/api/v1/teams/{team}/sql/preview/", {"sql": sql}, format="json")
    return response.status_code, response.json()


def test_one_teams_load_does_not_stall_another_team_or_the_ticks(
        stack: Stack, client_for: Any, team: Team, other_team: Team, pg_source: Any, gate: Gate) -> None:
    gated_catalog(team, pg_source.name)
    a_dev, b_dev = client_for("developer"), client_for("developer", other_team)
    a_job = SqlJob.objects.create(team=team, name="unbounded", sql=GATED)
    b_job = SqlJob.objects.create(team=other_team, name="one", sql="SELECT 1 AS one")
    with override_settings(LAKEPORT_INTERACTIVE_TIMEOUT_SECONDS=240, LAKEPORT_TEAM_MAX_EDITOR_CALLS=2):
        # Both teams' engines are started first (a cold engine's start is not what is measured here).
        assert preview(b_dev, "globex", "SELECT 0")[0] == 200
        assert preview(a_dev, "acme", "SELECT 0")[0] == 200
    warm = submit(b_dev, "globex", b_job.id)
    wait_until(lambda: status(warm) == RunStatus.SUCCEEDED, what="B's warm-up run")
    tick_job = SqlJob.objects.create(team=other_team, name="every minute", sql="SELECT 2 AS two")
    schedule = schedule_create(team=other_team, user=None, job=tick_job, name="minutely", cron="* * * * *")

    # Team A: two unbounded runs (held at the gate), two more runs behind them, and a burst of ten previews.
    a_runs = [submit(a_dev, "acme", a_job.id) for _ in range(4)]
    gate.wait_for(2)
    attack_started = timezone.now()
    answers: list[tuple[int, dict[str, Any]]] = []

    def a_preview(client: Any) -> None:
        try:
            answers.append(preview(client, "acme", GATED))
        finally:
            connections.close_all()  # this thread's own connection

    burst = [threading.Thread(target=a_preview, args=(client_for("developer"),)) for _ in range(10)]
    with override_settings(LAKEPORT_INTERACTIVE_TIMEOUT_SECONDS=EDITOR_WAIT_SECONDS, LAKEPORT_TEAM_MAX_EDITOR_CALLS=2):
        for t in burst:
            t.start()
        wait_until(lambda: len(answers) >= 8, what="A's previews over its limit to be refused")
        gate.wait_for(4)  # A's two runs and A's two admitted previews are all mid-stage

        # Team B is not held up: its preview answers and its run ends, while A's load is all there.
        code, body = preview(b_dev, "globex", "SELECT 1 AS one")
        assert code == 200, body
        assert body["rows"] == [[1]]
        b_run = submit(b_dev, "globex", b_job.id)
        wait_until(lambda: status(b_run) in (RunStatus.SUCCEEDED, RunStatus.FAILED), what="B's run")
        assert status(b_run) == RunStatus.SUCCEEDED
        # A's runs over its limit wait, QUEUED, not failed
        assert sorted(status(r) for r in a_runs) == ["QUEUED", "QUEUED", "RUNNING", "RUNNING"]
        # The web gives up on A's two admitted previews; the editor worker abandons them (cancels their statements).
        for t in burst:
            t.join()
    assert sorted(c for c, _ in answers) == [503] * 10
    messages = [b["error"]["message"] for _, b in answers]
    assert sum("LAKEPORT_TEAM_MAX_EDITOR_CALLS" in m for m in messages) == 8  # refused at once, naming the limit
    assert sum("LAKEPORT_INTERACTIVE_TIMEOUT_SECONDS" in m for m in messages) == 2  # reached A's engine, given up
    wait_until(lambda: stack.log("editor").count("editor.abandoned") >= 2, what="the editor worker to give up")
    # Two ticks of the schedule fire while all of this goes on; each fired within a tick period of its time.
    wait_until(lambda: ScheduleFire.objects.filter(schedule=schedule, fire_time__gte=attack_started).count() >= 2,
               timeout=200, what="two schedule ticks during A's load")
    assert sorted(status(r) for r in a_runs).count("RUNNING") == 2  # still loaded while the ticks fired
    fires = ScheduleFire.objects.filter(schedule=schedule, fire_time__gte=attack_started)
    drifts = [(f.created_at - f.fire_time).total_seconds() for f in fires]
    assert all(0 <= d <= 2 * TICK_SECONDS for d in drifts), drifts

    gate.open()  # A's runs end; its queued runs start in turn and end too
    wait_until(lambda: all(status(r) == RunStatus.SUCCEEDED for r in a_runs), timeout=300, what="A's runs")


def test_a_statement_past_its_teams_maximum_duration_fails_the_run_naming_the_limit(
        stack: Stack, client_for: Any, team: Team, pg_source: Any, gate: Gate) -> None:
    tardy = Team.objects.create(name="tardy")
    gated_catalog(tardy, pg_source.name)
    gated_catalog(team, pg_source.name)
    dev = client_for("developer", tardy)
    warm_job = SqlJob.objects.create(team=tardy, name="warm", sql="SELECT 1")

    def warmed() -> bool:  # a cold engine's first statement may itself outlast the limit on a loaded machine
        run = submit(dev, "tardy", warm_job.id)
        wait_until(lambda: status(run) in (RunStatus.SUCCEEDED, RunStatus.FAILED), timeout=300, what="a warm-up")
        return status(run) == RunStatus.SUCCEEDED

    wait_until(warmed, timeout=900, what="tardy's engine to run SELECT 1 within its limit")
    slow = submit(dev, "tardy", SqlJob.objects.create(team=tardy, name="slow", sql=f"SELECT 1;\n{GATED}").id)
    unlimited = submit(client_for("developer"), "acme", SqlJob.objects.create(team=team, name="slow", sql=GATED).id)
    wait_until(lambda: status(slow) in (RunStatus.FAILED, RunStatus.SUCCEEDED), timeout=300, what="the slow run")
    run = JobRun.objects.get(id=slow)
    assert run.status == RunStatus.FAILED
    assert "LAKEPORT_MAX_STATEMENT_SECONDS" in run.error["message"] and "8 s" in run.error["message"]
    assert run.error["statement"] == 1  # the second statement, the one that ran too long
    assert [s["status"] for s in run.statements][0] == "succeeded"
    log = dev.get(f"/api/v1/teams/tardy/runs/{slow}/log/").json()["lines"]
    assert any("LAKEPORT_MAX_STATEMENT_SECONDS" in line["message"] for line in log)
    assert status(unlimited) == RunStatus.RUNNING  # acme's limit (the default) is not tardy's
    gate.open()
    wait_until(lambda: status(unlimited) not in (RunStatus.QUEUED, RunStatus.RUNNING), timeout=300, what="acme's run")
    ended = JobRun.objects.get(id=unlimited)
    assert ended.status == RunStatus.SUCCEEDED, (ended.error, ended.statements)
