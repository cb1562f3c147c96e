"""JSON records → rows of a declared schema, in the Python data source readers (Redis Streams, JetStream).

A record is a JSON object; missing fields are NULL, extra fields are ignored. A record that is not a JSON
object, or a field whose value does not fit its declared type, is malformed: the reader stops the micro-batch
with a `MalformedRecord` naming the stream and the record's offset (no dead-letter queue: the offsets are the
broker's, so after the record is fixed or deleted a restart reads exactly the remaining records).
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
from collections.abc import Callable, Sequence
from typing import Any

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
        return v

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
    """The converter of one declared type (names as jobs.spark.streaming.tables.normalize_type returns them)."""
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
