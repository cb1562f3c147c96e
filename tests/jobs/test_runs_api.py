"""Runs over the REST API without a worker: submit, idempotency, cancel state machine, listing, logs, results."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from jobs.models import JobRun, RunStatus, SqlJob
from jobs.services.runs import run_log
from teams.models import Team
from tests.jobs.test_jobs_api import BODY, URL, error_of

pytestmark = pytest.mark.django_db

RUNS = "/api/v1/teams/acme/runs/"


@pytest.fixture
def job(developer_client: Any) -> dict[str, Any]:
    return developer_client.post(URL, BODY, format="json").json()


def submit(client: Any, job: dict[str, Any], key: str | None = None) -> Any:
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
    return client.post(f"{URL}{job['id']}/runs/", **headers)


def test_submit_queues_a_run_with_a_snapshot_of_the_job(developer_client: Any, job: dict) -> None:
    response = submit(developer_client, job)
    assert response.status_code == 201
    run = response.json()
    assert run["status"] == "QUEUED" and run["job"] == job["id"] and run["error"] is None
    assert run["progress"] == {"statements_done": 0, "statements_total": 0, "stages_done": 0, "stages_total": 0,
                               "tasks_done": 0, "tasks_total": 0}
    assert run["created_at"] and run["started_at"] is None and run["finished_at"] is None
    # Editing the job later does not change what the run executes.
    developer_client.patch(f"{URL}{job['id']}/", {"sql": "SELECT 42"}, format="json")
    assert JobRun.objects.get(id=run["id"]).sql == "SELECT 1 AS one"


def test_idempotency_key_returns_the_same_run(developer_client: Any, job: dict) -> None:
    first = submit(developer_client, job, key="deploy-2026-11-22")
    again = submit(developer_client, job, key="deploy-2026-11-22")
    other = submit(developer_client, job, key="deploy-2026-11-23")
    assert first.status_code == 201 and again.status_code == 200
    assert again.json()["id"] == first.json()["id"]
    assert other.status_code == 201 and other.json()["id"] != first.json()["id"]
    assert JobRun.objects.filter(job_id=job["id"]).count() == 2


def test_oversized_idempotency_key_is_400(developer_client: Any, job: dict) -> None:
    response = submit(developer_client, job, key="k" * 300)
    assert response.status_code == 400 and "Idempotency-Key" in error_of(response)["details"]
    assert JobRun.objects.count() == 0


def test_cancel_of_a_queued_run_cancels_it_and_a_second_cancel_is_409(developer_client: Any, job: dict) -> None:
    run = submit(developer_client, job).json()
    response = developer_client.post(f"{RUNS}{run['id']}/cancel/")
    assert response.status_code == 202 and response.json()["status"] == "CANCELLED"
    again = developer_client.post(f"{RUNS}{run['id']}/cancel/")
    assert again.status_code == 409
    assert "already CANCELLED" in error_of(again)["message"]
    assert JobRun.objects.get(id=run["id"]).status == RunStatus.CANCELLED


def test_a_run_error_is_sent_as_recorded(developer_client: Any, job: dict) -> None:
    run = submit(developer_client, job).json()
    JobRun.objects.filter(id=run["id"]).update(status=RunStatus.CANCELLED, error={"message": "Cancelled by a user."})
    body = developer_client.get(f"{RUNS}{run['id']}/").json()
    assert body["error"] == {"message": "Cancelled by a user."}  # no null statement/line/column added


@pytest.mark.parametrize("final", [RunStatus.SUCCEEDED, RunStatus.FAILED])
def test_cancel_of_a_finished_run_is_409_and_leaves_it_alone(developer_client: Any, job: dict, final: str) -> None:
    run = submit(developer_client, job).json()
    JobRun.objects.filter(id=run["id"]).update(status=final, finished_at=timezone.now())
    response = developer_client.post(f"{RUNS}{run['id']}/cancel/")
    assert response.status_code == 409 and error_of(response)["code"] == "conflict"
    stored = JobRun.objects.get(id=run["id"])
    assert stored.status == final and not stored.cancel_requested


def test_cancel_of_a_running_run_is_a_request_the_worker_acts_on(developer_client: Any, job: dict) -> None:
    run = submit(developer_client, job).json()
    JobRun.objects.filter(id=run["id"]).update(status=RunStatus.RUNNING, worker="w1")
    response = developer_client.post(f"{RUNS}{run['id']}/cancel/")
    assert response.status_code == 202
    assert response.json()["status"] == "RUNNING" and response.json()["cancel_requested"] is True


def test_another_teams_run_is_404_everywhere(
    developer_client: Any, client_for: Callable[..., Any], other_team: Team
) -> None:
    globex = client_for("developer", in_team=other_team)
    their_job = globex.post("/api/v1/teams/globex/jobs/", BODY, format="json").json()
    theirs = globex.post(f"/api/v1/teams/globex/jobs/{their_job['id']}/runs/").json()
    for method, path in (("get", ""), ("get", "log/"), ("get", "result/"), ("post", "cancel/")):
        response = getattr(developer_client, method)(f"{RUNS}{theirs['id']}/{path}")
        assert response.status_code == 404, path
        assert error_of(response)["code"] == "not_found"
    assert JobRun.objects.get(id=theirs["id"]).status == RunStatus.QUEUED
    assert developer_client.get(RUNS).json()["count"] == 0


def test_runs_filter_by_job_status_user_and_time(
    developer_client: Any, client_for: Callable[..., Any], job: dict, team: Team
) -> None:
    other_dev = client_for("developer")
    second_job = developer_client.post(URL, {**BODY, "name": "second"}, format="json").json()
    a = submit(developer_client, job).json()
    b = submit(other_dev, job).json()
    c = submit(developer_client, second_job).json()
    JobRun.objects.filter(id=a["id"]).update(created_at=timezone.now() - timedelta(days=2))
    JobRun.objects.filter(id=b["id"]).update(status=RunStatus.SUCCEEDED)

    def ids(query: str) -> list[int]:
        response = developer_client.get(f"{RUNS}?{query}")
        assert response.status_code == 200, response.json()
        return [r["id"] for r in response.json()["results"]]

    assert ids("") == [c["id"], b["id"], a["id"]]  # newest first
    assert ids(f"job={job['id']}") == [b["id"], a["id"]]
    assert ids("status=SUCCEEDED") == [b["id"]]
    assert ids("status=queued") == [c["id"], a["id"]]
    assert ids(f"user={b['submitted_by']}") == [b["id"]]
    since = (timezone.now() - timedelta(days=1)).isoformat().replace("+00:00", "Z")
    assert ids(f"since={since}") == [c["id"], b["id"]]
    assert ids(f"until={since}") == [a["id"]]
    for bad in ("status=DONE", "since=yesterday", "job=abc"):
        response = developer_client.get(f"{RUNS}?{bad}")
        assert response.status_code == 400, bad
        assert error_of(response)["code"] == "invalid"


def test_log_is_incremental_with_offsets_and_redacted(developer_client: Any, job: dict) -> None:
    run = submit(developer_client, job).json()
    first = developer_client.get(f"{RUNS}{run['id']}/log/").json()
    assert first["offset"] == 0 and first["next_offset"] == len(first["lines"]) >= 1
    assert "queued" in first["lines"][0]["message"]
    run_log(run_id=run["id"], messages=["line A", "jdbc:postgresql://u:hunter22@db/x password=hunter22"])
    more = developer_client.get(f"{RUNS}{run['id']}/log/?offset={first['next_offset']}").json()
    assert [line["message"] for line in more["lines"]][0] == "line A"
    assert "hunter22" not in str(more) and "***" in more["lines"][1]["message"]
    assert more["next_offset"] == first["next_offset"] + 2
    empty = developer_client.get(f"{RUNS}{run['id']}/log/?offset={more['next_offset']}").json()
    assert empty["lines"] == [] and empty["next_offset"] == more["next_offset"]
    assert developer_client.get(f"{RUNS}{run['id']}/log/?offset=-1").status_code == 400


def test_result_is_409_until_the_run_finishes_then_has_the_preview_shape(developer_client: Any, job: dict) -> None:
    run = submit(developer_client, job).json()
    response = developer_client.get(f"{RUNS}{run['id']}/result/")
    assert response.status_code == 409 and "QUEUED" in error_of(response)["message"]
    JobRun.objects.filter(id=run["id"]).update(status=RunStatus.SUCCEEDED, result={
        "columns": [{"name": "one", "type": "int"}], "rows": [[1]], "truncated": False})
    assert developer_client.get(f"{RUNS}{run['id']}/result/").json() == {
        "columns": [{"name": "one", "type": "int"}], "rows": [[1]], "truncated": False}


def test_submitting_a_job_whose_script_became_empty_is_refused(developer_client: Any, job: dict) -> None:
    SqlJob.objects.filter(id=job["id"]).update(sql="  ")
    response = submit(developer_client, job)
    assert response.status_code == 400 and "empty" in error_of(response)["message"] + str(error_of(response)["details"])
    assert JobRun.objects.count() == 0
