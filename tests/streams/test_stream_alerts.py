"""A real stream on a real worker whose driver fails until its restart budget is exhausted: the worker's own
`alerts.deliver` (sent after the status change commits, and by its beat) POSTs exactly one signed FAILED alert and
one "restarting too often" alert to a receiver on 127.0.0.1; fixed and started again, the stream's incident is
resolved."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.streams.conftest import API, Lake, events, produce, wait_stream
from tests.support.receivers import WEBHOOK_SECRET, Receiver, free_port
from tests.support.servers import wait_until
from tests.support.worker import Worker

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.spark]


@pytest.fixture
def receiver() -> Any:
    found = Receiver(port=free_port())
    found.start()
    yield found
    found.stop()


def test_a_stream_failing_past_its_restart_budget_sends_one_signed_alert_then_resolved(
    lake: Lake, streaming_job: Callable[..., dict[str, Any]], stream_workers: Callable[..., Worker],
    developer_client: APIClient, admin_client: APIClient, receiver: Receiver,
) -> None:
    channel = admin_client.post(f"{API}/alert-channels/", {"name": "ops", "kind": "webhook", "url": receiver.url,
                                                           "secret": WEBHOOK_SECRET}, format="json").json()
    lake.sink("out")
    produce(lake.server, lake.key, events(0, 3))
    lake.server.client().xadd(lake.key, {"data": '{"id": "not-a-number", "room": "x"}'})  # fails every batch
    job_id = streaming_job(lake.script("out"))["id"]
    for body in ({"name": "stream-down", "event": "stream_failed", "job": job_id},
                 {"name": "flapping", "event": "stream_restarting", "count": 1, "minutes": 30}):
        resp = admin_client.post(f"{API}/alert-rules/", {**body, "channels": [channel["id"]]}, format="json")
        assert resp.status_code == 201, resp.content
    stream_workers("w1", extra={"LAKEPORT_STREAM_RESTART_BUDGET": "2", "LAKEPORT_ALERT_TICK_SECONDS": "2"})
    assert developer_client.post(f"{API}/jobs/{job_id}/stream/start/", {}, format="json").status_code == 202
    failed = wait_stream(developer_client, job_id, lambda s: s["status"] in ("STOPPED", "FAILED"), "the stream to fail",
                         timeout=600)  # three driver starts on a loaded machine
    assert failed["status"] == "FAILED"

    def kinds() -> list[tuple[str, str]]:
        return sorted((r.json["event"], r.json["kind"]) for r in receiver.received)

    wait_until(lambda: kinds() == [("stream_failed", "firing"), ("stream_restarting", "firing")], timeout=120,
               what=f"the FAILED and restarting alerts (got {kinds()})")
    assert all(r.signed_with(WEBHOOK_SECRET) for r in receiver.received)
    alert = next(r.json for r in receiver.received if r.json["event"] == "stream_failed")
    assert alert["link"].endswith(f"/t/acme/jobs/{job_id}") and "not a bigint" in alert["text"]
    assert "not-a-number" not in alert["text"]  # the record's content is never shown

    # fixed (the bad record deleted) and started again: RUNNING resolves the stream's incident, once
    bad = lake.server.client().xrange(lake.key)[-1][0]
    lake.server.client().xdel(lake.key, bad)
    assert developer_client.post(f"{API}/jobs/{job_id}/stream/start/", {}, format="json").status_code == 202
    wait_stream(developer_client, job_id, lambda s: s["status"] == "RUNNING" and s["latest"] is not None,
                "the fixed stream")
    wait_until(lambda: ("stream_failed", "resolved") in kinds(), timeout=120, what="the resolved message")
    assert kinds().count(("stream_failed", "firing")) == 1 and kinds().count(("stream_failed", "resolved")) == 1
    developer_client.post(f"{API}/jobs/{job_id}/stream/stop/", {}, format="json")
