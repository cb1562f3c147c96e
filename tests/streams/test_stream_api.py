"""The stream API without a worker: job kind checks, lifecycle conflicts, reset confirmation and audit,
permissions, metrics by time range and the falling-behind flag."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from streams.models import StreamAudit, StreamMetric, StreamState
from streams.services.supervisor import stream_supervise
from streams.services.tick import streams_tick
from tests.jobs.conftest import flush_broker
from tests.streams.conftest import API

pytestmark = pytest.mark.django_db

STREAMING_SQL = ("CREATE TABLE IF NOT EXISTS lake.db.t (id BIGINT);\n"
                 "INSERT INTO lake.db.t SELECT id FROM STREAM(events.default.clicks) EMIT AFTER DELAY INTERVAL 5 SECONDS")


@pytest.fixture(autouse=True)
def _catalogs(stream_catalogs: None) -> None:
    """Every stream here reads events.default.clicks and writes lake.db.t."""


@pytest.fixture(autouse=True)
def _empty_broker() -> Any:
    flush_broker()
    yield
    flush_broker()


def _job(client: APIClient, sql: str = STREAMING_SQL, **fields: Any) -> Any:
    return client.post(f"{API}/jobs/", {"name": fields.pop("name", "clicks"), "sql": sql, **fields}, format="json")


def _error(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.content
    return response.json()["error"]


def test_streaming_jobs_need_a_streaming_script_and_are_not_run_by_runs(developer_client: APIClient) -> None:
    error = _error(_job(developer_client, "SELECT 1", kind="streaming"), 400)
    assert error["code"] == "invalid" and "Not a streaming script" in error["details"]["sql"][0]
    assert error["details"]["sql"][0].endswith("(rule: streaming-script)")  # the rule a start's check names too
    two = STREAMING_SQL + ";\n" + STREAMING_SQL.split(";\n")[1]
    assert "this one has 2" in _error(_job(developer_client, two, kind="streaming"), 400)["details"]["sql"][0]

    created = _job(developer_client, kind="streaming")
    assert created.status_code == 201 and created.json()["kind"] == "streaming"
    job_id = created.json()["id"]
    assert developer_client.get(f"{API}/jobs/{job_id}/").json()["kind"] == "streaming"
    assert _job(developer_client, "SELECT 1", name="batch one").json()["kind"] == "batch"

    patched = developer_client.patch(f"{API}/jobs/{job_id}/", {"sql": "SELECT 2"}, format="json")
    assert "Not a streaming script" in _error(patched, 400)["details"]["sql"][0]
    submit = _error(developer_client.post(f"{API}/jobs/{job_id}/runs/"), 409)
    assert submit["code"] == "conflict" and "stream/start/" in submit["message"]
    schedule = developer_client.post(f"{API}/schedules/", {"job": job_id, "name": "nightly", "cron": "0 2 * * *"},
                                     format="json")
    assert "cannot be scheduled" in _error(schedule, 400)["details"]["job"][0]


def test_lifecycle_conflicts_reset_confirmation_and_audit(developer_client: APIClient) -> None:
    job_id = _job(developer_client, kind="streaming").json()["id"]
    base = f"{API}/jobs/{job_id}/stream"
    state = developer_client.get(f"{base}/").json()
    assert state == {"status": "STOPPED", "desired": "stopped", "restarts": 0, "last_error": None,
                     "query_id": None, "started_at": None, "heartbeat_at": None, "checkpoint_generation": 1,
                     "latest": None, "falling_behind": False}
    assert "is STOPPED" in _error(developer_client.post(f"{base}/stop/"), 409)["message"]
    assert _error(developer_client.post(f"{base}/reset/", {}, format="json"), 400)["details"]["confirm"]
    reset = developer_client.post(f"{base}/reset/", {"confirm": True}, format="json")
    assert reset.status_code == 202 and reset.json()["checkpoint_generation"] == 2
    audit = StreamAudit.objects.get(job_id=job_id, action="reset")
    assert audit.details == {"checkpoint_generation": {"from": 1, "to": 2}} and audit.actor_name.startswith("user")

    started = developer_client.post(f"{base}/start/")
    assert started.status_code == 202 and started.json()["status"] == "STARTING"
    assert started.json()["desired"] == "running"
    assert "is STARTING" in _error(developer_client.post(f"{base}/start/"), 409)["message"]
    assert _error(developer_client.post(f"{base}/reset/", {"confirm": True}, format="json"), 409)
    # nobody supervises it yet (no worker): a stop finishes at once
    stopped = developer_client.post(f"{base}/stop/")
    assert stopped.status_code == 202 and stopped.json()["status"] == "STOPPED"
    assert stopped.json()["desired"] == "stopped"
    restarted = developer_client.post(f"{base}/restart/")
    assert restarted.status_code == 202 and restarted.json()["status"] == "STARTING"
    assert [a.action for a in StreamAudit.objects.filter(job_id=job_id).order_by("ts", "id")] == [
        "reset", "start", "stop", "restart"]
    # the same trail through the API, newest first, with who did it
    history = developer_client.get(f"{base}/audit/").json()
    assert history["count"] == 4
    assert [(e["action"], e["actor"]) for e in history["results"]] == [(a, audit.actor_name) for a in (
        "restart", "stop", "start", "reset")]
    assert history["results"][3]["details"] == {"checkpoint_generation": {"from": 1, "to": 2}}
    assert developer_client.get(f"{base}/audit/?page_size=1").json()["results"][0]["action"] == "restart"


def test_permissions_and_unknown_jobs(client_for: Callable[..., APIClient], developer_client: APIClient,
                                      viewer_client: APIClient, other_team: Any) -> None:
    job_id = _job(developer_client, kind="streaming").json()["id"]
    batch_id = _job(developer_client, "SELECT 1", name="batch").json()["id"]
    base = f"{API}/jobs/{job_id}/stream"
    assert viewer_client.get(f"{base}/").status_code == 200
    assert viewer_client.get(f"{base}/metrics/").json() == {"results": []}
    for action in ("start", "stop", "restart", "reset"):
        assert _error(viewer_client.post(f"{base}/{action}/", {"confirm": True}, format="json"), 403)
    stranger = client_for("developer", in_team=other_team)
    for action in ("start", "stop", "restart", "reset"):
        assert stranger.post(f"{base}/{action}/", {"confirm": True}, format="json").status_code == 404
    assert stranger.get(f"{base}/").status_code == 404
    assert stranger.get(f"{base}/metrics/").status_code == 404
    assert stranger.get(f"{base}/audit/").status_code == 404
    assert viewer_client.get(f"{base}/audit/").json()["results"] == []  # viewers read the trail
    assert "batch job" in _error(developer_client.get(f"{API}/jobs/{batch_id}/stream/audit/"), 409)["message"]
    assert stranger.get(f"/api/v1/teams/globex/jobs/{job_id}/stream/").status_code == 404
    assert _error(developer_client.get(f"{API}/jobs/999999/stream/"), 404)["code"] == "not_found"
    assert _error(developer_client.post(f"{API}/jobs/999999/stream/start/"), 404)
    assert "batch job" in _error(developer_client.post(f"{API}/jobs/{batch_id}/stream/start/"), 409)["message"]
    assert StreamState.objects.filter(job_id=job_id, status="STOPPED").exists()


def test_metrics_by_time_range_latest_and_falling_behind(developer_client: APIClient,
                                                         viewer_client: APIClient) -> None:
    job_id = _job(developer_client, kind="streaming").json()["id"]
    start = timezone.now() - dt.timedelta(minutes=10)
    lags = [5, 3, 4, 6, 9, 12, 20]  # grows over the last 5 batches
    for i, lag in enumerate(lags):
        StreamMetric.objects.create(job_id=job_id, batch_id=i, ts=start + dt.timedelta(seconds=10 * i),
                                    input_rows=100 + i, duration_ms=800, lag=lag, state_rows=12,
                                    watermark=start + dt.timedelta(seconds=10 * i - 5))
    base = f"{API}/jobs/{job_id}/stream"
    everything = viewer_client.get(f"{base}/metrics/").json()["results"]
    assert [m["batch_id"] for m in everything] == list(range(7))
    assert set(everything[0]) == {"batch_id", "ts", "input_rows", "input_rows_per_second",
                                  "processed_rows_per_second", "output_rows", "output_rows_per_second",
                                  "duration_ms", "watermark", "state_rows", "state_memory_bytes", "lag"}
    since = (start + dt.timedelta(seconds=20)).isoformat()
    until = (start + dt.timedelta(seconds=40)).isoformat()
    window = viewer_client.get(f"{base}/metrics/", {"since": since, "until": until}).json()["results"]
    assert [m["batch_id"] for m in window] == [2, 3, 4]
    assert _error(viewer_client.get(f"{base}/metrics/", {"since": "yesterday"}), 400)["details"]["since"]
    state = viewer_client.get(f"{base}/").json()
    assert state["latest"]["batch_id"] == 6 and state["latest"]["lag"] == 20 and state["falling_behind"] is True

    StreamMetric.objects.create(job_id=job_id, batch_id=7, ts=start + dt.timedelta(seconds=70), lag=1)
    assert viewer_client.get(f"{base}/").json()["falling_behind"] is False


def test_tick_resumes_unsupervised_streams_and_prunes_old_metrics(developer_client: APIClient,
                                                                  settings: Any) -> None:
    job_id = _job(developer_client, kind="streaming").json()["id"]
    assert developer_client.post(f"{API}/jobs/{job_id}/stream/start/").status_code == 202
    long_ago = timezone.now() - dt.timedelta(hours=1)
    # a RUNNING stream whose worker died: its lease expired, its last supervise message long gone
    StreamState.objects.filter(job_id=job_id).update(status="RUNNING", lease_owner="gone@host/1/x",
                                                     lease_expires_at=long_ago, enqueued_at=long_ago)
    StreamMetric.objects.create(job_id=job_id, batch_id=1, ts=timezone.now() - dt.timedelta(hours=25))
    StreamMetric.objects.create(job_id=job_id, batch_id=2, ts=timezone.now())
    report = streams_tick()
    assert report.resumed == [job_id] and report.pruned == 1
    assert list(StreamMetric.objects.filter(job_id=job_id).values_list("batch_id", flat=True)) == [2]
    assert streams_tick().resumed == []  # sent once per lease period, not at every tick
    # wanted stopped, nobody supervising: stopped by the tick
    StreamState.objects.filter(job_id=job_id).update(desired="stopped", status="STOPPING")
    assert streams_tick().stopped == [job_id]
    assert developer_client.get(f"{API}/jobs/{job_id}/stream/").json()["status"] == "STOPPED"


def test_a_failed_stream_is_not_started_again_by_the_tick_or_a_late_supervise_message(
        developer_client: APIClient) -> None:
    # A stream FAILED (budget spent, or refused) keeps desired=running, as its user asked; neither the tick nor a
    # supervise message that comes after may start it again (CI saw a refused stream back in STARTING).
    job_id = _job(developer_client, kind="streaming").json()["id"]
    assert developer_client.post(f"{API}/jobs/{job_id}/stream/start/").status_code == 202
    long_ago = timezone.now() - dt.timedelta(hours=1)
    StreamState.objects.filter(job_id=job_id).update(status="FAILED", last_error="refused (rule: reflection)",
                                                     lease_owner="", lease_expires_at=None, enqueued_at=long_ago)
    assert streams_tick().resumed == []
    assert stream_supervise(job_id=job_id, worker="late@host") == "skipped"
    state = developer_client.get(f"{API}/jobs/{job_id}/stream/").json()
    assert (state["status"], state["last_error"]) == ("FAILED", "refused (rule: reflection)")
    # the user's start is what runs it again
    assert developer_client.post(f"{API}/jobs/{job_id}/stream/start/").status_code == 202
    StreamState.objects.filter(job_id=job_id).update(enqueued_at=long_ago)
    assert streams_tick().resumed == [job_id]


def test_a_running_stream_keeps_its_job_kind_and_job(developer_client: APIClient) -> None:
    job_id = _job(developer_client, kind="streaming").json()["id"]
    assert developer_client.post(f"{API}/jobs/{job_id}/stream/start/").status_code == 202
    kind = developer_client.patch(f"{API}/jobs/{job_id}/", {"kind": "batch", "sql": "SELECT 1"}, format="json")
    assert "stop it before changing the kind" in _error(kind, 400)["details"]["kind"][0]
    deleted = developer_client.delete(f"{API}/jobs/{job_id}/")
    assert "stop it before deleting" in _error(deleted, 409)["message"]
    assert developer_client.post(f"{API}/jobs/{job_id}/stream/stop/").status_code == 202
    changed = developer_client.patch(f"{API}/jobs/{job_id}/", {"kind": "batch", "sql": "SELECT 1"}, format="json")
    assert changed.status_code == 200 and changed.json()["kind"] == "batch"
    assert developer_client.delete(f"{API}/jobs/{job_id}/").status_code == 204
