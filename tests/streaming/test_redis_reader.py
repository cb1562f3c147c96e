"""The Redis Streams reader gives the same rows and the same malformed-record errors whether a chunk comes
through its Lua script (one newline-joined text per chunk) or through XRANGE (scripting refused, an entry without
the value field or with a line break, values only the record parser reads), across chunk boundaries."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from pyspark.sql.streaming.datasource import ReadAllAvailable

from lakeport_engine.streamio import redis_source
from lakeport_engine.streamio.records import MalformedRecord
from lakeport_engine.streamio.redis_source import RedisStreamReader, entry_rows
from tests.streaming.conftest import RedisServer
from tests.support.secrets import register_secret

COLUMNS = [("id", "bigint"), ("ts", "timestamp"), ("who", "string")]


def _reader(url: str, password: str, key: str) -> RedisStreamReader:
    return RedisStreamReader({"url": url, "password": password, "key": key, "stream": key,
                              "columns": json.dumps(COLUMNS)})


def _rows(reader: RedisStreamReader) -> list[tuple[Any, ...]]:
    """Every row of the stream, read as a query's first micro-batch reads it (planned ranges, then read)."""
    start = reader.initialOffset()
    end = reader.latestOffset(start, ReadAllAvailable())
    return [tuple(row.values()) for part in reader.partitions(start, end)
            for batch in reader.read(part) for row in batch.to_pylist()]


def _script_calls(conn: redis.Redis) -> int:
    return int(conn.info("commandstats").get("cmdstat_evalsha", {}).get("calls", 0))


def _add(conn: redis.Redis, key: str, entries: list[dict[str, Any]]) -> list[str]:
    return [conn.xadd(key, fields).decode() for fields in entries]


@pytest.fixture
def no_scripting(redis_server: RedisServer) -> Iterator[tuple[str, str]]:
    """(url, password) of a user of the test Redis who may read streams but not run scripts."""
    conn, password = redis_server.client(), "ns-" + secrets.token_hex(8)
    register_secret(password)
    conn.acl_setuser("lp_noscript", enabled=True, passwords=[f"+{password}"], keys=["*"],
                     categories=["+@all", "-@scripting"])
    yield f"redis://lp_noscript@127.0.0.1:{redis_server.port}/0", password
    conn.acl_deluser("lp_noscript")


def test_script_chunks_and_xrange_chunks_give_the_record_parser_rows(
    redis_server: RedisServer, no_scripting: tuple[str, str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(redis_source, "READ_CHUNK", 4)
    conn = redis_server.client()
    plain, mixed = f"plain{secrets.token_hex(4)}", f"mixed{secrets.token_hex(4)}"
    _add(conn, plain, [{"data": json.dumps({"id": i, "ts": "2026-01-01T00:00:01Z", "who": f"w{i}"})}
                       for i in range(8)])  # two full chunks: the third script call finds nothing
    _add(conn, mixed, [
        *[{"data": json.dumps({"id": i, "who": "ünï \u2603", "extra": [1]})} for i in range(5)],
        {"data": json.dumps({"id": 5, "ts": "2026-01-01T00:00:05+02:00"}, indent=1)},  # line breaks
        {"who": "no data field", "other": "x"},  # the entry's fields as the record
        {"data": json.dumps({"id": 7, "ts": 1767225601})},  # epoch seconds: the record parser's
        *[{"data": json.dumps({"id": i, "ts": "2026-01-01"})} for i in range(8, 11)],
    ])
    for key in (plain, mixed):
        expected = list(entry_rows(conn.xrange(key), key, COLUMNS, "data"))
        before = _script_calls(conn)
        assert _rows(_reader(redis_server.url, redis_server.password, key)) == expected
        assert _script_calls(conn) > before  # the chunks went through the script
        assert _rows(_reader(*no_scripting, key)) == expected
    assert len(expected) == 11 and expected[6] == (None, None, "no data field")


def test_a_malformed_record_in_a_script_chunk_is_named_by_its_entry_id(
    redis_server: RedisServer, no_scripting: tuple[str, str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(redis_source, "READ_CHUNK", 4)
    conn = redis_server.client()
    key = f"bad{secrets.token_hex(4)}"
    ids = _add(conn, key, [{"data": json.dumps({"id": i})} for i in range(5)] + [{"data": '{"id": "seven"}'}])
    for url, password in ((redis_server.url, redis_server.password), no_scripting):
        with pytest.raises(MalformedRecord) as failure:
            _rows(_reader(url, password, key))
        assert str(failure.value) == (f"Stream {key}: record entry {ids[5]} has field 'id' that is not a bigint "
                                      "(JSON str).")


def _lag(end: dict[str, Any], latest: dict[str, Any] | None) -> int | None:
    """The lag a batch event reports for a Redis source, from the offsets as Spark's progress carries them."""
    from lakeport_engine.streaming.events import batch_event

    progress = {"batchId": 0, "sources": [{"description": "redis", "endOffset": json.dumps(end),
                                           "latestOffset": json.dumps(latest) if latest else None}]}
    return batch_event(progress)["sources"][0]["lag"]


@pytest.mark.parametrize("scripting", [True, False], ids=["script", "no-scripting"])
def test_a_batch_reports_how_many_entries_it_is_behind_the_stream(
    redis_server: RedisServer, no_scripting: tuple[str, str], scripting: bool,
) -> None:
    """Issue 36: lag for Redis Streams sources (it was always null), counted by Redis itself (`entries-added`), also
    across deleted entries, with a rows limit, under AvailableNow, and for a `latest` start."""
    from pyspark.sql.streaming.datasource import ReadMaxRows

    conn = redis_server.client()
    key = f"lag{secrets.token_hex(4)}"
    url, password = (redis_server.url, redis_server.password) if scripting else no_scripting
    reader = _reader(url, password, key)
    assert reader.reportLatestOffset() is None  # no stream yet: nothing to be behind
    ids = _add(conn, key, [{"data": json.dumps({"id": i})} for i in range(10)])

    start = reader.initialOffset()
    first = reader.latestOffset(start, ReadMaxRows(4))  # a rows limit: the 4th entry
    assert first["id"] == ids[3]
    assert _lag(first, reader.reportLatestOffset()) == 6
    conn.xdel(key, ids[5])  # a deleted entry was still added: the reader skips it, the count keeps it
    second = reader.latestOffset(first, ReadMaxRows(4))
    assert second["id"] == ids[8]  # the 4 entries after ids[3] that exist: 4, 6, 7, 8
    rest = reader.latestOffset(second, ReadAllAvailable())
    assert rest["id"] == ids[9] and _lag(rest, reader.reportLatestOffset()) == 0
    _add(conn, key, [{"data": json.dumps({"id": i})} for i in range(10, 13)])
    assert _lag(rest, reader.reportLatestOffset()) == 3

    pinned = _reader(url, password, key)  # AvailableNow: the run's end is pinned with its count
    pinned.prepareForTriggerAvailableNow()
    _add(conn, key, [{"data": json.dumps({"id": 13})}])
    end = pinned.latestOffset(pinned.initialOffset(), ReadAllAvailable())
    assert _lag(end, pinned.reportLatestOffset()) == 1  # the entry added after the run started

    latest = RedisStreamReader({"url": url, "password": password, "key": key, "stream": key, "start": "latest",
                                "columns": json.dumps(COLUMNS)})
    assert _lag(latest.initialOffset(), latest.reportLatestOffset()) == 0
    old_checkpoint = {"id": ids[3]}  # an offset written before offsets counted entries: no lag, as before
    assert "n" not in latest.latestOffset(old_checkpoint, ReadAllAvailable())
    assert _lag(latest.latestOffset(old_checkpoint, ReadAllAvailable()), latest.reportLatestOffset()) is None
