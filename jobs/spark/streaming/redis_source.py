"""Redis Streams as a Spark streaming source (pyspark's Python Data Source API).

Offsets are Redis entry ids (`{"id": "<ms>-<seq>"}`): a micro-batch is the XRANGE `(start, end]`, so a query
restarted from its checkpoint reads exactly the entries it read before (unless they were trimmed or deleted).
Each entry carries its record as JSON in one field (`value-field`, default `data`); see records.py for the
parsing rules and the malformed-record behaviour. The password reaches the reader as the option `password`,
which Spark's redaction regex masks wherever it prints options.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import redis
from pyspark.sql.datasource import DataSource, DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadLimit, ReadMaxRows

from jobs.spark.streaming.records import RecordParser

FORMAT = "lakeport_redis_streams"
READ_CHUNK = 5000  # entries per XRANGE round trip


def client(url: str, password: str | None, timeout: float) -> redis.Redis:
    """A redis-py client for `url` (no password in it) with bounded connect and read times."""
    return redis.Redis.from_url(url, password=password or None, socket_connect_timeout=timeout,
                                socket_timeout=max(timeout, 30.0))


def _id(value: str | bytes) -> tuple[int, int]:
    text = value.decode() if isinstance(value, bytes) else value
    ms, _, seq = text.partition("-")
    return int(ms), int(seq or 0)


def last_entry_id(conn: redis.Redis, key: str) -> str | None:
    """The id of the stream's newest entry, or None when it is empty."""
    entries = conn.xrevrange(key, "+", "-", count=1)
    return entries[0][0].decode() if entries else None


def entry_rows(entries: Iterable[tuple[bytes, dict[bytes, bytes]]], stream: str, columns: Sequence[tuple[str, str]],
               value_field: str) -> Iterator[tuple[Any, ...]]:
    """Rows of XRANGE entries: the JSON in `value_field`, or else the entry's fields as a JSON object of strings."""
    parser = RecordParser(stream, columns)
    field = value_field.encode()
    for entry_id, fields in entries:
        payload = fields.get(field)
        if payload is None:
            payload = json.dumps({k.decode(errors="replace"): v.decode(errors="replace") for k, v in fields.items()})
        yield parser.parse(payload, f"entry {entry_id.decode()}")


@dataclass(frozen=True)
class EntryRange(InputPartition):
    """Entries with start < id ≤ end."""

    start: str
    end: str


class RedisStreamsDataSource(DataSource):
    """`spark.readStream.format("lakeport_redis_streams")` with options url, password, key, columns, stream."""

    @classmethod
    def name(cls) -> str:
        return FORMAT

    def schema(self) -> str:
        return ", ".join(f"`{n}` {t}" for n, t in json.loads(self.options["columns"]))

    def streamReader(self, schema: Any) -> DataSourceStreamReader:
        return RedisStreamReader(dict(self.options))


class RedisStreamReader(DataSourceStreamReader):
    """Reads one stream key between entry ids; the driver plans, one Python worker reads each range."""

    def __init__(self, options: dict[str, str]) -> None:
        self.url = options["url"]
        self.password = options.get("password") or None
        self.key = options["key"]
        self.stream = options.get("stream", self.key)
        self.value_field = options.get("value_field", "data")
        self.columns = [tuple(c) for c in json.loads(options["columns"])]
        self.start = options.get("start", "earliest")
        self.max_rows = int(options.get("max_records_per_batch") or 0)
        self.timeout = float(options.get("timeout", "10"))

    def _conn(self) -> redis.Redis:
        return client(self.url, self.password, self.timeout)

    def initialOffset(self) -> dict[str, str]:
        """The first query start: before the first entry (earliest) or at the newest entry (latest)."""
        if self.start == "latest":
            return {"id": last_entry_id(self._conn(), self.key) or "0-0"}
        return {"id": "0-0"}

    def getDefaultReadLimit(self) -> ReadLimit:
        return ReadMaxRows(self.max_rows) if self.max_rows > 0 else ReadAllAvailable()

    def latestOffset(self, start: dict[str, str], limit: ReadLimit) -> dict[str, str]:
        """The newest entry id, or the id `limit.maxRows` entries after `start`."""
        conn = self._conn()
        if isinstance(limit, ReadMaxRows):
            entries = conn.xrange(self.key, f"({start['id']}", "+", count=limit.max_rows)
            newest = entries[-1][0].decode() if entries else None
        else:
            newest = last_entry_id(conn, self.key)
        if newest is None or _id(newest) <= _id(start["id"]):
            return start
        return {"id": newest}

    def reportLatestOffset(self) -> dict[str, str] | None:
        newest = last_entry_id(self._conn(), self.key)
        return {"id": newest} if newest else None

    def partitions(self, start: dict[str, str], end: dict[str, str]) -> list[InputPartition]:
        if _id(end["id"]) <= _id(start["id"]):
            return []
        return [EntryRange(start["id"], end["id"])]

    def read(self, partition: InputPartition) -> Iterator[tuple[Any, ...]]:
        """The range's entries as rows, XRANGE by XRANGE."""
        assert isinstance(partition, EntryRange)
        conn = self._conn()
        after = partition.start
        while True:
            entries = conn.xrange(self.key, f"({after}", partition.end, count=READ_CHUNK)
            yield from entry_rows(entries, self.stream, self.columns, self.value_field)
            if len(entries) < READ_CHUNK:
                return
            after = entries[-1][0].decode()

    def commit(self, end: dict[str, str]) -> None:
        """Nothing to acknowledge: the stream keeps its entries (trim them with XTRIM or MAXLEN)."""
