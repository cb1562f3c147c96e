"""Streams run by real Celery workers: each driver a dedicated engine process, fed by a real Redis stream, writing
a Delta table that delta-rs reads back. Start → metrics → stop → restart from the checkpoint (sink exact) →
reset; SIGKILL of the driver; two workers and one driver; a worker lost or stopped; a refused statement; a change of
the owner's access (a new row filter, a revoke) reaching a running stream."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from celery import current_app
from rest_framework.test import APIClient

from jobs.models import SqlJob
from streams.models import StreamState
from tests.streams.conftest import API, Lake, Producer, events, produce, sink_ids, stream, wait_stream
from tests.support.processes import descendants
from tests.support.servers import wait_until
from tests.support.worker import Worker

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.spark]


def _post(client: APIClient, job_id: int, action: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    response = client.post(f"{API}/jobs/{job_id}/stream/{action}/", body or {}, format="json")
    assert response.status_code == 202, response.content
    return response.json()


def _running(state: dict[str, Any]) -> bool:
    return state["status"] == "RUNNING"


def _stopped(state: dict[str, Any]) -> bool:
    return state["status"] in ("STOPPED", "FAILED")


def _exact(path: str, ids: list[int], what: str) -> None:
    wait_until(lambda: sink_ids(path) == sorted(ids) or len(sink_ids(path)) > len(ids), timeout=300,
               what=what)
    assert sink_ids(path) == sorted(ids), f"{what}: the sink is not exact"


def _drivers(*workers: Worker) -> list[int]:
    """Engine processes (`python -m lakeport_engine.engine`) under the workers."""
    found = []
    for worker in workers:
        assert worker.worker is not None
        for pid in descendants(worker.worker.pid):
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"lakeport_engine.engine" in cmdline:
                found.append(pid)
    return found


def test_start_metrics_stop_restart_from_checkpoint_and_reset(
    lake: Lake, streaming_job: Callable[..., dict[str, Any]], stream_workers: Callable[..., Worker],
    developer_client: APIClient, viewer_client: APIClient,
) -> None:
    sink = lake.sink("out")
    produce(lake.server, lake.key, events(0, 120))
    job_id = streaming_job(lake.script("out"))["id"]
    stream_workers("w1")
    assert _post(developer_client, job_id, "start")["status"] == "STARTING"

    running = wait_stream(viewer_client, job_id, _running, "the stream to run")
    _exact(sink, list(range(120)), "the first 120 events")
    assert running["query_id"] and running["started_at"] and running["heartbeat_at"]
    def metrics() -> list[dict[str, Any]]:
        return viewer_client.get(f"{API}/jobs/{job_id}/stream/metrics/").json()["results"]

    # the batches' events arrive right after their commits: every event read is counted once
    wait_until(lambda: sum(m["input_rows"] for m in metrics()) >= 120, what="metrics of 120 events")
    assert sum(m["input_rows"] for m in metrics()) == 120 and metrics()[0]["duration_ms"] > 0
    assert [m["batch_id"] for m in metrics()] == sorted(m["batch_id"] for m in metrics())
    assert stream(viewer_client, job_id)["latest"] is not None
    first_query = running["query_id"]

    assert _post(developer_client, job_id, "stop")["status"] in ("STOPPING", "STOPPED")
    stopped = wait_stream(viewer_client, job_id, _stopped, "the stream to stop")
    assert stopped["status"] == "STOPPED" and stopped["desired"] == "stopped"

    produce(lake.server, lake.key, events(120, 60))  # while it is stopped
    _post(developer_client, job_id, "start")
    resumed = wait_stream(viewer_client, job_id, _running, "the stream to resume")
    _exact(sink, list(range(180)), "the stream resumed from its checkpoint")
    assert resumed["query_id"] == first_query  # the same checkpoint

    _post(developer_client, job_id, "stop")
    wait_stream(viewer_client, job_id, _stopped, "the second stop")
    reset = _post(developer_client, job_id, "reset", {"confirm": True})
    assert reset["checkpoint_generation"] == 2 and reset["status"] == "STOPPED"
    _post(developer_client, job_id, "start")
    again = wait_stream(viewer_client, job_id, lambda s: _running(s) and s["query_id"] != first_query,
                        "the reset stream to run")
    # a new checkpoint reads the stream from its beginning: every event once more
    _exact(sink, sorted(list(range(180)) * 2), "the reset stream replayed the sources")
    assert again["checkpoint_generation"] == 2
    _post(developer_client, job_id, "stop")
    wait_stream(viewer_client, job_id, _stopped, "the last stop")


def test_a_killed_driver_restarts_from_its_checkpoint_and_the_sink_stays_exact(
    lake: Lake, streaming_job: Callable[..., dict[str, Any]], stream_workers: Callable[..., Worker],
    developer_client: APIClient,
) -> None:
    sink = lake.sink("out")
    job_id = streaming_job(lake.script("out"))["id"]
    worker = stream_workers("w1")
    producer = Producer(lake, 0)
    producer.start()
    _post(developer_client, job_id, "start")
    wait_stream(developer_client, job_id, lambda s: _running(s) and s["latest"] is not None, "batches")
    drivers = wait_until(lambda: _drivers(worker), what="the driver process")
    assert len(drivers) == 1
    os.killpg(drivers[0], signal.SIGKILL)  # the driver and its JVM, as a crash takes both

    restarting = wait_stream(developer_client, job_id, lambda s: s["restarts"] >= 1, "a restart")
    assert restarting["status"] in ("RESTARTING", "RUNNING") and "driver stopped" in restarting["last_error"]
    wait_stream(developer_client, job_id, lambda s: _running(s) and s["restarts"] == 1, "RUNNING again")
    wait_until(lambda: _drivers(worker) and _drivers(worker) != drivers, what="a new driver")
    ids = list(range(producer.finish()))  # it produced from 0
    _exact(sink, ids, "after the driver was killed")
    _post(developer_client, job_id, "stop")
    wait_stream(developer_client, job_id, _stopped, "the stop")


def test_two_workers_one_driver_and_takeover_of_a_lost_worker(
    lake: Lake, streaming_job: Callable[..., dict[str, Any]], stream_workers: Callable[..., Worker],
    developer_client: APIClient,
) -> None:
    sink = lake.sink("out")
    produce(lake.server, lake.key, events(0, 100))
    job_id = streaming_job(lake.script("out"))["id"]
    first, second = stream_workers("w1"), stream_workers("w2", beat=False)
    _post(developer_client, job_id, "start")
    for _ in range(3):  # duplicate supervise messages race for the lease
        current_app.send_task("streams.supervise", args=[job_id], queue="lakeport")
    wait_stream(developer_client, job_id, _running, "the stream to run")
    _exact(sink, list(range(100)), "the first events")
    assert len(_drivers(first, second)) == 1

    owner = StreamState.objects.get(job_id=job_id).worker
    holder, other = (first, second) if owner.startswith("w1@") else (second, first)
    holder.kill_worker()  # no shutdown code runs: the lease expires, the tick sends supervise again
    produce(lake.server, lake.key, events(100, 50))
    taken = wait_stream(developer_client, job_id,
                        lambda s: _running(s) and StreamState.objects.get(job_id=job_id).worker != owner,
                        "another worker to take the stream over")
    assert taken["restarts"] >= 1
    _exact(sink, list(range(150)), "after the takeover")
    assert len(_drivers(other)) == 1
    _post(developer_client, job_id, "stop")
    wait_stream(developer_client, job_id, _stopped, "the stop")


def test_platform_stop_and_start_resumes_running_streams(
    lake: Lake, streaming_job: Callable[..., dict[str, Any]], stream_workers: Callable[..., Worker],
    developer_client: APIClient,
) -> None:
    sink = lake.sink("out")
    produce(lake.server, lake.key, events(0, 60))
    job_id = streaming_job(lake.script("out"))["id"]
    worker = stream_workers("w1")
    _post(developer_client, job_id, "start")
    wait_stream(developer_client, job_id, _running, "the stream to run")
    _exact(sink, list(range(60)), "before the platform stops")
    worker.stop()  # SIGTERM: the worker stops its driver gracefully and frees the lease
    paused = stream(developer_client, job_id)
    assert paused["status"] == "RESTARTING" and paused["desired"] == "running"
    assert not StreamState.objects.get(job_id=job_id).lease_owner
    produce(lake.server, lake.key, events(60, 40))
    stream_workers("w3")
    wait_stream(developer_client, job_id, _running, "the stream to resume after the platform restart")
    _exact(sink, list(range(100)), "after the platform restart")
    _post(developer_client, job_id, "stop")
    wait_stream(developer_client, job_id, _stopped, "the stop")


def test_a_refused_statement_fails_the_stream_with_a_clear_message(
    lake: Lake, streaming_job: Callable[..., dict[str, Any]], stream_workers: Callable[..., Worker],
    developer_client: APIClient,
) -> None:
    lake.sink("out")
    job_id = streaming_job(lake.script("out", source="nosuch"))["id"]
    stream_workers("w1")
    _post(developer_client, job_id, "start")
    failed = wait_stream(developer_client, job_id, _stopped, "the stream to fail")
    assert failed["status"] == "FAILED" and failed["restarts"] == 0
    assert "nosuch" in failed["last_error"] and "Traceback" not in failed["last_error"]
    assert lake.server.password not in failed["last_error"]
    assert developer_client.post(f"{API}/jobs/{job_id}/stream/stop/").status_code == 409


def test_guard_attacks_in_a_streaming_job_fail_it_with_the_rule_and_write_nothing(
    lake: Lake, streaming_job: Callable[..., dict[str, Any]], stream_workers: Callable[..., Worker],
    developer_client: APIClient,
) -> None:
    """A streaming job's driver is a team engine: its batch prelude and its streaming INSERT pass the SQL guard."""
    path = lake.sink("out")
    produce(lake.server, lake.key, events(0, 5))
    attacks = [
        ("SELECT * FROM text.`/etc/hostname`;\n" + lake.script("out"), "path-read"),
        (f"INSERT INTO lake.db.out SELECT id, reflect('java.lang.System', 'getenv', 'HOME') "
         f"FROM STREAM(events.default.{lake.key})", "reflection"),
    ]
    jobs = [(streaming_job(sql)["id"], rule) for sql, rule in attacks]
    stream_workers("w1")
    for job_id, _ in jobs:
        _post(developer_client, job_id, "start")
    for job_id, rule in jobs:
        failed = wait_stream(developer_client, job_id, _stopped, f"the {rule} attack to fail")
        assert failed["status"] == "FAILED" and failed["restarts"] == 0, failed
        assert f"(rule: {rule})" in failed["last_error"] and "Traceback" not in failed["last_error"]
    assert sink_ids(path) == []


def test_a_driver_failing_again_and_again_ends_failed_with_the_last_error(
    lake: Lake, streaming_job: Callable[..., dict[str, Any]], stream_workers: Callable[..., Worker],
    developer_client: APIClient,
) -> None:
    lake.sink("out")
    produce(lake.server, lake.key, events(0, 3))
    lake.server.client().xadd(lake.key, {"data": '{"id": "not-a-number", "room": "x"}'})  # fails every batch
    job_id = streaming_job(lake.script("out"))["id"]
    stream_workers("w1", extra={"LAKEPORT_STREAM_RESTART_BUDGET": "2"})
    _post(developer_client, job_id, "start")
    failed = wait_stream(developer_client, job_id, _stopped, "the stream to give up")
    assert failed["status"] == "FAILED" and failed["restarts"] == 2 and failed["desired"] == "running"
    assert f"'{lake.key}'" in failed["last_error"] and "not a bigint" in failed["last_error"]
    assert "not-a-number" not in failed["last_error"]  # the record's content is never shown
    assert "Traceback" not in failed["last_error"]
    # the user fixes the stream (deletes the record) and starts it again
    bad = lake.server.client().xrange(lake.key)[-1][0]
    lake.server.client().xdel(lake.key, bad)
    _post(developer_client, job_id, "start")
    wait_stream(developer_client, job_id, lambda s: _running(s) and s["latest"] is not None, "the fixed stream")
    _post(developer_client, job_id, "stop")
    wait_stream(developer_client, job_id, _stopped, "the stop")


def test_editing_the_sql_of_a_running_stream_restarts_it_on_its_checkpoint(
    lake: Lake, streaming_job: Callable[..., dict[str, Any]], stream_workers: Callable[..., Worker],
    developer_client: APIClient,
) -> None:
    sink = lake.sink("out")
    produce(lake.server, lake.key, events(0, 30))
    job = streaming_job(lake.script("out"))
    worker = stream_workers("w1")
    _post(developer_client, job["id"], "start")
    first = wait_stream(developer_client, job["id"], _running, "the stream to run")
    _exact(sink, list(range(30)), "the first events")
    before = _drivers(worker)
    edited = job["sql"].replace("SELECT id, room", "SELECT id, upper(room)")
    assert developer_client.patch(f"{API}/jobs/{job['id']}/", {"sql": edited}, format="json").status_code == 200
    wait_until(lambda: _drivers(worker) and _drivers(worker) != before, what="a new driver for the edited SQL")
    restarted = wait_stream(developer_client, job["id"], _running, "the edited stream to run")
    assert restarted["restarts"] == 0  # asked for, not a failure
    produce(lake.server, lake.key, events(30, 30))
    _exact(sink, list(range(60)), "the edited query on the same checkpoint")
    rooms = _rooms(sink)
    assert {"a", "b", "c"} <= rooms and {"A", "B", "C"} <= rooms  # old rows as they were, new ones upper-cased
    assert stream(developer_client, job["id"])["query_id"] == first["query_id"]
    _post(developer_client, job["id"], "stop")
    wait_stream(developer_client, job["id"], _stopped, "the stop")


def _rooms(path: str) -> set[str]:
    import deltalake

    return set(deltalake.DeltaTable(path).to_pyarrow_table().column("room").to_pylist())


def test_an_edit_the_checkpoint_cannot_resume_fails_at_once_and_says_to_reset(
    lake: Lake, streaming_job: Callable[..., dict[str, Any]], stream_workers: Callable[..., Worker],
    developer_client: APIClient,
) -> None:
    import deltalake
    import pyarrow as pa

    counts = str(lake.warehouse / "db" / "counts")
    deltalake.write_deltalake(counts, pa.schema([("room", pa.string()), ("n", pa.int64())]).empty_table())
    produce(lake.server, lake.key, events(0, 30))
    job = streaming_job("SET spark.sql.shuffle.partitions = 2;\n"
                        f"INSERT INTO lake.db.counts SELECT room, count(*) AS n FROM STREAM(events.default.{lake.key}) "
                        "GROUP BY room EMIT STREAM")
    worker = stream_workers("w1")
    _post(developer_client, job["id"], "start")
    wait_stream(developer_client, job["id"], _running, "the stream to run")

    def counted() -> int:
        return sum(deltalake.DeltaTable(counts).to_pyarrow_table().column("n").to_pylist())

    wait_until(lambda: counted() == 30, timeout=300, what="30 events counted")
    # the aggregation's state changes shape (avg keeps a sum and a count): Spark cannot resume it
    before = _drivers(worker)
    edited = job["sql"].replace("count(*) AS n", "CAST(avg(id) AS BIGINT) AS n")
    assert developer_client.patch(f"{API}/jobs/{job['id']}/", {"sql": edited}, format="json").status_code == 200
    wait_until(lambda: _drivers(worker) and _drivers(worker) != before, what="a new driver for the edited SQL")
    wait_stream(developer_client, job["id"], _running, "the edited query to start")
    produce(lake.server, lake.key, events(30, 10))  # its first batch meets the checkpoint's state
    failed = wait_stream(developer_client, job["id"], _stopped, "the edited stream to fail")
    assert failed["status"] == "FAILED" and failed["restarts"] == 0  # no retries of what cannot work
    assert "cannot resume from its checkpoint" in failed["last_error"] and "reset" in failed["last_error"]
    assert "STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE" in failed["last_error"] and "Traceback" not in failed["last_error"]
    assert counted() == 30  # the sink kept what the first query wrote, nothing of the failed one

    # the way out the message gives: reset, and the edited query runs on a new checkpoint from the beginning
    _post(developer_client, job["id"], "reset", {"confirm": True})
    _post(developer_client, job["id"], "start")
    wait_stream(developer_client, job["id"], lambda s: _running(s) and s["latest"] is not None, "the reset stream")
    _post(developer_client, job["id"], "stop")
    wait_stream(developer_client, job["id"], _stopped, "the stop")


def test_a_running_stream_follows_its_owners_access_a_filter_restarts_it_a_revoke_fails_it(
    lake: Lake, streaming_job: Callable[..., dict[str, Any]], stream_workers: Callable[..., Worker],
    developer_client: APIClient, admin_client: APIClient,
) -> None:
    """The supervisor re-reads the owner's access document at each heartbeat: a new row filter on the source restarts
    the driver on its checkpoint with it (exactly once, the filter on what comes next); a revoke of SELECT fails the
    stream naming the privilege and the source, and nothing is written after it."""
    sink = lake.sink("out")
    source = f"events.default.{lake.key}"
    produce(lake.server, lake.key, events(0, 20))
    job = streaming_job(lake.script("out"))
    owner = SqlJob.objects.get(id=job["id"]).created_by.username
    grants = {}
    # a grant on another table keeps `events` governed once SELECT on the source is revoked (else: role defaults)
    for securable, privilege in ((source, "SELECT"), ("lake.db.out", "MODIFY"), ("events.default.other", "SELECT")):
        made = admin_client.post(f"{API}/grants/", {"securable": securable, "privilege": privilege,
                                                    "principal_type": "user", "principal": owner}, format="json")
        assert made.status_code == 201, made.content
        grants[securable] = made.json()["id"]
    worker = stream_workers("w1")
    _post(developer_client, job["id"], "start")
    wait_stream(developer_client, job["id"], _running, "the stream to run")
    _exact(sink, list(range(20)), "the events before any change")
    before = _drivers(worker)
    assert admin_client.post(f"{API}/row-filters/", {"table": source, "expression": "id < 30"},
                             format="json").status_code == 201
    wait_until(lambda: _drivers(worker) and _drivers(worker) != before, what="a new driver with the filter")
    restarted = wait_stream(developer_client, job["id"], _running, "the filtered stream to run")
    assert restarted["restarts"] == 0  # a restart for the new access, not a failure
    produce(lake.server, lake.key, events(20, 20))
    _exact(sink, list(range(30)), "the events after the filter, each once")
    assert admin_client.delete(f"{API}/grants/{grants[source]}/").status_code == 204
    failed = wait_stream(developer_client, job["id"], _stopped, "the stream to fail after the revoke")
    assert failed["status"] == "FAILED", failed
    assert "(rule: access)" in failed["last_error"] and f"SELECT on table '{source}'" in failed["last_error"], failed
    wait_until(lambda: not _drivers(worker), what="the driver to be gone")
    produce(lake.server, lake.key, events(40, 5))
    assert sink_ids(sink) == list(range(30))  # no driver reads them: nothing after the revoke
