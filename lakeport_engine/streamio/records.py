"""JSON records → rows of a declared schema, in the Python data source readers (Redis Streams, JetStream).

A record is a JSON object; missing fields are NULL, extra fields are ignored. `BatchParser` parses a chunk of
records at once into an Arrow record batch with pyarrow's JSON reader; a chunk that reader refuses (or might read
differently) is parsed record by record with the same rules, so results and error messages do not depend on the
path taken. A record that is not a JSON
object, or a field whose value does not fit its declared type, is malformed: the reader stops the micro-batch
with a `MalformedRecord` naming the stream and the record's offset (no dead-letter queue: the offsets are the
broker's, so after the record is fixed or deleted a restart reads exactly the remaining records).
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import re
from collections.abc import Callable, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.json as pa_json

Converter = Callable[[Any], Any]
_UTC = dt.UTC


class MalformedRecord(ValueError):
    """A record that does not fit the declared schema; the message names the stream, offset and column."""


def _string(v: Any) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, (dict, list)):
        return json.dumps(v, separators=(",", ":"))
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    raise TypeError


def _boolean(v: Any) -> bool:
    if isinstance(v, bool):
        return v
    raise TypeError


def _integer(bits: int) -> Converter:
    low, high = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1

    def convert(v: Any) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high:
            raise TypeError
        return int(v)

    return convert


def _floating(v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError
    return float(v)


def _decimal(v: Any) -> decimal.Decimal:
    if isinstance(v, bool) or not isinstance(v, (int, float, str)):
        raise TypeError
    try:
        return decimal.Decimal(str(v))
    except decimal.InvalidOperation:
        raise TypeError from None


def _timestamp(aware: bool) -> Converter:
    def convert(v: Any) -> dt.datetime:
        if isinstance(v, bool):
            raise TypeError
        if isinstance(v, (int, float)):  # epoch seconds, as Spark's JSON reader reads numbers
            value = dt.datetime.fromtimestamp(v, _UTC)
        elif isinstance(v, str):
            try:
                value = dt.datetime.fromisoformat(v.strip())
            except ValueError:
                raise TypeError from None
        else:
            raise TypeError
        if aware:
            return value if value.tzinfo is not None else value.replace(tzinfo=_UTC)  # no zone: UTC
        return value.replace(tzinfo=None) if value.tzinfo is None else value.astimezone(_UTC).replace(tzinfo=None)

    return convert


def _date(v: Any) -> dt.date:
    if not isinstance(v, str):
        raise TypeError
    try:
        return dt.date.fromisoformat(v.strip()[:10])
    except ValueError:
        raise TypeError from None


def converter(type_name: str) -> Converter:
    """The converter of one declared type (names as lakeport_engine.streamio.tables.normalize_type returns them)."""
    fixed: dict[str, Converter] = {
        "string": _string, "boolean": _boolean, "int": _integer(32), "bigint": _integer(64),
        "float": _floating, "double": _floating, "date": _date,
        "timestamp": _timestamp(True), "timestamp_ntz": _timestamp(False),
    }
    if type_name.startswith("decimal"):
        return _decimal
    return fixed[type_name]


class RecordParser:
    """Parses JSON records of one stream into tuples in the order of the declared columns."""

    def __init__(self, stream: str, columns: Sequence[tuple[str, str]]) -> None:
        self.stream = stream
        self._columns = [(name, type_name, converter(type_name)) for name, type_name in columns]

    def parse(self, payload: bytes | str, offset: str) -> tuple[Any, ...]:
        """One row from one record; MalformedRecord names the stream and `offset` (no record content)."""
        try:
            record = json.loads(payload)
        except (ValueError, UnicodeDecodeError):
            raise MalformedRecord(f"Stream {self.stream}: record {offset} is not valid JSON.") from None
        if not isinstance(record, dict):
            raise MalformedRecord(f"Stream {self.stream}: record {offset} is not a JSON object.")
        row: list[Any] = []
        for name, type_name, convert in self._columns:
            value = record.get(name)
            if value is None:
                row.append(None)
                continue
            try:
                row.append(convert(value))
            except (TypeError, ValueError, OverflowError, OSError):
                raise MalformedRecord(
                    f"Stream {self.stream}: record {offset} has field '{name}' that is not a {type_name} "
                    f"(JSON {type(value).__name__})."
                ) from None
        return tuple(row)


_FIXED_ARROW: dict[str, pa.DataType] = {
    "string": pa.string(), "boolean": pa.bool_(), "int": pa.int32(), "bigint": pa.int64(), "float": pa.float32(),
    "double": pa.float64(), "date": pa.date32(), "timestamp": pa.timestamp("us", tz="UTC"),
    "timestamp_ntz": pa.timestamp("us"),
}
# Types pyarrow's JSON reader parses exactly as RecordParser does (dates and decimals it reads differently).
_BULK_TYPES = frozenset(_FIXED_ARROW) - {"date"}


def arrow_type(type_name: str) -> pa.DataType:
    """The Arrow type Spark expects for a declared type (timestamps in microseconds, UTC)."""
    match = re.match(r"^decimal\((\d+),(\d+)\)$", type_name)
    if match:
        return pa.decimal128(int(match.group(1)), int(match.group(2)))
    return _FIXED_ARROW[type_name]


class BatchParser:
    """Parses chunks of JSON records of one stream into Arrow record batches of the declared columns."""

    def __init__(self, stream: str, columns: Sequence[tuple[str, str]]) -> None:
        self.rows = RecordParser(stream, columns)
        self.schema = pa.schema([(name, arrow_type(type_name)) for name, type_name in columns])
        self._bulk = all(type_name in _BULK_TYPES for _, type_name in columns)
        self._options = pa_json.ParseOptions(explicit_schema=self.schema, unexpected_field_behavior="ignore")

    @property
    def bulk(self) -> bool:
        """True when every declared type can go through pyarrow's JSON reader (`lines` may succeed)."""
        return self._bulk

    def lines(self, text: bytes, count: int) -> pa.RecordBatch | None:
        """The record batch of `count` records given as one JSON object per line, or None where pyarrow's reader
        refuses them or might read them differently (the caller then parses the records with `batch`)."""
        if not self._bulk or not count:
            return None
        try:
            table = pa_json.read_json(pa.BufferReader(text), parse_options=self._options,
                                      read_options=pa_json.ReadOptions(use_threads=False,
                                                                       block_size=max(len(text) + 1, 1 << 20)))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
            return None  # malformed, or a value only the record parser reads (epoch seconds, numbers as text)
        if table.num_rows != count:  # a blank record would vanish: not ours
            return None
        return _single_batch(table, self.schema)

    def batch(self, payloads: Sequence[bytes], offsets: Callable[[int], str]) -> pa.RecordBatch:
        """One record batch of `payloads`; `offsets(i)` names record i in a MalformedRecord."""
        if self._bulk and payloads:
            # JSON text has newlines only as whitespace, so records become lines without changing their meaning.
            text = b"\n".join(p.replace(b"\n", b" ").replace(b"\r", b" ") if b"\n" in p or b"\r" in p else p
                               for p in payloads)
            found = self.lines(text, len(payloads))
            if found is not None:
                return found
        rows = [self.rows.parse(payload, offsets(i)) for i, payload in enumerate(payloads)]
        columns = [pa.array([row[k] for row in rows], type=field.type) for k, field in enumerate(self.schema)]
        return pa.RecordBatch.from_arrays(columns, schema=self.schema)


def _single_batch(table: pa.Table, schema: pa.Schema) -> pa.RecordBatch:
    """The table's rows as one record batch of `schema`."""
    batches = table.select(schema.names).cast(schema).combine_chunks().to_batches()
    return batches[0] if batches else pa.RecordBatch.from_pylist([], schema=schema)
