"""Faults around job execution, end to end through the API of a real gunicorn, with real Celery workers and beat
on a private PostgreSQL and a private Redis:

- the JDBC server of a catalog stops mid-job → the run fails naming the catalog, and nothing hangs;
- Redis restarts (losing every message) while 50 runs are queued → all 50 finish, each executed once;
- a worker is SIGKILLed mid-run → FAILED("worker lost") within the reaper interval, and a redelivered task
  message does not execute it again; with `max_retries` the run is re-queued and finishes on another worker.

(tests/jobs/test_worker_reliability.py covers the reaper with the Django test client and a broker flush; these
are the process-level versions: the web tier, the broker and the source database really go away.)
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import psycopg
import pytest
import redis

from tests.faults.conftest import (
    REAPER_INTERVAL,
    Platform,
    event_log_conf,
    prepare_platform,
    start_worker,
)
from tests.support.postgres import PrivatePostgres, start_private_postgres
from tests.support.secrets import register_secret
from tests.support.servers import LiveServer, PrivateRedis, http, start_gunicorn, wait_until
from tests.support.worker import Worker

pytestmark = pytest.mark.spark

API = "/api/v1/teams/acme"
SOURCE_PASSWORD = register_secret("jdbc-src-Secr3t-19ab2c")  # trust auth ignores it; it must never show up
LONG_QUERY = "SELECT count(*) AS n FROM range(0, 200000000000, 1, 4) a"  # minutes of work on 2 cores
FINAL = ("SUCCEEDED", "FAILED", "CANCELLED")


@dataclass
class Stack:
    platform: Platform
    server: LiveServer
    redis: PrivateRedis
    source: PrivatePostgres
    logdir: Path
    workers: list[Worker] = field(default_factory=list)

    def call(self, method: str, path: str, body: Any = None, **kw: Any) -> Any:
        return http(method, f"{self.server.url}{API}{path}", body=body, token=self.platform.developer_token, **kw)

    def admin(self, method: str, path: str, body: Any = None) -> Any:
        return http(method, f"{self.server.url}{API}{path}", body=body, token=self.platform.admin_token)

    def worker(self, name: str) -> Worker:
        """Start a worker (and beat) with Spark event logs on, under the leak scan."""
        w = start_worker(self.platform.env, self.logdir, name, extra=event_log_conf(self.logdir / "spark-events"))
        self.workers.append(w)
        return w

    def live_worker(self) -> Worker:
        alive = [w for w in self.workers if w.worker.poll() is None]
        return alive[-1] if alive else self.worker(f"w{len(self.workers)}")

    def job(self, name: str, sql: str, **fields: Any) -> int:
        resp = self.call("POST", "/jobs/", {"name": name, "sql": sql, **fields})
        assert resp.status == 201, resp.text
        return resp.data["id"]

    def submit(self, job_id: int) -> int:
        resp = self.call("POST", f"/jobs/{job_id}/runs/")
        assert resp.status == 201, resp.text
        return resp.data["id"]

    def run(self, run_id: int) -> dict[str, Any]:
        resp = self.call("GET", f"/runs/{run_id}/")
        assert resp.status == 200, resp.text
        return resp.data

    def wait(self, run_id: int, *statuses: str, timeout: float = 300) -> dict[str, Any]:
        return wait_until(lambda: (r := self.run(run_id))["status"] in statuses and r, timeout=timeout,
                          what=f"run {run_id} to be one of {statuses}")

    def log(self, run_id: int) -> str:
        return "\n".join(line["message"] for line in self.call("GET", f"/runs/{run_id}/log/").data["lines"])


@pytest.fixture(scope="module")
def stack(private_pg: PrivatePostgres, private_redis: PrivateRedis,
          tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    logdir = tmp_path_factory.mktemp("worker-faults")
    platform = prepare_platform(private_pg, broker_url=private_redis.url(0), workdir=logdir)
    source = start_private_postgres(prefix="lp-faults-src-")
    server = start_gunicorn(platform.env, logdir / "gunicorn.log", workers=2, threads=4)
    s = Stack(platform=platform, server=server, redis=private_redis, source=source, logdir=logdir)
    try:
        yield s
    finally:
        for w in s.workers:
            w.stop()
        server.stop()
        source.destroy()


def jdbc_catalog(stack: Stack, name: str, database: str) -> None:
    body = {"catalog_name": name, "catalog_type": "jdbc", "configuration": {
        "type": "postgresql", "base-url": stack.source.jdbc_url(), "default-database": database,
        "username": "postgres", "password": SOURCE_PASSWORD}}
    resp = stack.admin("POST", "/catalogs/", body)
    assert resp.status == 201, resp.text


def source_sql(stack: Stack, database: str, *statements: str) -> None:
    with psycopg.connect(stack.source.dsn(database), autocommit=True) as conn:
        for statement in statements:
            conn.execute(statement)


def redeliver_unacked(broker: PrivateRedis, run_id: int) -> str:
    """Move the run's unacknowledged task message back into its queue (kombu's Redis `restore_by_tag`)."""
    client = redis.Redis(port=broker.port)
    for tag, raw in client.hgetall("unacked").items():
        payload, _exchange, _routing_key = json.loads(raw)
        headers = payload["headers"]
        if headers["task"] == "jobs.run_execute" and headers["argsrepr"] == f"[{run_id}]":
            payload["headers"]["redelivered"] = True
            payload["properties"]["delivery_info"]["redelivered"] = True
            client.lpush("lakeport", json.dumps(payload))  # the queue bound to the task's routing key
            client.hdel("unacked", tag)
            client.zrem("unacked_index", tag)
            return headers["id"]
    raise AssertionError(f"no unacknowledged message for run {run_id}: the broker lost it, or it was acked")


def iso(value: str) -> float:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


# ---- the JDBC server stops mid-job --------------------------------------------------------------------------------
def test_jdbc_server_stopping_mid_job_fails_the_run_naming_the_catalog(stack: Stack) -> None:
    stack.source.create_database("shop")
    source_sql(stack, "shop",
               "CREATE FUNCTION slow(i int) RETURNS int LANGUAGE sql VOLATILE AS 'SELECT i FROM pg_sleep(0.05)'",
               "CREATE VIEW slow_orders AS SELECT slow(g) AS id FROM generate_series(1, 100000) g")
    jdbc_catalog(stack, "shop", "shop")
    stack.live_worker()
    run_id = stack.submit(stack.job("slow scan", "SELECT count(*) AS n FROM shop.public.slow_orders"))

    def scanning() -> bool:  # the run's query is executing on the JDBC server right now
        with psycopg.connect(stack.source.dsn("shop"), autocommit=True) as conn:
            return bool(conn.execute("SELECT 1 FROM pg_stat_activity WHERE state = 'active' AND query LIKE "
                                     "'%slow_orders%' AND pid <> pg_backend_pid()").fetchone())

    wait_until(scanning, what="the JDBC scan to start on the source server")
    assert stack.run(run_id)["status"] == "RUNNING"
    stack.source.stop("fast")
    try:
        done = stack.wait(run_id, *FINAL)  # the guard timeout is the "no hang" check
        assert done["status"] == "FAILED", done
        message = done["error"]["message"]
        assert "'shop'" in message and "catalog" in message.lower(), message
        assert done["catalogs"] == ["shop"]
        assert "'shop'" in stack.log(run_id)
        assert SOURCE_PASSWORD not in str(done)
    finally:
        stack.source.start()


# ---- Redis restarts with 50 runs queued ---------------------------------------------------------------------------
def test_all_of_50_queued_runs_finish_after_a_redis_restart(stack: Stack) -> None:
    stack.live_worker()
    quick = stack.job("quick", "SELECT 1 AS one")
    assert stack.wait(stack.submit(quick), *FINAL)["status"] == "SUCCEEDED"  # the team engine is up
    # Two long runs occupy both worker slots, so the 50 stay in the broker's queue.
    blocker_job = stack.job("blocker", LONG_QUERY)
    blockers = [stack.submit(blocker_job) for _ in range(2)]
    for run_id in blockers:
        stack.wait(run_id, "RUNNING")
    runs = [stack.submit(quick) for _ in range(50)]
    broker = redis.Redis(port=stack.redis.port)
    wait_until(lambda: broker.llen("lakeport") >= 45, what="the 50 messages in the broker")
    assert {stack.run(r)["status"] for r in runs} == {"QUEUED"}

    before = broker.info("server")["run_id"]
    stack.redis.stop()
    stack.redis.start()  # a new server process without persistence: every queued message is gone
    restarted = redis.Redis(port=stack.redis.port)
    assert restarted.info("server")["run_id"] != before
    assert restarted.config_get("save") == {"save": ""} and restarted.config_get("appendonly") == {"appendonly": "no"}

    for run_id in blockers:
        assert stack.call("POST", f"/runs/{run_id}/cancel/").status == 202
    finished = [stack.wait(r, *FINAL) for r in runs]
    assert [r["status"] for r in finished] == ["SUCCEEDED"] * 50
    assert {r["attempt"] for r in finished} == {1}  # each claimed once: none executed twice
    for run_id in blockers:
        assert stack.wait(run_id, *FINAL)["status"] == "CANCELLED"
    # The web tier publishes to the restarted broker too.
    assert stack.wait(stack.submit(quick), *FINAL)["status"] == "SUCCEEDED"
    listing = stack.call("GET", f"/runs/?job={quick}&status=SUCCEEDED&page_size=100")
    assert listing.data["count"] == 52


# ---- a worker is SIGKILLed mid-run ---------------------------------------------------------------------------------
def test_sigkill_mid_run_fails_it_as_worker_lost_and_a_redelivery_does_not_run_it_again(stack: Stack) -> None:
    victim = stack.live_worker()
    run_id = stack.submit(stack.job("killed", LONG_QUERY))
    stack.wait(run_id, "RUNNING")
    time.sleep(2)  # a few heartbeats in
    victim.kill_worker()
    killed_at = time.time()

    done = stack.wait(run_id, *FINAL, "QUEUED")
    assert done["status"] == "FAILED" and done["error"]["message"].startswith("worker lost"), done
    assert done["attempt"] == 1
    # Within the reaper interval (plus one beat period, the scheduling granularity of the reaper itself).
    assert iso(done["finished_at"]) - killed_at <= REAPER_INTERVAL + REAPER_INTERVAL / 4 + 1, done["finished_at"]

    # The broker redelivers the unacknowledged message (Redis does so once its visibility timeout passes): put
    # it back in the queue exactly as kombu's restore does; a new worker receives it and must not run the run again.
    task_id = redeliver_unacked(stack.redis, run_id)
    second = stack.worker("after-kill")
    wait_until(lambda: f"jobs.run_execute[{task_id}] succeeded" in second.log(), what="the redelivered task")
    again = stack.run(run_id)
    assert again["status"] == "FAILED" and again["attempt"] == 1 and again["finished_at"] == done["finished_at"]
    log = stack.log(run_id)
    assert log.count("started on") == 1 and "Attempt 2" not in log
    # The second worker does run new work.
    assert stack.wait(stack.submit(stack.job("fresh", "SELECT 2 AS two")), *FINAL)["status"] == "SUCCEEDED"


def test_sigkill_with_retries_requeues_the_run_and_it_finishes_on_another_worker(stack: Stack) -> None:
    stack.source.create_database("gate")
    source_sql(stack, "gate",
               "CREATE TABLE flag (slow boolean)", "INSERT INTO flag VALUES (true)",
               "CREATE FUNCTION gated(i int) RETURNS int LANGUAGE sql VOLATILE AS "
               "'SELECT i FROM pg_sleep(CASE WHEN (SELECT slow FROM flag) THEN 1 ELSE 0 END)'",
               "CREATE VIEW rows_behind_gate AS SELECT gated(g) AS id FROM generate_series(1, 1000) g")
    jdbc_catalog(stack, "gate", "gate")
    first = stack.live_worker()
    run_id = stack.submit(stack.job("retried", "SELECT count(*) AS n FROM gate.public.rows_behind_gate",
                                    max_retries=1))
    stack.wait(run_id, "RUNNING")
    time.sleep(2)
    first.kill_worker()
    source_sql(stack, "gate", "UPDATE flag SET slow = false")  # the next attempt is quick

    requeued = stack.wait(run_id, "QUEUED", *FINAL)
    assert requeued["status"] == "QUEUED", requeued  # re-queued per the job's retry setting, not failed
    stack.worker("retry-taker")
    done = stack.wait(run_id, *FINAL)
    assert done["status"] == "SUCCEEDED" and done["attempt"] == 2, done
    assert stack.call("GET", f"/runs/{run_id}/result/").data["rows"] == [[1000]]
    log = stack.log(run_id)
    assert "worker lost" in log and "Re-queued" in log and log.count("started on") == 2
