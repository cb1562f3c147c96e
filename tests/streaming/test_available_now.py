"""Trigger.AvailableNow on the Redis Streams and JetStream sources: a run reads what the stream held when it
started, in micro-batches of at most `max-records-per-batch`, each record once, and stops; records appended while
it runs (here from the sink of its first batch, so before Spark plans the second) are left to the next run on the
same checkpoint."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import nats
import pytest

from lakeport_engine.resolver import CatalogResolver
from lakeport_engine.store import CatalogEntry, InMemoryCatalogStore
from lakeport_engine.streaming.sources import stream_view
from tests.streaming.conftest import NATS_URL, RedisServer, columns

LIMIT = 4
COLUMNS = columns(("id", "bigint"))


def _records(first: int, n: int) -> list[dict[str, int]]:
    return [{"id": i} for i in range(first, first + n)]


def _publish(stream: str, records: list[dict[str, int]]) -> None:
    async def go() -> None:
        client = await nats.connect(NATS_URL, connect_timeout=5)
        js = client.jetstream()
        for record in records:
            await js.publish(f"{stream}.in", json.dumps(record).encode())
        await client.close()

    asyncio.run(go())


def _run(res: CatalogResolver, catalog: str, table: str, checkpoint: Path,
         on_first_batch: Callable[[], None] = lambda: None) -> list[list[int]]:
    """One AvailableNow run of the stream table; the ids of each micro-batch, in order."""
    batches: list[list[int]] = []

    def sink(batch: Any, batch_id: int) -> None:
        batches.append([r.id for r in batch.select("id").collect()])
        if len(batches) == 1:
            on_first_batch()

    query = (res.spark.table(stream_view(res, catalog, "default", table)).writeStream
             .foreachBatch(sink).option("checkpointLocation", str(checkpoint)).trigger(availableNow=True).start())
    query.awaitTermination()
    return batches


def _sizes(total: int, limit: int | None) -> list[int]:
    """The batch sizes of an AvailableNow run over `total` records: full batches of `limit`, then the rest."""
    if limit is None:
        return [total]
    return [min(limit, total - start) for start in range(0, total, limit)]


@pytest.fixture
def resolver(spark: Any) -> Callable[[CatalogEntry], CatalogResolver]:
    return lambda entry: CatalogResolver(spark.newSession(), InMemoryCatalogStore([entry], team="acme"), team="acme")


@pytest.mark.parametrize("limit", [LIMIT, None], ids=["limited", "unlimited"])
@pytest.mark.parametrize("source", ["redis-streams", "nats-jetstream"])
def test_an_available_now_run_reads_what_was_there_at_start_in_bounded_batches(
    source: str, limit: int | None, resolver: Callable[[CatalogEntry], CatalogResolver],
    redis_server: RedisServer, redis_stream: Callable[..., str], nats_stream: Callable[..., str], tmp_path: Path,
) -> None:
    first = _records(0, 3 * LIMIT + 2)  # three full batches and a partial one
    later = _records(len(first), LIMIT + 1)  # appended during the first run: two batches of the second
    if source == "redis-streams":
        table = redis_stream(first)
        conn = redis_server.client()
        config: dict[str, Any] = {"url": redis_server.url, "password": redis_server.password}

        def append() -> None:
            for record in later:
                conn.xadd(table, {"data": json.dumps(record)})
    else:
        table = nats_stream(first)
        config = {"servers": [NATS_URL]}

        def append() -> None:
            _publish(table, later)
    config["tables"] = {f"default.{table}": {"columns": COLUMNS}}
    if limit:
        config["max-records-per-batch"] = limit
    res = resolver(CatalogEntry("s", source, config))

    batches = _run(res, "s", table, tmp_path / "ck", on_first_batch=append)
    assert [len(b) for b in batches] == _sizes(len(first), limit)
    assert [i for b in batches for i in b] == [r["id"] for r in first]  # each once, in order, none appended later

    again = _run(res, "s", table, tmp_path / "ck")  # the same checkpoint: only what the first run left
    assert [len(b) for b in again] == _sizes(len(later), limit)
    assert [i for b in again for i in b] == [r["id"] for r in later]

    assert _run(res, "s", table, tmp_path / "ck") == []  # nothing new: the run plans no batch and stops
