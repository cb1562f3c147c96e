"""Fixtures of streaming-job tests: a Redis Streams catalog (the append-only Redis of tests/streaming), a Delta
catalog whose sink tables delta-rs reads back, streaming jobs made through the API, and real Celery workers with
short lease, heartbeat, tick and backoff timings."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import deltalake
import pyarrow as pa
import pytest
from rest_framework.test import APIClient

from jobs.models import SqlJob
from streams.models import StreamState
from tests.jobs.conftest import flush_broker
from tests.streaming.conftest import RedisServer, redis_server, redis_stream  # noqa: F401 - shared fixtures
from tests.support.servers import wait_until
from tests.support.worker import WORKER_SPARK, Worker, spawn_worker, worker_env

API = "/api/v1/teams/acme"
EVENT_COLUMNS = [{"name": "id", "type": "bigint"}, {"name": "room", "type": "string"},
                 {"name": "ts", "type": "timestamp"}]
SINK_SCHEMA = pa.schema([("id", pa.int64()), ("room", pa.string())])
# Short supervision timings (production: lease 30 s, heartbeat 3 s, tick 10 s, backoff 2 s).
FAST_STREAMS = {
    "LAKEPORT_STREAM_LEASE_SECONDS": "8", "LAKEPORT_STREAM_HEARTBEAT_SECONDS": "1",
    "LAKEPORT_STREAM_TICK_SECONDS": "2", "LAKEPORT_STREAM_RESTART_BACKOFF_SECONDS": "1",
    "LAKEPORT_STREAM_RESTART_BACKOFF_MAX_SECONDS": "4",
}


def events(first: int, count: int) -> list[dict[str, Any]]:
    """`count` events with ids from `first`."""
    return [{"id": i, "room": "abc"[i % 3], "ts": f"2026-01-01T00:{(i // 60) % 60:02d}:{i % 60:02d}Z"}
            for i in range(first, first + count)]


def produce(server: RedisServer, key: str, records: list[dict[str, Any]]) -> None:
    conn = server.client()
    for record in records:
        conn.xadd(key, {"data": json.dumps(record)})


def sink_ids(path: str) -> list[int]:
    """The ids in the Delta sink as delta-rs reads them, sorted (duplicates kept)."""
    try:
        table = deltalake.DeltaTable(path).to_pyarrow_table()
    except Exception:  # noqa: BLE001 - not created yet
        return []
    return sorted(table.column("id").to_pylist())


def stream(client: APIClient, job_id: int) -> dict[str, Any]:
    response = client.get(f"{API}/jobs/{job_id}/stream/")
    assert response.status_code == 200, response.content
    return response.json()


def wait_stream(client: APIClient, job_id: int, predicate: Callable[[dict[str, Any]], bool], what: str,
                timeout: float = 300.0) -> dict[str, Any]:
    """Poll the stream through the API until `predicate(state)` holds."""
    seen: dict[str, Any] = {}

    def check() -> bool:
        seen.update(stream(client, job_id))
        return predicate(seen)

    try:
        wait_until(check, timeout=timeout, interval=0.5, what=what)
    except AssertionError:
        raise AssertionError(f"gave up waiting for {what}; last state {seen}") from None
    return dict(seen)


class Lake:
    """Team acme's catalogs: `events` (Redis Streams, one declared stream per test) and `lake` (Delta)."""

    def __init__(self, server: RedisServer, warehouse: Path, key: str) -> None:
        self.server = server
        self.warehouse = warehouse
        self.key = key

    def sink(self, table: str) -> str:
        """An empty Delta sink table lake.db.<table>; its path."""
        path = self.warehouse / "db" / table
        deltalake.write_deltalake(str(path), SINK_SCHEMA.empty_table())
        return str(path)

    def script(self, table: str, *, source: str | None = None) -> str:
        """A streaming script copying the events into lake.db.<table>."""
        return ("SET spark.sql.shuffle.partitions = 2;\n"
                f"INSERT INTO lake.db.{table} SELECT id, room FROM STREAM(events.default.{source or self.key})")


class Producer(threading.Thread):
    """Adds 5 events to the lake's stream every 0.5 s until finished."""

    def __init__(self, source: Lake, first: int) -> None:
        super().__init__(daemon=True)
        self.lake, self.next = source, first
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.wait(0.5):
            produce(self.lake.server, self.lake.key, events(self.next, 5))
            self.next += 5

    def finish(self) -> int:
        """Stop producing; the number of events produced."""
        self.stopped.set()
        self.join()
        return self.next


@pytest.fixture
def lake(admin_client: APIClient, redis_server: RedisServer, tmp_path: Path) -> Lake:  # noqa: F811
    key = f"ev{tmp_path.name[-6:].replace('_', '')}"
    redis_server.client().delete(key)
    warehouse = tmp_path / "warehouse"
    warehouse.mkdir()
    warehouse.chmod(0o777)  # the engine writes the Delta files (as the engine user when the platform is root)
    bodies = [
        {"catalog_name": "events", "catalog_type": "redis-streams", "configuration": {
            "url": redis_server.url, "password": redis_server.password, "max-records-per-batch": 100,
            "tables": {f"default.{key}": {"columns": EVENT_COLUMNS, "event-time": "ts"}}}},
        {"catalog_name": "lake", "catalog_type": "delta", "configuration": {"warehouse": str(warehouse)}},
    ]
    for body in bodies:
        response = admin_client.post(f"{API}/catalogs/", body, format="json")
        assert response.status_code == 201, response.content
    return Lake(redis_server, warehouse, key)


# Catalogs of team acme that streams started without a worker read from and write to: a start checks that the
# statement's catalogs exist (streams/services/statement.py); nothing ever connects to them.
STREAM_CATALOGS = [
    {"catalog_name": "events", "catalog_type": "redis-streams", "configuration": {
        "url": "redis://127.0.0.1:1/0", "tables": {"default.clicks": {"columns": EVENT_COLUMNS, "event-time": "ts"}}}},
    {"catalog_name": "lake", "catalog_type": "delta", "configuration": {"warehouse": "/tmp/lakeport-never-written"}},
]


@pytest.fixture
def stream_catalogs(admin_client: APIClient) -> None:
    """Team acme's `events` (Redis Streams) and `lake` (Delta) catalogs, made through the API, never connected to."""
    for body in STREAM_CATALOGS:
        response = admin_client.post(f"{API}/catalogs/", body, format="json")
        assert response.status_code == 201, response.content


@pytest.fixture
def streaming_job(developer_client: APIClient) -> Callable[..., dict[str, Any]]:
    """`streaming_job(sql)` → a streaming job created through the API."""
    counter = iter(range(1, 1000))

    def make(sql: str, **fields: Any) -> dict[str, Any]:
        body = {"name": f"stream {next(counter)}", "sql": sql, "kind": "streaming", **fields}
        response = developer_client.post(f"{API}/jobs/", body, format="json")
        assert response.status_code == 201, response.content
        return response.json()

    return make


def start_stream_worker(logdir: Path, *, name: str, checkpoints: Path, beat: bool = True,
                        extra: dict[str, str] | None = None) -> Worker:
    """A worker (threads pool) and optionally beat with the fast stream timings."""
    env = worker_env({**WORKER_SPARK, **FAST_STREAMS, "LAKEPORT_STREAM_CHECKPOINT_DIR": str(checkpoints),
                      **(extra or {})})
    return spawn_worker(env, logdir, hostname=f"{name}@%h", beat=beat, concurrency=2, prefix=f"{name}-")


@pytest.fixture
def checkpoints(tmp_path: Path) -> Path:
    return tmp_path / "checkpoints"


@pytest.fixture
def stream_workers(tmp_path: Path, checkpoints: Path) -> Iterator[Callable[..., Worker]]:
    """`stream_workers(name, beat=True)` → a started worker; every one is stopped after the test, and every
    stream left running is stopped first so no driver outlives the test."""
    flush_broker()
    started: list[Worker] = []

    def start(name: str = "streams", **options: Any) -> Worker:
        worker = start_stream_worker(tmp_path / "logs", name=name, checkpoints=checkpoints, **options)
        started.append(worker)
        return worker

    yield start
    StreamState.objects.update(desired="stopped")
    for worker in started:
        with contextlib.suppress(Exception):
            worker.stop()


def job_model(job_id: int) -> SqlJob:
    return SqlJob.objects.get(id=job_id)
