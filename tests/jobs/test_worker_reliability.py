"""Reliability with real processes: QUEUED runs survive a broker flush; a SIGKILLed worker's run is reaped."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jobs.models import JobRun, RunStatus
from tests.jobs.conftest import flush_broker, start_worker_and_beat, wait_status
from tests.jobs.test_worker_runs import LONG_QUERY, create_job, submit
from tests.support.worker import Worker

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.spark]


@pytest.fixture(scope="module")
def processes(django_db_setup: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Worker/beat processes the tests start themselves (so a test can run with none); all stopped at the end."""
    started: list[Worker] = []
    state: dict[str, Any] = {"started": started, "logdir": tmp_path_factory.mktemp("reliability")}
    flush_broker()
    yield state
    for w in started:
        w.stop()


def start(processes: dict[str, Any], name: str) -> Worker:
    w = start_worker_and_beat(Path(processes["logdir"]) / name, hostname=f"{name}@%h")
    processes["started"].append(w)
    return w


def test_queued_runs_are_reenqueued_after_their_messages_are_lost(processes: dict, developer_client: Any) -> None:
    job = create_job(developer_client, "SELECT 'still here' AS msg")
    runs = [submit(developer_client, job) for _ in range(3)]
    flush_broker()  # a Redis restart without persistence: the three messages are gone, PostgreSQL still has the runs
    assert {r.status for r in JobRun.objects.all()} == {RunStatus.QUEUED}

    start(processes, "after-flush")  # its beat's reaper re-enqueues them from PostgreSQL

    for run in runs:
        done = wait_status(run["id"], RunStatus.SUCCEEDED, RunStatus.FAILED)
        assert done.status == RunStatus.SUCCEEDED and done.attempt == 1
        assert done.result["rows"] == [["still here"]]


def test_sigkill_of_a_worker_mid_run_is_reaped_as_worker_lost(processes: dict, developer_client: Any) -> None:
    worker = processes["started"][-1] if processes["started"] else start(processes, "victim")
    run = submit(developer_client, create_job(developer_client, LONG_QUERY))
    wait_status(run["id"], RunStatus.RUNNING)

    worker.kill_worker()  # SIGKILL: no shutdown hook, no final write; only beat's reaper is left running

    done = wait_status(run["id"], RunStatus.FAILED, RunStatus.SUCCEEDED, RunStatus.CANCELLED, RunStatus.QUEUED)
    assert done.status == RunStatus.FAILED
    assert done.error["message"].startswith("worker lost")
    assert done.attempt == 1 and done.finished_at is not None
    body = developer_client.get(f"/api/v1/teams/acme/runs/{run['id']}/").json()
    assert body["status"] == "FAILED" and "worker lost" in body["error"]["message"]


def test_a_lost_run_with_retries_is_requeued_and_finishes_on_another_worker(
    processes: dict, developer_client: Any
) -> None:
    for w in processes["started"]:
        w.stop()
    processes["started"].clear()
    first = start(processes, "first")
    # Long on its first attempt; the test shortens the stored script once the run is back in the queue.
    job = create_job(developer_client, LONG_QUERY, name="retrying", max_retries=1)
    run = submit(developer_client, job)
    wait_status(run["id"], RunStatus.RUNNING)
    first.kill_worker()
    # The reaper (beat still runs) puts it back in the queue; nobody consumes until a new worker starts.
    wait_status(run["id"], RunStatus.QUEUED, RunStatus.FAILED)
    assert JobRun.objects.get(id=run["id"]).status == RunStatus.QUEUED
    JobRun.objects.filter(id=run["id"]).update(sql="SELECT 'second attempt' AS msg")
    start(processes, "second")
    done = wait_status(run["id"], RunStatus.SUCCEEDED, RunStatus.FAILED)
    assert done.status == RunStatus.SUCCEEDED and done.attempt == 2
    assert done.result["rows"] == [["second attempt"]]
    assert "Re-queued" in " ".join(done.log.values_list("message", flat=True))
