"""A stream's driver is an engine of the worker's pool like a run's: it counts against LAKEPORT_ENGINES_PER_WORKER.
With room for one engine and a stream running, a run of the same worker waits QUEUED (never FAILED) and runs once
the stream stops and its engine goes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from jobs.models import TERMINAL_STATUSES, JobRun, RunStatus
from tests.jobs.conftest import wait_status
from tests.streams.conftest import API, Lake, events, produce, wait_stream
from tests.support.servers import wait_until
from tests.support.worker import Worker

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.spark]


def test_a_running_stream_holds_an_engine_slot_and_a_run_waits_for_it(
    lake: Lake, streaming_job: Callable[..., dict[str, Any]], stream_workers: Callable[..., Worker],
    developer_client: APIClient, viewer_client: APIClient,
) -> None:
    lake.sink("out")
    produce(lake.server, lake.key, events(0, 10))
    stream_id = streaming_job(lake.script("out"))["id"]
    worker = stream_workers("slots", extra={"LAKEPORT_ENGINES_PER_WORKER": "1", "LAKEPORT_ENGINE_WAIT_SECONDS": "1"})
    assert developer_client.post(f"{API}/jobs/{stream_id}/stream/start/", {}, format="json").status_code == 202
    wait_stream(viewer_client, stream_id, lambda s: s["status"] == "RUNNING", "the stream to run")

    job = developer_client.post(f"{API}/jobs/", {"name": "batch", "sql": "SELECT 1 AS one"}, format="json").json()
    run_id = int(developer_client.post(f"{API}/jobs/{job['id']}/runs/").json()["id"])
    # the only engine slot is the stream's: the run is deferred, again and again, and stays QUEUED
    wait_until(lambda: worker.log().count("run.waiting_for_engine") >= 2, timeout=300,
               what="the worker to defer the run while the stream holds the engine slot")
    assert JobRun.objects.get(id=run_id).status == RunStatus.QUEUED

    assert developer_client.post(f"{API}/jobs/{stream_id}/stream/stop/", {}, format="json").status_code == 202
    wait_stream(viewer_client, stream_id, lambda s: s["status"] == "STOPPED", "the stream to stop")
    done = wait_status(run_id, *TERMINAL_STATUSES)
    assert done.status == RunStatus.SUCCEEDED, done.error
    assert done.result["rows"] == [[1]]
