"""`?wait=` on a run: the answer comes when the run ends (or when the time is up), through a real worker and engine."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.test import override_settings

from catalogs.models import Catalog
from jobs.models import JobRun, RunStatus, SqlJob
from jobs.services import run_waits
from tests.jobs.test_worker_runs import JOBS, RUNS, create_job
from tests.support.gate import Gate
from tests.support.servers import wait_until
from tests.support.worker import Worker

pytestmark = [pytest.mark.django_db(transaction=True)]


@pytest.mark.spark
def test_submit_with_wait_answers_with_the_finished_run(celery_worker: Worker, developer_client: Any) -> None:
    job = create_job(developer_client, "SELECT 41 + 1 AS answer")
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
    waiter = threading.Thread(target=lambda: box.setdefault("body", developer_client.get(f"{RUNS}{run['id']}/?wait=30").json()))
    waiter.start()
    gate.open()
    waiter.join()
    assert box["body"]["status"] == "SUCCEEDED"
    assert box["body"]["statements"][0]["rows"] == 1


def test_a_cancel_ends_the_wait_of_a_queued_run(developer_client: Any, make_job: Any) -> None:
    job = make_job("SELECT 1")
    run = JobRun.objects.create(job=job, team_id=job.team_id, sql="SELECT 1")
    box: dict[str, Any] = {}
    started = threading.Event()

    def wait() -> None:
        started.set()
        box["body"] = developer_client.get(f"{RUNS}{run.id}/?wait=30").json()

    waiter = threading.Thread(target=wait)
    waiter.start()
    started.wait()
    assert developer_client.post(f"{RUNS}{run.id}/cancel/").status_code == 202
    waiter.join()
    assert box["body"]["status"] == "CANCELLED"


@override_settings(LAKEPORT_RUN_WAITERS=1)
def test_waits_over_the_limit_are_answered_at_once(developer_client: Any, make_job: Any) -> None:
    run_waits._state.pop("slots", None)  # the semaphore is sized from the setting on first use
    job = make_job("SELECT 1")
    run = JobRun.objects.create(job=job, team_id=job.team_id, sql="SELECT 1")
    box: dict[str, Any] = {}
    first = threading.Thread(target=lambda: box.setdefault("first", developer_client.get(f"{RUNS}{run.id}/?wait=30").json()))
    first.start()
    try:
        wait_until(lambda: run_waits._slots()._value == 0, what="the first request to wait")
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
