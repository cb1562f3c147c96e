"""The Arrow batch parser of the Redis/JetStream readers gives the rows and the errors the record-by-record parser
gives, whichever path a chunk takes (pyarrow's JSON reader, or the fallback for what it refuses)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from lakeport_engine.streamio.records import BatchParser, MalformedRecord, RecordParser

COLUMNS = [("id", "bigint"), ("n", "int"), ("ts", "timestamp"), ("local", "timestamp_ntz"), ("who", "string"),
           ("ok", "boolean"), ("x", "double"), ("f", "float")]
RECORDS: list[Any] = [
    {"id": 1, "n": 2, "ts": "2026-01-01T00:00:01Z", "local": "2026-01-01 00:00:01", "who": "ann", "ok": True,
     "x": 1.5, "f": 2, "extra": [1, 2]},
    {"id": 2, "ts": "2026-01-01T02:00:01+02:00", "local": "2026-01-01T00:00:01+01:00", "x": 3},
    {},
    {"id": None, "ts": "2026-01-01", "who": "über \u2603"},
]
# values only the record parser reads (epoch seconds, numbers and objects as strings)
FALLBACK: list[Any] = [{"id": 3, "ts": 1767225601, "who": 5}, {"id": 4, "who": {"a": 1}, "ts": "2026-01-01T00:00"}]


def _payloads(records: list[Any]) -> list[bytes]:
    return [json.dumps(r).encode() for r in records]


@pytest.mark.parametrize("records", [RECORDS, FALLBACK, RECORDS + FALLBACK])
def test_batches_equal_the_record_parser_rows(records: list[Any]) -> None:
    rows = [RecordParser("s", COLUMNS).parse(p, f"entry {i}") for i, p in enumerate(_payloads(records))]
    batch = BatchParser("s", COLUMNS).batch(_payloads(records), lambda i: f"entry {i}")
    assert batch.schema.names == [c for c, _ in COLUMNS]
    assert [tuple(r.values()) for r in batch.to_pylist()] == rows


def test_a_pretty_printed_record_is_one_record() -> None:
    batch = BatchParser("s", COLUMNS).batch([json.dumps(RECORDS[0], indent=2).encode()], str)
    assert batch.num_rows == 1 and batch.to_pylist()[0]["who"] == "ann"


@pytest.mark.parametrize(("payload", "words"), [
    (b'{"id": "seven"}', "record entry 1 has field 'id' that is not a bigint (JSON str)"),
    (b'{"n": 3000000000}', "record entry 1 has field 'n' that is not a int"),
    (b"[1, 2]", "record entry 1 is not a JSON object"),
    (b"", "record entry 1 is not valid JSON"),
    (b'{"id": 1', "record entry 1 is not valid JSON"),
])
def test_malformed_records_are_named_by_offset(payload: bytes, words: str) -> None:
    with pytest.raises(MalformedRecord) as failure:
        BatchParser("orders", COLUMNS).batch([b'{"id": 1}', payload], lambda i: f"entry {i}")
    assert str(failure.value).startswith(f"Stream orders: {words}")
