"""Spark reads stream tables through `stream_view`: same records on a replay from the same offsets, malformed
records and unknown streams named, the password kept out of plans and confs."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lakeport_engine.resolver import CatalogResolver
from lakeport_engine.store import CatalogEntry, InMemoryCatalogStore
from lakeport_engine.streaming.sources import StreamSourceError, sample_rows, stream_view
from tests.streaming.conftest import NATS_URL, RedisServer, columns

ORDER_COLUMNS = columns(("id", "bigint"), ("ts", "timestamp"))


def _records(n: int, first: int = 0) -> list[dict[str, Any]]:
    return [{"id": i, "ts": f"2026-01-01T00:00:{i % 60:02d}Z"} for i in range(first, first + n)]


def _drain(spark: Any, view: str, checkpoint: Path, name: str) -> list[int]:
    """Run the view's query until everything available is read; the ids it read, in order."""
    seen: list[int] = []
    query = (spark.table(view).writeStream.queryName(name)
             .foreachBatch(lambda batch, _: seen.extend(r.id for r in batch.select("id").collect()))
             .option("checkpointLocation", str(checkpoint)).trigger(availableNow=True).start())
    query.awaitTermination()
    return seen


@pytest.fixture
def resolver(spark: Any) -> Callable[[list[CatalogEntry]], CatalogResolver]:
    def make(entries: list[CatalogEntry]) -> CatalogResolver:
        return CatalogResolver(spark.newSession(), InMemoryCatalogStore(entries, team="acme"), team="acme")

    return make


def test_redis_stream_replays_the_same_entries_and_refuses_bad_ones(
    spark: Any, resolver: Callable[..., CatalogResolver], redis_server: RedisServer,
    redis_stream: Callable[..., str], tmp_path: Path,
) -> None:
    key = redis_stream(_records(5))
    bad = redis_stream([{"id": 1, "ts": "2026-01-01T00:00:00Z"}, {"id": "not-a-number"}])
    config = {"url": redis_server.url, "password": redis_server.password,
              "tables": {f"default.{key}": {"columns": ORDER_COLUMNS, "event-time": "ts"},
                         f"default.{bad}": {"columns": ORDER_COLUMNS},
                         "default.missing": {"columns": ORDER_COLUMNS}}}
    res = resolver([CatalogEntry("r", "redis-streams", config)])

    view = stream_view(res, "r", "default", key)
    frame = res.spark.table(view)
    assert frame.isStreaming and frame.schema.simpleString() == "struct<id:bigint,ts:timestamp>"
    plan = frame._jdf.queryExecution().toString()
    assert redis_server.password not in plan and redis_server.password not in str(res.spark.conf.getAll)

    assert _drain(res.spark, view, tmp_path / "ck", "first") == [0, 1, 2, 3, 4]
    redis_server.client().xadd(key, {"data": json.dumps(_records(1, first=5)[0])})
    # the same checkpoint resumes after the last entry id it read: only the new entry
    assert _drain(res.spark, stream_view(res, "r", "default", key), tmp_path / "ck", "second") == [5]
    # a new checkpoint replays from the first entry: exactly the same records
    assert _drain(res.spark, stream_view(res, "r", "default", key), tmp_path / "ck2", "third") == [0, 1, 2, 3, 4, 5]
    assert [r.id for r in sample_rows(res, "r", "default", key, 2).collect()] == [4, 5]

    with pytest.raises(Exception) as failure:
        _drain(res.spark, stream_view(res, "r", "default", bad), tmp_path / "ck3", "bad")
    assert f"'{bad}'" in str(failure.value) and "field 'id' that is not a bigint" in str(failure.value)
    assert redis_server.password not in str(failure.value)

    with pytest.raises(StreamSourceError, match="there is no stream 'missing'"):
        stream_view(res, "r", "default", "missing")
    with pytest.raises(StreamSourceError, match="has no declared schema"):
        stream_view(res, "r", "default", "undeclared")


def test_jetstream_replays_by_sequence_and_files_and_non_stream_types(
    spark: Any, resolver: Callable[..., CatalogResolver], nats_stream: Callable[..., str], tmp_path: Path,
) -> None:
    name = nats_stream(_records(4))
    landing = tmp_path / "files" / "landing" / "clicks"
    landing.mkdir(parents=True)
    (landing / "a.json").write_text("".join(json.dumps(r) + "\n" for r in _records(3)))
    res = resolver([
        CatalogEntry("n", "nats-jetstream", {"servers": [NATS_URL],
                                             "tables": {f"default.{name}": {"columns": ORDER_COLUMNS},
                                                        f"default.X{name}": {"columns": ORDER_COLUMNS}}}),
        CatalogEntry("f", "files", {"root": str(tmp_path / "files"),
                                    "tables": {"landing.clicks": {"columns": ORDER_COLUMNS}}}),
        CatalogEntry("pg", "jdbc", {"type": "postgresql", "base-url": "jdbc:postgresql://127.0.0.1:1/"}),
    ])
    assert _drain(res.spark, stream_view(res, "n", "default", name), tmp_path / "n1", "n1") == [0, 1, 2, 3]
    assert _drain(res.spark, stream_view(res, "n", "default", name), tmp_path / "n2", "n2") == [0, 1, 2, 3]
    assert [r.id for r in sample_rows(res, "n", "default", name, 2).collect()] == [2, 3]
    assert sorted(_drain(res.spark, stream_view(res, "f", "landing", "clicks"), tmp_path / "f1", "f1")) == [0, 1, 2]

    with pytest.raises(StreamSourceError, match="there is no JetStream stream"):
        stream_view(res, "n", "default", f"X{name}")
    with pytest.raises(StreamSourceError, match="jdbc catalog, which cannot be read as a stream"):
        stream_view(res, "pg", "public", "t")


def test_a_second_session_streams_while_another_is_the_active_one(
    spark: Any, resolver: Callable[..., CatalogResolver], redis_server: RedisServer,
    redis_stream: Callable[..., str], tmp_path: Path,
) -> None:
    # An engine runs each script in its own session: Spark refused to register a Python data source in a new
    # session when the active session already had it (DATA_SOURCE_ALREADY_EXISTS).
    key = redis_stream(_records(2))
    config = {"url": redis_server.url, "password": redis_server.password,
              "tables": {f"default.{key}": {"columns": ORDER_COLUMNS}}}
    first = resolver([CatalogEntry("r", "redis-streams", config)])
    stream_view(first, "r", "default", key)
    first.spark._jvm.org.apache.spark.sql.SparkSession.setActiveSession(first.spark._jsparkSession)
    second = resolver([CatalogEntry("r", "redis-streams", config)])
    assert _drain(second.spark, stream_view(second, "r", "default", key), tmp_path / "ck", "second_session") == [0, 1]
