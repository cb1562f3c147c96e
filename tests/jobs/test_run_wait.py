"""`?wait=` on a run: the answer comes when the run ends (or when the time is up), through a real worker and engine."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.conf import settings
from django.db import connection, connections
from django.test import override_settings

from catalogs.models import Catalog
from jobs.models import JobRun, RunStatus, SqlJob
from jobs.services import run_waits
from tests.jobs.test_worker_runs import JOBS, RUNS, create_job
from tests.support.gate import Gate
from tests.support.servers import wait_until
from tests.support.worker import Worker

pytestmark = [pytest.mark.django_db(transaction=True)]


def _get_in_thread(client: Any, url: str, box: dict[str, Any], key: str) -> threading.Thread:
    """GET `url` on a thread of its own (its answer in `box[key]`); the thread's database connection is closed
    after, as a web server's would be (the test client keeps it open)."""
    def get() -> None:
        try:
            box[key] = client.get(url).json()
        finally:
            connections.close_all()  # this thread's only

    thread = threading.Thread(target=get)
    thread.start()
    return thread


def _waiting(count: int = 1) -> None:
    """Block until `count` requests hold a wait slot (they are waiting, not about to)."""
    wait_until(lambda: run_waits._slots()._value <= settings.LAKEPORT_RUN_WAITERS - count,
               what=f"{count} request(s) to wait")


@pytest.mark.spark
def test_submit_with_wait_answers_with_the_finished_run(celery_worker: Worker, developer_client: Any) -> None:
    job = create_job(developer_client, "SELECT 41 + 1 AS answer")
    # the team's engine is started by a first run (a cold start on a busy machine can take longer than the longest
    # wait, 30 s); what is tested is the wait on the second
    first = developer_client.post(f"{JOBS}{job['id']}/runs/").json()
    for _ in range(20):
        if developer_client.get(f"{RUNS}{first['id']}/?wait=30").json()["status"] not in ("QUEUED", "RUNNING"):
            break
    response = developer_client.post(f"{JOBS}{job['id']}/runs/?wait=30")
    assert response.status_code == 201
    body = response.json()
    assert body["status"] == "SUCCEEDED", body
    assert body["statements"][0]["status"] == "succeeded" and body["finished_at"]
    assert developer_client.get(f"{RUNS}{body['id']}/result/").json()["rows"] == [[42]]
    log = "\n".join(line["message"] for line in developer_client.get(f"{RUNS}{body['id']}/log/").json()["lines"])
    # what the worker's recorder had not written before the end went in with it, in order
    assert log.index("Attempt 1 started") < log.index("Engine: warm") < log.index("Statement 1/1 started") \
        < log.index("Statement 1 succeeded") < log.index("Run SUCCEEDED")
    assert body["spark_app_id"] and body["engine_used"] == "warm"


@pytest.mark.spark
def test_a_wait_shorter_than_the_run_answers_with_the_run_still_going(
        celery_worker: Worker, developer_client: Any, pg_catalog: Catalog, pg_source: Any) -> None:
    gate = Gate(pg_source.dsn).install()
    job = create_job(developer_client, "SELECT * FROM pg.public.released")
    run = developer_client.post(f"{JOBS}{job['id']}/runs/").json()
    gate.wait_for()  # mid-stage: it cannot end before the gate opens
    waited = developer_client.get(f"{RUNS}{run['id']}/?wait=0.3").json()
    assert waited["status"] == "RUNNING"
    # the statement row is written while it runs (the recorder's live write), not only at the end
    assert [s["status"] for s in waited["statements"]] == ["running"]
    box: dict[str, Any] = {}
    waiter = _get_in_thread(developer_client, f"{RUNS}{run['id']}/?wait=30", box, "body")
    _waiting()
    gate.open()
    waiter.join()
    assert box["body"]["status"] == "SUCCEEDED"
    assert box["body"]["statements"][0]["rows"] == 1


def test_a_cancel_ends_the_wait_of_a_queued_run(developer_client: Any, make_job: Any) -> None:
    job = make_job("SELECT 1")
    run = JobRun.objects.create(job=job, team_id=job.team_id, sql="SELECT 1")
    box: dict[str, Any] = {}
    waiter = _get_in_thread(developer_client, f"{RUNS}{run.id}/?wait=30", box, "body")
    _waiting()
    assert developer_client.post(f"{RUNS}{run.id}/cancel/").status_code == 202
    waiter.join()
    assert box["body"]["status"] == "CANCELLED"


@override_settings(LAKEPORT_RUN_WAITERS=1)
def test_waits_over_the_limit_are_answered_at_once(developer_client: Any, make_job: Any) -> None:
    run_waits._state.pop("slots", None)  # the semaphore is sized from the setting on first use
    job = make_job("SELECT 1")
    run = JobRun.objects.create(job=job, team_id=job.team_id, sql="SELECT 1")
    box: dict[str, Any] = {}
    first = _get_in_thread(developer_client, f"{RUNS}{run.id}/?wait=30", box, "first")
    try:
        _waiting()
        second = developer_client.get(f"{RUNS}{run.id}/?wait=30")
        assert second.status_code == 200 and second.json()["status"] == "QUEUED"
        assert first.is_alive()  # the first still waits: the second did not queue behind it
    finally:
        developer_client.post(f"{RUNS}{run.id}/cancel/")
        first.join()
        run_waits._state.pop("slots", None)
    assert box["first"]["status"] == "CANCELLED"


@pytest.mark.parametrize("value", ["-1", "31", "abc", "nan", "inf", "1e400"])
def test_a_bad_wait_is_a_400_naming_it_and_submits_nothing(developer_client: Any, make_job: Any, value: str) -> None:
    job = make_job("SELECT 1")
    response = developer_client.post(f"{JOBS}{job.id}/runs/?wait={value}")
    assert response.status_code == 400
    assert response.json()["error"]["details"]["wait"] == ["Expected a number of seconds from 0 to 30."]
    assert not JobRun.objects.filter(job=job).exists()
    run = JobRun.objects.create(job=job, team_id=job.team_id, sql="SELECT 1")
    assert developer_client.get(f"{RUNS}{run.id}/?wait={value}").status_code == 400


def test_waiting_on_another_teams_run_is_a_404(developer_client: Any, other_team: Any) -> None:
    job = SqlJob.objects.create(team=other_team, name="theirs", sql="SELECT 1")
    run = JobRun.objects.create(job=job, team=other_team, sql="SELECT 1", status=RunStatus.QUEUED)
    assert developer_client.get(f"{RUNS}{run.id}/?wait=5").status_code == 404


def test_waits_survive_the_listening_connection_being_killed(developer_client: Any, make_job: Any) -> None:
    """PostgreSQL drops the LISTEN connection (a restart, a failover, an admin): waits fall back to reading the run,
    end when it ends, and the listener comes back."""
    job = make_job("SELECT 1")
    first = JobRun.objects.create(job=job, team_id=job.team_id, sql="SELECT 1")
    developer_client.get(f"{RUNS}{first.id}/?wait=0.01")  # the process's listener starts with its first wait
    listener = run_waits._listener()
    assert listener is not None
    wait_until(listener.connected.is_set, what="the listener to connect")

    def listening_backends() -> list[int]:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pid FROM pg_stat_activity WHERE query = %s", [f"LISTEN {run_waits.CHANNEL}"])
            return [row[0] for row in cursor.fetchall()]

    box: dict[str, Any] = {}
    waiter = _get_in_thread(developer_client, f"{RUNS}{first.id}/?wait=30", box, "body")
    _waiting()
    with connection.cursor() as cursor:
        for pid in listening_backends():
            cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
    assert developer_client.post(f"{RUNS}{first.id}/cancel/").status_code == 202
    waiter.join()
    assert box["body"]["status"] == "CANCELLED"
    wait_until(lambda: listener.connected.is_set() and bool(listening_backends()), what="the listener to reconnect")
    second = JobRun.objects.create(job=job, team_id=job.team_id, sql="SELECT 1")
    later = _get_in_thread(developer_client, f"{RUNS}{second.id}/?wait=30", box, "later")
    _waiting()
    assert developer_client.post(f"{RUNS}{second.id}/cancel/").status_code == 202
    later.join()
    assert box["later"]["status"] == "CANCELLED"
