"""`make run`'s default holds up: a real gunicorn and Celery worker on a fresh SQLite database and the filesystem
broker (config.settings.local, as `make run` starts them). The demo data command is idempotent and its job
returns rows; 20 runs submitted at once through the API all SUCCEED (no "database is locked")."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.support.processes import stop_process_group
from tests.support.servers import LiveServer, http, manage, start_gunicorn
from tests.support.worker import REPO, WORKER_SPARK

RUNS = 20
SETUP = """
from django.core.management import call_command
call_command("bootstrap_demo")
call_command("create_demo_data")
print("\\n----")
call_command("create_demo_data")
print("\\n----")
call_command("create_api_token", user="admin")
"""


@pytest.fixture(scope="module")
def local_platform(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    data = tmp_path_factory.mktemp("make-run")
    (data / "django-secret-key").write_text("local-test-signing-key-generated-like-make-run\n")
    env = {k: v for k, v in __import__("os").environ.items()
           if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "DJANGO_SECRET_KEY")}
    env.update({
        "DJANGO_SETTINGS_MODULE": "config.settings.local", "LAKEPORT_DATA_DIR": str(data),
        "LAKEPORT_SECRET_KEYS": "o1cQ3W2-OM0oTzqY1xs8nLzZ3a1ayTz0H5m2G0cOqdk=", "PYSPARK_PYTHON": sys.executable,
        "LAKEPORT_ENGINE_USER": "",  # pytest's 0700 temp dirs: engines run as the test's user
        "LAKEPORT_WORKER_HEARTBEAT_SECONDS": "2", "PYTHONUNBUFFERED": "1", **WORKER_SPARK,
    })
    for sub in ("broker/processed", "results"):
        (data / sub).mkdir(parents=True)
    manage(env, "migrate", "--noinput")
    # run.sh's commands in one process (each Django start costs seconds on a busy machine)
    out = manage(env, "shell", "-c", SETUP).split("\n----\n")
    first, again, token = out[0], out[1], out[2].strip().splitlines()[-1]
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--loglevel=INFO", "--pool=threads",
         "--concurrency=4", "--hostname", "worker-local@%h"],
        cwd=REPO, env=env, stdout=open(data / "worker.log", "ab"), stderr=subprocess.STDOUT,  # noqa: SIM115
        start_new_session=True)
    server: LiveServer | None = None
    try:
        server = start_gunicorn(env, data / "gunicorn.log")
        yield {"url": server.url, "token": token, "first": first, "again": again, "data": data}
    finally:
        if server is not None:
            server.stop()
        stop_process_group(worker)


def _api(platform: dict[str, Any], method: str, path: str, body: Any = None) -> Any:
    return http(method, f"{platform['url']}/api/v1/teams/demo/{path}", body=body, token=platform["token"])


def test_demo_data_is_created_once(local_platform: dict[str, Any]) -> None:
    assert "created customers, orders, events, demo_lake, customer revenue, nightly revenue" in local_platform["first"]
    assert "already there" in local_platform["again"]
    schedules = _api(local_platform, "GET", "schedules/").json()["results"]
    assert [(s["name"], s["enabled"]) for s in schedules] == [("nightly revenue", False)]


def _wait_finished(platform: dict[str, Any], ids: list[int]) -> dict[int, str]:
    deadline = time.monotonic() + 600  # a safety net for runs on 2 shared cores, not a performance claim
    statuses: dict[int, str] = {}
    while time.monotonic() < deadline:
        runs = _api(platform, "GET", "runs/?page_size=100").json()["results"]
        statuses = {r["id"]: r["status"] for r in runs if r["id"] in ids}
        if len(statuses) == len(ids) and all(s in ("SUCCEEDED", "FAILED", "CANCELLED") for s in statuses.values()):
            break
        time.sleep(1)
    return statuses


def test_twenty_runs_submitted_at_once_all_succeed_and_the_demo_query_returns_rows(
        local_platform: dict[str, Any]) -> None:
    demo = _api(local_platform, "GET", "jobs/").json()["results"][0]
    assert demo["name"] == "customer revenue"
    # A light job for the 20: the point is 20 runs' state writes at once on SQLite, not Spark's speed.
    light = _api(local_platform, "POST", "jobs/", {"name": "light", "sql": "SELECT ${i} AS i",
                                                   "parameters": {"i": {"type": "int"}}}).json()
    with ThreadPoolExecutor(max_workers=RUNS + 1) as pool:
        submitted = [pool.submit(_api, local_platform, "POST", f"jobs/{light['id']}/runs/", {"parameters": {"i": i}})
                     for i in range(RUNS)]
        demo_submit = pool.submit(_api, local_platform, "POST", f"jobs/{demo['id']}/runs/",
                                  {"parameters": {"min_amount": "5"}})
        responses = [f.result() for f in submitted]
        demo_run = demo_submit.result()
    assert [r.status for r in responses] == [201] * RUNS, [r.text[:300] for r in responses if r.status != 201]
    assert demo_run.status == 201, demo_run.text[:300]
    ids = [r.json()["id"] for r in responses]
    statuses = _wait_finished(local_platform, [*ids, demo_run.json()["id"]])
    failed = {i: _api(local_platform, "GET", f"runs/{i}/").json()["error"] for i, s in statuses.items()
              if s != "SUCCEEDED"}
    assert sorted(statuses.values()) == ["SUCCEEDED"] * (RUNS + 1), failed
    assert sorted(_api(local_platform, "GET", f"runs/{i}/result/").json()["rows"][0][0] for i in ids) == list(
        range(RUNS))
    result = _api(local_platform, "GET", f"runs/{demo_run.json()['id']}/result/").json()
    assert [c["name"] for c in result["columns"]][:3] == ["name", "country", "report_day"]
    assert len(result["rows"]) == 6  # every demo customer has orders of at least 5
    assert demo_run.json()["parameters"]["min_amount"] == {"type": "decimal", "value": "5"}
    log = (Path(local_platform["data"]) / "worker.log").read_text(errors="replace")
    assert "database is locked" not in log


def test_a_string_parameter_that_tries_to_break_out_comes_back_as_the_same_string(
        local_platform: dict[str, Any]) -> None:
    job = _api(local_platform, "POST", "jobs/", {"name": "echo", "sql": "SELECT ${who} AS who",
                                                 "parameters": {"who": {"type": "string"}}}).json()
    attack = "x'; DROP TABLE demo_lake.shop.orders; -- \\' ${spark.app.name} ${env:HOME}"
    run = _api(local_platform, "POST", f"jobs/{job['id']}/runs/", {"parameters": {"who": attack}}).json()
    assert _wait_finished(local_platform, [run["id"]]) == {run["id"]: "SUCCEEDED"}
    result = _api(local_platform, "GET", f"runs/{run['id']}/result/").json()
    assert result["rows"] == [[attack]]  # one value, verbatim: no statement added, no ${…} substituted
    orders = _api(local_platform, "GET", "catalogs/demo_lake/databases/shop/tables/").json()
    assert "orders" in json.dumps(orders)
