"""Runs end to end: REST submit → Redis → a real Celery worker → the team's engine process → PostgreSQL over JDBC."""

from __future__ import annotations

from typing import Any

import pytest

from catalogs.models import Catalog
from jobs.models import JobRun, RunStatus
from jobs.tasks import run_execute
from tests.jobs.conftest import PG_PASSWORD, wait_status
from tests.support.servers import wait_until
from tests.support.worker import Worker

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.spark]

JOBS = "/api/v1/teams/acme/jobs/"
RUNS = "/api/v1/teams/acme/runs/"
LONG_QUERY = "SELECT count(*) AS n FROM range(0, 200000000000, 1, 4) a"  # minutes of work on 2 cores


def create_job(client: Any, sql: str, **fields: Any) -> dict[str, Any]:
    body = {"name": fields.pop("name", f"job {abs(hash(sql)) % 10**8}"), "sql": sql, **fields}
    response = client.post(JOBS, body, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def submit(client: Any, job: dict[str, Any], **headers: str) -> dict[str, Any]:
    response = client.post(f"{JOBS}{job['id']}/runs/", **headers)
    assert response.status_code in (200, 201), response.json()
    return response.json()


def full_log(client: Any, run_id: int) -> str:
    lines, offset = [], 0
    while True:
        page = client.get(f"{RUNS}{run_id}/log/?offset={offset}").json()
        lines += [line["message"] for line in page["lines"]]
        if page["next_offset"] == offset:
            return "\n".join(lines)
        offset = page["next_offset"]


def test_jdbc_script_runs_end_to_end(celery_worker: Worker, developer_client: Any, pg_catalog: Catalog) -> None:
    job = create_job(developer_client, "USE CATALOG pg;\n"
                                       "SELECT customer, amount FROM public.orders WHERE amount > 6 ORDER BY id;")
    run = submit(developer_client, job)

    done = wait_status(run["id"], RunStatus.SUCCEEDED, RunStatus.FAILED)
    body = developer_client.get(f"{RUNS}{run['id']}/").json()
    assert done.status == RunStatus.SUCCEEDED, body["error"]
    assert body["catalogs"] == ["pg"]
    assert [s["status"] for s in body["statements"]] == ["succeeded", "succeeded"]
    assert all(s["elapsed_ms"] is not None and s["started_at"] for s in body["statements"])
    assert body["progress"]["statements_done"] == body["progress"]["statements_total"] == 2
    assert body["progress"]["stages_total"] >= 1 and body["progress"]["tasks_done"] == body["progress"]["tasks_total"]
    assert body["progress"]["stages_done"] == body["progress"]["stages_total"]  # skipped stages are not pending
    assert body["engine_used"] == "warm" and body["spark_app_id"] and body["attempt"] == 1
    assert body["worker"].startswith("jobs-test@")
    assert body["started_at"] <= body["finished_at"]

    result = developer_client.get(f"{RUNS}{run['id']}/result/").json()
    assert result == {"columns": [{"name": "customer", "type": "string"}, {"name": "amount", "type": "decimal(10,2)"}],
                      "rows": [["ann", "10.50"], ["bob", "20.00"]], "truncated": False}
    log = full_log(developer_client, run["id"])
    assert "Statement 2/2 started" in log and "Statement 2 succeeded" in log and "Run SUCCEEDED" in log
    assert PG_PASSWORD not in log and PG_PASSWORD not in str(body)
    assert PG_PASSWORD not in celery_worker.log()


def test_default_catalog_and_bounded_preview(celery_worker: Worker, developer_client: Any, pg_catalog: Catalog) -> None:
    job = create_job(developer_client, "SELECT count(*) AS n FROM public.orders;\nSELECT id FROM range(2500)",
                     default_catalog="pg")
    run = submit(developer_client, job)
    assert wait_status(run["id"], RunStatus.SUCCEEDED, RunStatus.FAILED).status == RunStatus.SUCCEEDED
    result = developer_client.get(f"{RUNS}{run['id']}/result/").json()
    assert result["columns"] == [{"name": "id", "type": "bigint"}]
    assert len(result["rows"]) == 1000 and result["rows"][999] == [999] and result["truncated"] is True
    assert JobRun.objects.get(id=run["id"]).catalogs_used == ["pg"]


def test_failing_script_reports_the_statement_and_position(
    celery_worker: Worker, developer_client: Any, pg_catalog: Catalog
) -> None:
    job = create_job(developer_client, "SELECT 1 AS ok;\nSELECT no_such_column\n  FROM pg.public.orders;\nSELECT 3")
    run = submit(developer_client, job)
    done = wait_status(run["id"], RunStatus.SUCCEEDED, RunStatus.FAILED)
    assert done.status == RunStatus.FAILED
    assert done.error["statement"] == 1 and done.error["line"] >= 2
    assert "no_such_column" in done.error["message"]
    assert [s["status"] for s in done.statements] == ["succeeded", "failed", "skipped"]
    assert done.finished_at is not None
    log = full_log(developer_client, run["id"])
    assert "Statement 2 failed" in log and "Run FAILED" in log


@pytest.mark.parametrize(
    ("sql", "statement", "line", "text"),
    [
        ("SELECT 1;\n\nSELEC 2 FROM x", 1, 3, "Syntax error"),
        ("SELECT 1;\nSELECT * FROM nope.db.t", 1, 2, "Unknown catalog 'nope'"),
    ],
)
def test_syntax_errors_and_unknown_catalogs_fail_before_any_statement_runs(
    celery_worker: Worker, developer_client: Any, sql: str, statement: int, line: int, text: str
) -> None:
    run = submit(developer_client, create_job(developer_client, sql))
    done = wait_status(run["id"], RunStatus.SUCCEEDED, RunStatus.FAILED)
    assert done.status == RunStatus.FAILED
    assert (done.error["statement"], done.error["line"]) == (statement, line)
    assert text in done.error["message"]
    assert done.statements[0]["status"] == "skipped"  # nothing ran


def test_cancel_stops_a_long_running_query_with_live_progress(celery_worker: Worker, developer_client: Any) -> None:
    run = submit(developer_client, create_job(developer_client, LONG_QUERY))
    wait_status(run["id"], RunStatus.RUNNING)
    # Live progress is readable by polling the run while it runs.
    progress = wait_until(lambda: (p := developer_client.get(f"{RUNS}{run['id']}/").json()["progress"])["tasks_total"]
                          and p, what="stage progress while running")
    assert progress["stages_total"] >= 1 and progress["statements_total"] == 1
    assert developer_client.get(f"{RUNS}{run['id']}/").json()["status"] == "RUNNING"

    response = developer_client.post(f"{RUNS}{run['id']}/cancel/")
    assert response.status_code == 202
    done = wait_status(run["id"], RunStatus.CANCELLED, RunStatus.FAILED, RunStatus.SUCCEEDED)
    assert done.status == RunStatus.CANCELLED
    assert developer_client.post(f"{RUNS}{run['id']}/cancel/").status_code == 409
    # The team engine is still usable afterwards.
    after = submit(developer_client, create_job(developer_client, "SELECT 41 + 1 AS answer", name="after cancel"))
    assert wait_status(after["id"], RunStatus.SUCCEEDED, RunStatus.FAILED).result["rows"] == [[42]]


def test_idempotent_submit_and_duplicate_messages_execute_once(celery_worker: Worker, developer_client: Any) -> None:
    job = create_job(developer_client, "SELECT 7 AS seven")
    first = submit(developer_client, job, HTTP_IDEMPOTENCY_KEY="nightly-1")
    again = submit(developer_client, job, HTTP_IDEMPOTENCY_KEY="nightly-1")
    assert first["id"] == again["id"]
    for _ in range(3):  # a broker redelivering the message, a client retrying enqueue …
        run_execute.delay(first["id"])
    done = wait_status(first["id"], RunStatus.SUCCEEDED, RunStatus.FAILED)
    assert done.status == RunStatus.SUCCEEDED and done.attempt == 1
    wait_until(lambda: celery_worker.log().count("run.claim_skipped") >= 3, timeout=60,
               what="the three duplicate deliveries to be skipped")
    log = full_log(developer_client, first["id"])
    assert log.count("started on") == 1
    assert JobRun.objects.filter(job_id=job["id"]).count() == 1


def test_warm_runs_do_not_share_temp_views_or_conf(celery_worker: Worker, developer_client: Any) -> None:
    first = submit(developer_client, create_job(
        developer_client, "CREATE TEMPORARY VIEW shared_v AS SELECT 1 AS x;\nSET spark.sql.ansi.enabled=false;\n"
                          "SELECT * FROM shared_v", name="makes a view"))
    assert wait_status(first["id"], RunStatus.SUCCEEDED, RunStatus.FAILED).status == RunStatus.SUCCEEDED
    second = submit(developer_client, create_job(
        developer_client, "SELECT * FROM shared_v", name="reads the view"))
    done = wait_status(second["id"], RunStatus.SUCCEEDED, RunStatus.FAILED)
    assert done.status == RunStatus.FAILED and "shared_v" in done.error["message"]
    third = submit(developer_client, create_job(
        developer_client, "SET spark.sql.ansi.enabled", name="reads the conf",
        spark_conf={"spark.sql.session.timeZone": "Asia/Tokyo"}))
    done = wait_status(third["id"], RunStatus.SUCCEEDED, RunStatus.FAILED)
    assert done.status == RunStatus.SUCCEEDED and done.result["rows"][0][1] == "true"


def test_isolated_engine_runs_in_a_driver_of_its_own_with_user_positions(
    celery_worker: Worker, developer_client: Any, pg_catalog: Catalog
) -> None:
    job = create_job(developer_client, "SELECT customer FROM public.orders ORDER BY id;\nSELECT bad_col FROM public.orders",
                     default_catalog="pg", engine="isolated", name="isolated")
    run = submit(developer_client, job)
    done = wait_status(run["id"], RunStatus.SUCCEEDED, RunStatus.FAILED)
    assert done.engine_used == "isolated"
    assert done.status == RunStatus.FAILED
    # Positions are the user's: the default catalog's USE is not a statement of theirs.
    assert done.error["statement"] == 1 and done.error["line"] == 2 and "bad_col" in done.error["message"]
    assert [s["status"] for s in done.statements] == ["succeeded", "failed"]
    assert done.catalogs_used == ["pg"] and done.progress["statements_total"] == 2
    log = full_log(developer_client, run["id"])
    assert "Statement 1 succeeded" in log and PG_PASSWORD not in log and PG_PASSWORD not in celery_worker.log()

    ok = submit(developer_client, create_job(developer_client, "SELECT count(*) AS n FROM pg.public.orders",
                                             engine="isolated", name="isolated ok"))
    done = wait_status(ok["id"], RunStatus.SUCCEEDED, RunStatus.FAILED)
    assert done.status == RunStatus.SUCCEEDED, done.error
    assert done.result == {"columns": [{"name": "n", "type": "bigint"}], "rows": [[3]], "truncated": False}
    # The driver reported its application and the Spark stages/tasks of the run, as the warm engine does.
    assert done.spark_app_id.startswith(("local-", "app-"))
    assert done.progress["stages_total"] >= 1 and done.progress["tasks_done"] == done.progress["tasks_total"] >= 1


def test_cancel_of_an_isolated_run_kills_its_driver(celery_worker: Worker, developer_client: Any) -> None:
    run = submit(developer_client, create_job(developer_client, LONG_QUERY, engine="isolated", name="isolated long"))
    # The driver is up once it reported the statement's start.
    wait_until(lambda: JobRun.objects.get(id=run["id"]).progress["statements_total"] == 1, what="the driver to start")
    assert developer_client.post(f"{RUNS}{run['id']}/cancel/").status_code == 202
    done = wait_status(run["id"], RunStatus.CANCELLED, RunStatus.FAILED, RunStatus.SUCCEEDED)
    assert done.status == RunStatus.CANCELLED and done.error["message"] == "Cancelled by a user."
    assert not any(s["status"] == "succeeded" for s in done.statements)
