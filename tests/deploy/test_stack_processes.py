"""The production process set, started from the shipped scripts on this machine, runs a job end to end.

No Docker engine runs here, so the compose stack's processes are started directly: a Spark standalone master
and worker (platform/scripts/spark-*.sh), the Hive Metastore (platform/scripts/hive-metastore.sh, via the
session fixture), gunicorn serving config.wsgi, a Celery worker and Celery beat — then a developer's job is
created and run through the REST API only.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from teams.models import Role
from teams.services import api_token_create
from tests.factories import MembershipFactory, TeamFactory, UserFactory
from tests.support.net import free_port, wait_for_port
from tests.support.paths import REPO
from tests.support.processes import stop_process_group
from tests.support.worker import celery_command, worker_env

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.spark]


class Stack:
    """Processes started for the test, stopped (and their logs kept) at the end."""

    def __init__(self, logdir: Path) -> None:
        self.logdir = logdir
        self.procs: list[tuple[str, subprocess.Popen]] = []

    def start(self, name: str, cmd: list[str], env: dict[str, str]) -> subprocess.Popen:
        log = open(self.logdir / f"{name}.log", "wb")  # noqa: SIM115 (open for the process's lifetime)
        proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.procs.append((name, proc))
        return proc

    def tail(self, name: str, chars: int = 3000) -> str:
        path = self.logdir / f"{name}.log"
        return path.read_text(errors="replace")[-chars:] if path.exists() else ""

    def stop(self) -> None:
        for _, proc in reversed(self.procs):
            stop_process_group(proc)


@pytest.fixture
def stack(tmp_path: Path, hive_metastore: Any) -> Iterator[dict[str, Any]]:
    logs = tmp_path / "logs"
    logs.mkdir()
    s = Stack(logs)
    master_port, master_ui, worker_ui, web_port = free_port(), free_port(), free_port(), free_port()
    base = {**os.environ, "PYTHON": sys.executable, "PYSPARK_PYTHON": sys.executable}
    try:
        s.start("spark-master", ["bash", "platform/scripts/spark-master.sh"],
                {**base, "SPARK_MASTER_PORT": str(master_port), "SPARK_MASTER_WEBUI_PORT": str(master_ui)})
        wait_for_port(master_port, timeout=90)
        master = f"spark://127.0.0.1:{master_port}"
        s.start("spark-worker", ["bash", "platform/scripts/spark-worker.sh"],
                {**base, "SPARK_MASTER_URL": master, "SPARK_WORKER_HOST": "127.0.0.1", "SPARK_WORKER_CORES": "1",
                 "SPARK_WORKER_MEMORY": "1g", "SPARK_WORKER_WEBUI_PORT": str(worker_ui)})
        wait_for_port(worker_ui, timeout=90)
        app_env = worker_env({"SPARK_MASTER": master, "LAKEPORT_WORKER_HEARTBEAT_SECONDS": "2"})
        s.start("web", [sys.executable, "-m", "gunicorn", "config.wsgi", "--bind", f"127.0.0.1:{web_port}",
                        "--workers", "2", "--threads", "2"], app_env)
        s.start("worker", celery_command("worker", hostname="stack-worker@%h", concurrency=2, quiet_cluster=False),
                app_env)
        s.start("beat", celery_command("beat", schedule=tmp_path / "celerybeat-schedule"), app_env)
        wait_for_port(web_port, timeout=60)
        yield {"url": f"http://127.0.0.1:{web_port}", "stack": s, "hms": hive_metastore, "master_ui": master_ui}
    finally:
        s.stop()


def _call(url: str, token: str, method: str = "GET", body: Any = None) -> tuple[int, Any]:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, json.loads(resp.read() or b"null")
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"null")


def test_stack_runs_a_cross_catalog_job_on_the_standalone_cluster(stack: dict[str, Any], pg_source: Any) -> None:
    with psycopg.connect(pg_source.dsn, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA shop")
        conn.execute("CREATE TABLE shop.orders (customer text, amount numeric(12,2))")
        conn.execute("INSERT INTO shop.orders VALUES ('ada', 10.50), ('ada', 4.50), ('bob', 7.25)")
    team = TeamFactory(name="stack")
    admin = UserFactory(username="stack-admin")
    MembershipFactory(team=team, user=admin, role=Role.ADMIN)
    token = api_token_create(user=admin, name="stack").raw
    api = f"{stack['url']}/api/v1/teams/stack"
    s: Stack = stack["stack"]

    # The whole system reports healthy once the worker's first heartbeat lands.
    deadline = time.monotonic() + 120
    health = 0
    while time.monotonic() < deadline and health != 200:
        time.sleep(1)
        try:
            health = urllib.request.urlopen(f"{stack['url']}/healthz", timeout=10).status
        except urllib.error.HTTPError as err:
            health = err.code
        except (TimeoutError, urllib.error.URLError):  # gunicorn's workers still booting: ask again until the deadline
            health = 0
    assert health == 200, s.tail("worker")

    status, _ = _call(f"{api}/catalogs/pg_src/", token, "PUT", {
        "catalog_type": "jdbc",
        "configuration": {"type": "postgresql", "base-url": "jdbc:postgresql://127.0.0.1:5432/",
                          "default-database": pg_source.name, "username": "postgres", "password": "stack-pw-unused"},
    })
    assert status == 201
    status, _ = _call(f"{api}/catalogs/lake_hive/", token, "PUT", {
        "catalog_type": "hive",
        "configuration": {"metastore-uris": stack["hms"].uri, "warehouse": str(stack["hms"].warehouse)},
    })
    assert status == 201

    script = """
        USE CATALOG pg_src;
        CREATE TABLE IF NOT EXISTS shop.totals (customer STRING, total DECIMAL(12,2));
        INSERT INTO shop.totals SELECT customer, SUM(amount) FROM shop.orders GROUP BY customer;
        USE CATALOG lake_hive;
        CREATE DATABASE IF NOT EXISTS stack_check;
        CREATE TABLE IF NOT EXISTS stack_check.totals AS SELECT * FROM pg_src.shop.totals;
        SELECT customer, total FROM stack_check.totals ORDER BY customer;
    """
    status, job = _call(f"{api}/jobs/", token, "POST", {"name": "stack-check", "sql": script})
    assert status == 201, job
    status, run = _call(f"{api}/jobs/{job['id']}/runs/", token, "POST", {})
    assert status == 201, run

    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and run["status"] in ("QUEUED", "RUNNING"):
        time.sleep(2)
        _, run = _call(f"{api}/runs/{run['id']}/", token)
    assert run["status"] == "SUCCEEDED", (run, s.tail("worker"))
    assert run["engine_used"] == "warm"  # the team's engine: a driver on this worker, executors on the cluster

    status, result = _call(f"{api}/runs/{run['id']}/result/", token)
    assert status == 200
    assert [r[0] for r in result["rows"]] == ["ada", "bob"]
    assert [float(r[1]) for r in result["rows"]] == [15.0, 7.25]
    with psycopg.connect(pg_source.dsn) as conn:
        rows = conn.execute("SELECT customer, total FROM shop.totals ORDER BY customer").fetchall()
    assert [(c, float(t)) for c, t in rows] == [("ada", 15.0), ("bob", 7.25)]
    # The executors ran on the standalone worker, not in a local driver: the master saw the application.
    master = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{stack['master_ui']}/json/", timeout=10).read())
    apps = master["completedapps"] + master["activeapps"]
    assert any(app["name"].startswith("lakeport-") for app in apps), apps  # the team engine's application
