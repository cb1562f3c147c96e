"""A supervised stream from NATS JetStream into PostgreSQL, through the public API and a real worker: start, rows
land once, stop, records published while it is stopped, start resumes on its checkpoint (the sink still exact:
no record twice, none lost), and the JDBC password never shows in the stream's state or metrics."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import nats
import psycopg
import pytest
from rest_framework.test import APIClient

from tests.conftest import PgDatabase
from tests.streaming.conftest import NATS_URL, nats_stream  # noqa: F401 - the shared fixture
from tests.streams.conftest import API, wait_stream
from tests.support.servers import wait_until
from tests.support.worker import Worker

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.spark]
PG_PASSWORD = "pg-Nats-Stream-5ecret"


def _publish(stream: str, ids: range) -> None:
    async def go() -> None:
        client = await nats.connect(NATS_URL, connect_timeout=5)
        js = client.jetstream()
        for i in ids:
            await js.publish(f"{stream}.in", json.dumps({"id": i, "room": "abc"[i % 3]}).encode())
        await client.close()

    asyncio.run(go())


def _ids(db: PgDatabase) -> list[int]:
    with psycopg.connect(db.dsn) as conn:
        return sorted(r[0] for r in conn.execute("SELECT id FROM shop.arrivals").fetchall())


def test_a_jetstream_to_postgresql_stream_resumes_exactly_once(
    admin_client: APIClient, developer_client: APIClient, viewer_client: APIClient, pg_source: PgDatabase,
    nats_stream: Callable[..., str], streaming_job: Callable[..., dict[str, Any]],  # noqa: F811
    stream_workers: Callable[..., Worker],
) -> None:
    with psycopg.connect(pg_source.dsn, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA shop")
        conn.execute("CREATE TABLE shop.arrivals (id bigint NOT NULL, room text NOT NULL)")
    stream = nats_stream([])
    _publish(stream, range(0, 20))
    bodies = [
        {"catalog_name": "bus", "catalog_type": "nats-jetstream", "configuration": {
            "servers": [NATS_URL], "max-records-per-batch": 8,
            "tables": {f"default.{stream}": {"columns": [{"name": "id", "type": "bigint"},
                                                          {"name": "room", "type": "string"}]}}}},
        {"catalog_name": "pg", "catalog_type": "jdbc", "configuration": {
            "type": "postgresql", "base-url": f"jdbc:postgresql://{pg_source.host}:{pg_source.port}/",
            "default-database": pg_source.name, "username": pg_source.user, "password": PG_PASSWORD}},
    ]
    for body in bodies:
        response = admin_client.post(f"{API}/catalogs/", body, format="json")
        assert response.status_code == 201, response.content
    job = streaming_job("SET spark.sql.shuffle.partitions = 2;\n"
                        f"INSERT INTO pg.shop.arrivals SELECT id, room FROM STREAM(bus.default.{stream})")
    stream_workers("w1")

    def act(action: str) -> None:
        response = developer_client.post(f"{API}/jobs/{job['id']}/stream/{action}/", {}, format="json")
        assert response.status_code == 202, response.content

    act("start")
    running = wait_stream(viewer_client, job["id"], lambda s: s["status"] == "RUNNING", "the stream to run")
    wait_until(lambda: _ids(pg_source) == list(range(20)), timeout=300, what="the first 20 records in PostgreSQL")
    act("stop")
    wait_stream(viewer_client, job["id"], lambda s: s["status"] == "STOPPED", "the stream to stop")

    _publish(stream, range(20, 35))  # while it is stopped
    act("start")
    resumed = wait_stream(viewer_client, job["id"], lambda s: s["status"] == "RUNNING", "the stream to resume")
    assert resumed["query_id"] == running["query_id"]  # the same checkpoint
    wait_until(lambda: len(_ids(pg_source)) >= 35, timeout=300, what="the 15 records published while stopped")
    act("stop")
    wait_stream(viewer_client, job["id"], lambda s: s["status"] == "STOPPED", "the second stop")
    assert _ids(pg_source) == list(range(35))  # each record once across the restart

    metrics = viewer_client.get(f"{API}/jobs/{job['id']}/stream/metrics/").json()["results"]
    assert sum(m["input_rows"] for m in metrics) >= 20 and max(m["input_rows"] for m in metrics) <= 8
    seen = json.dumps([metrics, viewer_client.get(f"{API}/jobs/{job['id']}/stream/").json()])
    assert PG_PASSWORD not in seen
