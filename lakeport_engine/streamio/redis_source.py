"""Redis Streams as a Spark streaming source (pyspark's Python Data Source API).

Offsets are Redis entry ids (`{"id": "<ms>-<seq>", "n": <entries added up to it>}`): a micro-batch is the XRANGE
`(start, end]`, so a query restarted from its checkpoint reads exactly the entries it read before (unless they were
trimmed or deleted). `n` counts entries as Redis does (`XINFO STREAM` `entries-added`, Redis ≥ 7.0), so a batch's lag
is the latest offset's `n` minus its end's: entries added and not yet read (a checkpoint from before `n` existed, or
an older Redis, reports no lag, as before).
Under Trigger.AvailableNow the reader pins the newest entry id when the run starts and plans batches of at most
`max_records_per_batch` entries up to it, so a run reads what the stream held at its start and nothing added later.
Each entry carries its record as JSON in one field (`value-field`, default `data`); see records.py for the
parsing rules and the malformed-record behaviour. The password reaches the reader as the option `password`,
which Spark's redaction regex masks wherever it prints options.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import redis
from pyspark.sql.datasource import DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadLimit, ReadMaxRows, SupportsTriggerAvailableNow

from lakeport_engine.catalog_types.redis_streams import Entries, entries_of
from lakeport_engine.streamio.record_source import RecordSource, declared_columns
from lakeport_engine.streamio.records import BatchParser, RecordParser

FORMAT = "lakeport_redis_streams"
READ_CHUNK = 5_000  # entries per round trip and per Arrow record batch (a script call holds Redis ~8 ms)
MAX_SEQ = 2**64 - 1  # the largest sequence part of an entry id
# The id of the COUNT-th entry after a start, found by Redis itself: no entry crosses the network to plan a batch.
_NTH_ID = """local r = redis.call('XRANGE', KEYS[1], ARGV[1], '+', 'COUNT', ARGV[2])
if #r == 0 then return false end
return {r[#r][1], #r}"""
# One XRANGE chunk's records joined by newlines inside Redis: the reply is one string instead of an element per
# entry and field, which redis-py would parse in Python (5× the time of parsing the JSON itself). No text when an
# entry lacks the value field or holds a line break: such a chunk is read with XRANGE and parsed record by record.
# The last value of a repeated field wins, as in redis-py's reply dict.
_CHUNK = """local r = redis.call('XRANGE', KEYS[1], ARGV[1], ARGV[2], 'COUNT', ARGV[3])
if #r == 0 then return {0} end
local out = {}
for i, e in ipairs(r) do
  local kv, v = e[2], nil
  for j = 1, #kv, 2 do
    if kv[j] == ARGV[4] then v = kv[j + 1] end
  end
  if v == nil or string.find(v, '[\\r\\n]') then return {#r, r[#r][1]} end
  out[i] = v
end
return {#r, r[#r][1], table.concat(out, '\\n')}"""


def client(url: str, password: str | None, timeout: float) -> redis.Redis:
    """A redis-py client for `url` (no password in it) with bounded connect and read times."""
    return redis.Redis.from_url(url, password=password or None, socket_connect_timeout=timeout,
                                socket_timeout=max(timeout, 30.0))


def _id(value: str | bytes) -> tuple[int, int]:
    text = value.decode() if isinstance(value, bytes) else value
    ms, _, seq = text.partition("-")
    return int(ms), int(seq or 0)


def nth_entry_id(conn: redis.Redis, key: str, after: str, count: int) -> tuple[str, int] | None:
    """The id of the `count`-th entry after `after` (or of the last one, if fewer) and how many entries that is;
    None when there is none."""
    try:
        found = conn.eval(_NTH_ID, 1, key, f"({after}", count)
    except redis.ResponseError:  # scripting refused (ACL, a proxy): read the entries instead
        entries = entries_of(conn.xrange(key, f"({after}", "+", count=count))
        return (entries[-1][0].decode(), len(entries)) if entries else None
    if not found:
        return None
    entry_id, taken = found
    return (entry_id.decode() if isinstance(entry_id, bytes) else str(entry_id)), int(taken)


def stream_position(conn: redis.Redis, key: str) -> tuple[str, int | None]:
    """The stream's last generated entry id and the entries ever added to it (None before Redis 7.0);
    ("0-0", 0) for a stream that does not exist yet."""
    try:
        info = conn.xinfo_stream(key)
    except redis.ResponseError:  # no such key (yet)
        return "0-0", 0
    last = info.get("last-generated-id") or "0-0"
    added = info.get("entries-added")
    return (last.decode() if isinstance(last, bytes) else str(last)), (int(added) if added is not None else None)


def _offset(entry_id: str, added: int | None) -> dict[str, Any]:
    """An offset: the entry id, and the entries added up to it when that count is known."""
    return {"id": entry_id} if added is None else {"id": entry_id, "n": added}


def payloads(entries: Sequence[tuple[bytes, dict[bytes, bytes]]], field: bytes) -> list[bytes]:
    """Each entry's record: the JSON in `field`, or else the entry's fields as a JSON object of strings."""
    found = []
    for _id, fields in entries:
        payload = fields.get(field)
        if payload is None:
            payload = json.dumps({k.decode(errors="replace"): v.decode(errors="replace")
                                  for k, v in fields.items()}).encode()
        found.append(payload)
    return found


def split_range(start: str, end: str, parts: int, first_ms: int | None = None) -> list[tuple[str, str]]:
    """`(start, end]` cut into up to `parts` consecutive id ranges at millisecond boundaries between `first_ms`
    (the first entry's time, if known) and the end. The ranges always cover `(start, end]` exactly, wherever the
    cuts fall, so how the work is divided never changes which entries a batch holds."""
    first, last = max(_id(start)[0], first_ms or 0), _id(end)[0]
    parts = max(1, min(parts, last - first))
    cuts = [f"{first + (last - first) * k // parts}-{MAX_SEQ}" for k in range(1, parts)]
    bounds = [start, *cuts, end]
    return [(a, b) for a, b in zip(bounds, bounds[1:], strict=False) if _id(a) < _id(b)]


def entry_rows(entries: Iterable[tuple[bytes, dict[bytes, bytes]]], stream: str, columns: Sequence[tuple[str, str]],
               value_field: str) -> Iterator[tuple[Any, ...]]:
    """Rows of XRANGE entries: the JSON in `value_field`, or else the entry's fields as a JSON object of strings."""
    parser = RecordParser(stream, columns)
    field = value_field.encode()
    for entry_id, fields in entries:
        payload: bytes | str | None = fields.get(field)
        if payload is None:
            payload = json.dumps({k.decode(errors="replace"): v.decode(errors="replace") for k, v in fields.items()})
        yield parser.parse(payload, f"entry {entry_id.decode()}")


@dataclass(frozen=True)
class EntryRange(InputPartition):
    """Entries with start < id ≤ end."""

    start: str
    end: str


class RedisStreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """Reads one stream key between entry ids; the driver plans, one Python worker reads each range."""

    def __init__(self, options: dict[str, str]) -> None:
        self.url = options["url"]
        self.password = options.get("password") or None
        self.key = options["key"]
        self.stream = options.get("stream", self.key)
        self.value_field = options.get("value_field", "data")
        self.columns = declared_columns(options["columns"])
        self.start = options.get("start", "earliest")
        self.max_rows = int(options.get("max_records_per_batch") or 0)
        self.timeout = float(options.get("timeout", "10"))
        self.splits = int(options.get("read_partitions") or 2)
        self.target: str | None = None  # an AvailableNow run's last entry id, pinned when it starts
        self.target_added: int | None = None  # the entries added up to it

    def _conn(self) -> redis.Redis:
        return client(self.url, self.password, self.timeout)

    def initialOffset(self) -> dict[str, Any]:
        """The first query start: before the first entry (earliest) or at the newest entry (latest)."""
        if self.start == "latest":
            return _offset(*stream_position(self._conn(), self.key))
        return {"id": "0-0", "n": 0}

    def getDefaultReadLimit(self) -> ReadLimit:
        return ReadMaxRows(self.max_rows) if self.max_rows > 0 else ReadAllAvailable()

    def prepareForTriggerAvailableNow(self) -> None:
        """Pin this run's end at the newest entry id now: later entries get larger ids, so none of them is read."""
        self.target, self.target_added = stream_position(self._conn(), self.key)

    def latestOffset(self, start: dict[str, Any], limit: ReadLimit) -> dict[str, Any]:
        """The newest entry id, or the id `limit.maxRows` entries after `start`; never past an AvailableNow target."""
        if self.target is not None and _id(self.target) <= _id(start["id"]):
            return start  # the run has read everything up to its target: Spark ends it
        conn = self._conn()
        known = start.get("n")
        if isinstance(limit, ReadMaxRows):
            nth = nth_entry_id(conn, self.key, start["id"], limit.max_rows)
            if nth is None:
                return start
            newest, added = nth[0], (int(known) + nth[1] if known is not None else None)
        elif self.target is not None:
            newest, added = self.target, self.target_added
        else:
            newest, added = stream_position(conn, self.key)
        if _id(newest) <= _id(start["id"]):
            return start
        if self.target is not None and _id(newest) > _id(self.target):
            newest, added = self.target, self.target_added
        return _offset(newest, added if known is not None else None)

    def reportLatestOffset(self) -> dict[str, Any] | None:
        newest, added = stream_position(self._conn(), self.key)
        return _offset(newest, added) if newest != "0-0" else None

    def partitions(self, start: dict[str, str], end: dict[str, str]) -> list[InputPartition]:
        if _id(end["id"]) <= _id(start["id"]):
            return []
        first_ms = None
        if self.splits > 1:  # from the first entry on: an initial offset of 0-0 would put every cut before it
            head = entries_of(self._conn().xrange(self.key, f"({start['id']}", end["id"], count=1))
            first_ms = _id(head[0][0])[0] if head else None
        return [EntryRange(a, b) for a, b in split_range(start["id"], end["id"], self.splits, first_ms)]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        """The range's entries as Arrow record batches, one per chunk of READ_CHUNK entries.

        A chunk comes as one newline-joined text from a Lua script (`_CHUNK`) and goes through pyarrow's JSON
        reader. A chunk that path cannot take (an entry without the value field or with a line break, a record
        pyarrow refuses or might read differently, scripting refused) is read with XRANGE up to the same last id
        and parsed by `BatchParser.batch`, so the rows and the malformed-record errors do not depend on the path."""
        assert isinstance(partition, EntryRange)
        conn = self._conn()
        parser = BatchParser(self.stream, self.columns)
        field = self.value_field.encode()
        script = conn.register_script(_CHUNK) if parser.bulk else None
        after = partition.start
        while True:
            count, last, batch = 0, None, None
            if script is not None:
                try:
                    reply = script(keys=[self.key], args=[f"({after}", partition.end, READ_CHUNK, field])
                except redis.ResponseError:  # scripting refused (ACL, a proxy): XRANGE from here on
                    script = None
                else:
                    count = int(reply[0])
                    if not count:
                        return
                    last = reply[1].decode()
                    batch = parser.lines(reply[2], count) if len(reply) > 2 else None
            if batch is None:
                entries = entries_of(conn.xrange(self.key, f"({after}", last or partition.end, count=READ_CHUNK))
                if last is None:  # no script: this read decides where the chunk ends
                    count, last = len(entries), entries[-1][0].decode() if entries else None
                if entries:
                    batch = parser.batch(payloads(entries, field), _entry_label(entries))
            if batch is not None:
                yield batch
            if count < READ_CHUNK or last is None:
                return
            after = last

    def commit(self, end: dict[str, str]) -> None:
        """Nothing to acknowledge: the stream keeps its entries (trim them with XTRIM or MAXLEN)."""


def _entry_label(entries: Entries) -> Callable[[int], str]:
    """Names the i-th entry of a chunk in a malformed-record message."""
    return lambda i: f"entry {entries[i][0].decode()}"


class RedisStreamsDataSource(RecordSource):
    """`spark.readStream.format("lakeport_redis_streams")` with options url, password, key, columns, stream."""

    FORMAT = FORMAT
    READER = RedisStreamReader
