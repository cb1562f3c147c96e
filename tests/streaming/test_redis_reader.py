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
