"""/metrics: Prometheus text parsed with prometheus-client's own parser, its counts against the runs API; the bearer
token (and 404 when none is configured); the Grafana dashboard in docs/ uses only metric names /metrics exposes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import redis
from celery import current_app
from django.conf import settings
from django.test import Client
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families
from rest_framework.test import APIClient

from jobs.engines.pool import EnginePool, engines_by_team
from jobs.engines.process import EngineKey, EngineProcess
from jobs.models import JobRun, RunStatus, SqlJob, WorkerHeartbeat
from schedules.models import FireStatus, Schedule, ScheduleFire
from streams.models import StreamMetric, StreamState, StreamStatus
from teams.models import Team
from tests.alerts.conftest import end_run
from tests.support.leakscan import SCAN
from tests.support.secrets import register_secret

pytestmark = pytest.mark.django_db
TOKEN = "metrics-Tok3n-9zQx2w"
DASHBOARD = Path(__file__).resolve().parents[2] / "docs" / "grafana" / "lakeport-dashboard.json"


def scrape(token: str | None = TOKEN) -> Any:
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    return Client().get("/metrics", **headers)


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


@pytest.fixture
def metrics_on(settings: Any) -> None:
    settings.LAKEPORT_METRICS_TOKEN = register_secret(TOKEN)


def test_metrics_is_404_without_a_token_configured_and_401_with_a_wrong_one(settings: Any) -> None:
    settings.LAKEPORT_METRICS_TOKEN = ""
    assert scrape().status_code == 404
    settings.LAKEPORT_METRICS_TOKEN = register_secret(TOKEN)
    assert scrape(None).status_code == 401
    assert scrape("wrong-token-123456").status_code == 401
    assert scrape().status_code == 200


def test_run_counts_durations_and_latency_match_the_api(metrics_on: None, admin_client: APIClient, team: Team,
                                                        other_team: Team) -> None:
    job = SqlJob.objects.create(team=team, name="j", sql="SELECT 1")
    theirs = SqlJob.objects.create(team=other_team, name="k", sql="SELECT 1")
    for succeeded in (True, True, False):
        end_run(job, succeeded=succeeded, message="boom")
    end_run(theirs, succeeded=False, message="boom")
    JobRun.objects.create(job=job, team=team, sql="SELECT 1", status=RunStatus.QUEUED)
    # a run of a known duration: 90 s lands in the 300 s bucket, not the 60 s one
    slow = end_run(job, succeeded=True)
    JobRun.objects.filter(id=slow.id).update(started_at=slow.finished_at - timedelta(seconds=90))
    schedule = Schedule.objects.create(team=team, job=job, name="s", cron="0 * * * *")
    ScheduleFire.objects.create(schedule=schedule, fire_time=timezone.now(), status=FireStatus.SKIPPED)
    StreamState.objects.create(job=SqlJob.objects.create(team=team, name="st", sql="x", kind="streaming"),
                               status=StreamStatus.RUNNING, restarts=3)

    api = {status: admin_client.get(f"/api/v1/teams/acme/runs/?status={status}").json()["count"]
           for status in ("SUCCEEDED", "FAILED", "QUEUED")}
    resp = scrape()
    assert resp.status_code == 200 and resp["Content-Type"].startswith("text/plain")
    text = resp.content.decode()
    SCAN.record_response("GET /metrics", text)
    found = samples(text)
    for status, count in api.items():
        assert found[("lakeport_runs", (("status", status), ("team", "acme")))] == count
    assert api == {"SUCCEEDED": 3, "FAILED": 1, "QUEUED": 1}
    assert found[("lakeport_runs", (("status", "FAILED"), ("team", "globex")))] == 1
    durations = {k[1]: v for k, v in found.items() if k[0] == "lakeport_run_duration_seconds_bucket"
                 and ("team", "acme") in k[1] and ("status", "SUCCEEDED") in k[1]}
    assert durations[(("le", "60.0"), ("status", "SUCCEEDED"), ("team", "acme"))] == 2
    assert durations[(("le", "300.0"), ("status", "SUCCEEDED"), ("team", "acme"))] == 3
    assert found[("lakeport_run_duration_seconds_count", (("status", "SUCCEEDED"), ("team", "acme")))] == 3
    assert found[("lakeport_run_duration_seconds_sum", (("status", "SUCCEEDED"), ("team", "acme")))] >= 90
    assert found[("lakeport_schedule_ticks", (("status", "skipped"), ("team", "acme")))] == 1
    assert found[("lakeport_streams", (("status", "RUNNING"), ("team", "acme")))] == 1
    assert found[("lakeport_stream_restarts", (("job", "st"), ("team", "acme")))] == 3
    assert ("lakeport_workers_alive", ()) in found
    # the API requests above, timed by route pattern (never a raw path with ids or names)
    latency = [k for k in found if k[0] == "lakeport_http_request_duration_seconds_count"]
    assert (("method", "GET"), ("route", "api/v1/teams/<str:team>/runs/"), ("status", "2xx")) in [k[1] for k in latency]
    assert not any("acme" in dict(k[1])["route"] for k in latency)

    # one more failure moves the counter as the API says
    end_run(job, succeeded=False, message="again")
    again = samples(scrape().content.decode())
    assert again[("lakeport_runs", (("status", "FAILED"), ("team", "acme")))] == 2


def test_the_grafana_dashboard_uses_only_exposed_metrics(metrics_on: None, team: Team, admin_client: APIClient) -> None:
    end_run(SqlJob.objects.create(team=team, name="j", sql="SELECT 1"), succeeded=True)
    stream = SqlJob.objects.create(team=team, name="st", sql="x", kind="streaming")
    StreamState.objects.create(job=stream, status=StreamStatus.RUNNING)
    StreamMetric.objects.create(job=stream, batch_id=0, input_rows_per_second=1.0, processed_rows_per_second=1.0,
                                lag=0)
    schedule = Schedule.objects.create(team=team, job=SqlJob.objects.get(name="j"), name="s", cron="0 * * * *")
    ScheduleFire.objects.create(schedule=schedule, fire_time=timezone.now(), status=FireStatus.SUBMITTED)
    admin_client.get("/api/v1/teams/acme/runs/")
    now = timezone.now()
    WorkerHeartbeat.objects.create(hostname="runs@a", pid=1, started_at=now, last_seen=now,
                                   engines={"acme": {"alive": 1, "rss_bytes": 1 << 30}})
    exposed = {s.name for f in text_string_to_metric_families(scrape().content.decode()) for s in f.samples}
    dashboard = json.loads(DASHBOARD.read_text())
    exprs = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    exprs.append(dashboard["templating"]["list"][1]["query"]["query"])
    used = {name for e in exprs for name in re.findall(r"\blakeport_[a-z_]+", e)}
    assert len(dashboard["panels"]) >= 8 and len(used) >= 8
    assert used <= exposed, f"not exposed by /metrics: {sorted(used - exposed)}"


def test_engines_alive_and_their_memory_come_from_the_live_workers_heartbeats(metrics_on: None) -> None:
    # A pool holding one started engine whose process is a real (small) process: what the heartbeat reports is the
    # pool's view (alive = started and its process running) and the process's resident memory from /proc.
    pool = EnginePool(capacity=2, idle_seconds=600)
    engine = EngineProcess(EngineKey(team="acme"))
    engine.proc = subprocess.Popen([sys.executable, "-c", "import time; b = bytearray(20_000_000); print('ready', "
                                    "flush=True); time.sleep(60)"], stdout=subprocess.PIPE, text=True)
    try:
        engine.started.set()
        pool._engines[engine.key] = engine
        dead = EngineProcess(EngineKey(team="globex"))  # started, but its process is gone
        dead.proc = subprocess.Popen(["true"])
        dead.proc.wait()
        dead.started.set()
        pool._engines[dead.key] = dead
        assert engine.proc.stdout is not None and engine.proc.stdout.readline() == "ready\n"  # it holds its 20 MB
        summary = engines_by_team(pool)
        assert list(summary) == ["acme"] and summary["acme"]["alive"] == 1
        assert summary["acme"]["rss_bytes"] > 20_000_000
        now = timezone.now()
        WorkerHeartbeat.objects.create(hostname="runs@a", pid=1, started_at=now, last_seen=now, engines=summary)
        WorkerHeartbeat.objects.create(hostname="runs@b", pid=2, started_at=now, last_seen=now,
                                       engines={"acme": {"alive": 2, "rss_bytes": 5}})
        WorkerHeartbeat.objects.create(hostname="gone@c", pid=3, started_at=now, last_seen=now - timedelta(hours=1),
                                       engines={"acme": {"alive": 7, "rss_bytes": 7}})  # a dead worker's last beat
        found = samples(scrape().content.decode())
        assert found[("lakeport_workers_alive", ())] == 2
        assert found[("lakeport_engines_alive", (("team", "acme"),))] == 3
        assert found[("lakeport_engine_rss_bytes", (("team", "acme"),))] == summary["acme"]["rss_bytes"] + 5
    finally:
        engine.proc.kill()
        engine.proc.wait()


def test_stream_batches_and_queue_depth(metrics_on: None, team: Team, admin_client: APIClient) -> None:
    job = SqlJob.objects.create(team=team, name="clicks", sql="x", kind="streaming")
    StreamState.objects.create(job=job, status=StreamStatus.RUNNING)
    for batch, lag in enumerate((10, 20, 30, 40, 50, 60)):  # the lag grows at every batch: falling behind
        StreamMetric.objects.create(job=job, batch_id=batch, input_rows=100, input_rows_per_second=50.0,
                                    processed_rows_per_second=40.0, duration_ms=2500, lag=lag,
                                    ts=timezone.now() + timedelta(seconds=batch))
    api = admin_client.get(f"/api/v1/teams/acme/jobs/{job.id}/stream/").json()
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    broker.delete("lakeport.editor")
    current_app.send_task("jobs.sql_interactive", args=[0], queue="lakeport.editor")  # no worker takes it here
    try:
        waiting = broker.llen("lakeport.editor")  # the oracle: Redis's own count of the queue's list
        found = samples(scrape().content.decode())
        assert broker.llen("lakeport.editor") == waiting
    finally:
        broker.delete("lakeport.editor")
    key = (("job", "clicks"), ("team", "acme"))
    assert found[("lakeport_stream_batch_duration_seconds", key)] == 2.5
    assert found[("lakeport_stream_input_rows_per_second", key)] == 50.0
    assert found[("lakeport_stream_processed_rows_per_second", key)] == 40.0
    assert found[("lakeport_stream_lag", key)] == api["latest"]["lag"] == 60
    assert found[("lakeport_stream_falling_behind", key)] == 1.0 and api["falling_behind"] is True
    assert found[("lakeport_queue_depth", (("queue", "lakeport.editor"),))] == waiting
    assert waiting == 1  # (a worker of another test on this broker would have taken it: none runs here)


def test_multiprocess_mode_adds_up_the_latency_of_every_process(tmp_path: Path) -> None:
    """Two web processes (as gunicorn's workers) time requests into a shared PROMETHEUS_MULTIPROC_DIR; a third
    answers the scrape with the sum of both."""
    from django.db import connection

    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path), "DJANGO_SETTINGS_MODULE": "config.settings.test",
           "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{connection.settings_dict['NAME']}"}
    observe = ("import django; django.setup()\n"
               "from core.metrics import REQUEST_SECONDS\n"
               "REQUEST_SECONDS.labels(route='api/v1/teams/<str:team>/runs/', method='GET', status='2xx').observe(0.2)\n")
    for _ in range(2):
        subprocess.run([sys.executable, "-c", observe], env=env, check=True, timeout=120)
    scrape_code = "import django; django.setup()\nfrom config.metrics import metrics_text\nprint(metrics_text().decode())\n"
    text = subprocess.run([sys.executable, "-c", scrape_code], env=env, check=True, timeout=120, capture_output=True,
                          text=True).stdout
    found = samples(text)
    key = (("method", "GET"), ("route", "api/v1/teams/<str:team>/runs/"), ("status", "2xx"))
    assert found[("lakeport_http_request_duration_seconds_count", key)] == 2
    assert abs(found[("lakeport_http_request_duration_seconds_sum", key)] - 0.4) < 1e-9
    assert ("lakeport_workers_alive", ()) in found  # the database's metrics in the same answer
