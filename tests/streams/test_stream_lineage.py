"""A streaming job's lineage through the platform: started by a real worker, its query's sources and sink land in
the lineage graph (job edges, column lineage, the dataset's upstream) and OpenLineage gets a STREAMING START and,
when the stream is stopped, COMPLETE for the same run."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.lineage.test_runs_api import _check_event
from tests.streams.conftest import API, Lake, events, produce, sink_ids, wait_stream
from tests.support.servers import wait_until
from tests.support.worker import Worker

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.spark]


def test_a_running_stream_is_in_the_lineage_graph_and_in_openlineage(
    lake: Lake, streaming_job: Callable[..., dict[str, Any]], stream_workers: Callable[..., Worker],
    developer_client: APIClient, viewer_client: APIClient, tmp_path: Path,
) -> None:
    ol_file = tmp_path / "ol-stream.jsonl"
    sink = lake.sink("out")
    produce(lake.server, lake.key, events(0, 20))
    job = streaming_job(lake.script("out"))
    stream_workers("w1", extra={"LAKEPORT_OPENLINEAGE_TRANSPORT": json.dumps(
        {"type": "file", "log_file_path": str(ol_file), "append": True})})
    assert developer_client.post(f"{API}/jobs/{job['id']}/stream/start/", {}, format="json").status_code == 202
    wait_stream(viewer_client, job["id"], lambda s: s["status"] == "RUNNING", "the stream to run")
    wait_until(lambda: sink_ids(sink) == list(range(20)), timeout=300, what="the first 20 events in the sink")

    graph = viewer_client.get(f"{API}/lineage/jobs/{job['id']}/").json()
    (source,) = graph["inputs"]
    assert (source["name"], source["kind"], source["physical_name"]) == (
        f"events.default.{lake.key}", "redis-streams", lake.key)
    assert source["namespace"].startswith("redis://127.0.0.1:") and lake.server.password not in json.dumps(graph)
    (out,) = graph["outputs"]
    assert (out["name"], out["namespace"], out["physical_name"]) == ("lake.db.out", "file", sink)
    assert out["last_status"] == "RUNNING" and out["last_run"] is None  # a stream has no run

    upstream = viewer_client.get(f"{API}/lineage/datasets/{out['id']}/upstream/", {"depth": 2}).json()
    assert {d["name"] for d in upstream["datasets"]} == {"lake.db.out", f"events.default.{lake.key}"}
    assert job["id"] in {j["id"] for j in upstream["jobs"]}
    column = viewer_client.get(f"{API}/lineage/datasets/{out['id']}/columns/room/").json()
    assert {(e["input_dataset"], e["input_column"], e["kind"]) for e in column["edges"]} == {
        (f"events.default.{lake.key}", "room", "identity")}

    assert developer_client.post(f"{API}/jobs/{job['id']}/stream/stop/", {}, format="json").status_code == 202
    wait_stream(viewer_client, job["id"], lambda s: s["status"] == "STOPPED", "the stream to stop")

    def sent() -> list[dict[str, Any]]:
        return [json.loads(line) for line in ol_file.read_text().splitlines()] if ol_file.exists() else []

    wait_until(lambda: [e["eventType"] for e in sent()] == ["START", "COMPLETE"], timeout=60,
               what="OpenLineage START and COMPLETE of the stream")
    start, complete = sent()
    for event in (start, complete):
        _check_event(event)
        assert event["job"]["facets"]["jobType"]["processingType"] == "STREAMING"
        assert event["job"]["name"] == job["name"] and event["job"]["namespace"] == "lakeport.acme"
    assert start["run"]["runId"] == complete["run"]["runId"]
    assert [d["name"] for d in start["inputs"]] == [lake.key] and [d["name"] for d in start["outputs"]] == [sink]
    assert lake.server.password not in ol_file.read_text()
    assert viewer_client.get(f"{API}/lineage/jobs/{job['id']}/").json()["outputs"][0]["last_status"] == "STOPPED"
