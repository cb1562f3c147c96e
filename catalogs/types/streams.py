"""What the stream catalog types (redis-streams, nats-jetstream, files) share: declared tables in the
configuration, and a schema inferred from a sample of recent records for the user to confirm.

The declared tables' model (`StreamTableSpec`) is the runtime's, shared with the Spark side
(lakeport_engine/catalog_types/streams.py); this module adds inference and sampling for browsing.
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from catalogs.types.base import Column, TableDetail
from lakeport_engine.catalog_types.streams import DEFAULT_DATABASE, StreamCatalogConfig, StreamTableSpec
from lakeport_engine.streamio.records import converter

_EVENT_TIME_NAMES = ("event_time", "ts", "timestamp", "time", "event_ts", "created_at")


# ---- inference ---------------------------------------------------------------------------------------------
def _value_type(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "bigint"
    if isinstance(value, float):
        return "double"
    if isinstance(value, str):
        text = value.strip()
        if re.match(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}", text):
            try:
                dt.datetime.fromisoformat(text)
                return "timestamp"
            except ValueError:
                return "string"
        if re.match(r"^\d{4}-\d{2}-\d{2}$", text):
            return "date"
    return "string"


def _merge(a: str | None, b: str | None) -> str | None:
    if a is None or a == b:
        return b if a is None else a
    if b is None:
        return a
    if {a, b} == {"bigint", "double"}:
        return "double"
    return "string"


def infer_columns(records: list[dict[str, Any]], *, from_text: bool = False) -> list[Column]:
    """Columns (first-seen order) fitting every sampled record; `from_text` reads CSV strings as numbers too."""
    types: dict[str, str | None] = {}
    for record in records:
        for key, value in record.items():
            if from_text and isinstance(value, str):
                value = _from_text(value)
            types[key] = _merge(types.get(key), _value_type(value)) if key in types else _value_type(value)
    return [Column(name=k, type=v or "string") for k, v in types.items() if re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", k)]


def _from_text(value: str) -> Any:
    for parse in (int, float):
        try:
            return parse(value)
        except ValueError:
            continue
    return value if value != "" else None


def suggest_event_time(columns: list[Column]) -> str | None:
    """A timestamp column whose name says it is the event time, else the first timestamp column."""
    stamps = [c.name for c in columns if c.type == "timestamp"]
    for name in _EVENT_TIME_NAMES:
        if name in stamps:
            return name
    return stamps[0] if stamps else None


def json_records(payloads: Sequence[bytes | str]) -> list[dict[str, Any]]:
    """The payloads that are JSON objects (others are left out of inference)."""
    records = []
    for payload in payloads:
        try:
            value = json.loads(payload)
        except (ValueError, UnicodeDecodeError):
            continue
        if isinstance(value, dict):
            records.append(value)
    return records


@dataclass(frozen=True)
class StreamSample:
    """The newest records of a stream table as its broker or files hold them, oldest first.

    `from_text`: the values are text (CSV) and numbers are read from them, as inference does.
    """

    records: list[dict[str, Any]]
    from_text: bool = False


def sample_table(config: StreamCatalogConfig, database: str, table: str,
                 sample: StreamSample) -> tuple[list[Column], list[list[Any]], str]:
    """Columns, JSON-ready rows and "declared"/"inferred" of a sample: declared columns are converted as the
    stream reader converts them (a value that does not fit is null), otherwise the inferred columns as read."""
    spec = config.declared(database, table)
    if spec is not None:
        columns = [Column(name=c.name, type=c.type) for c in spec.columns]
        kind = "declared"
    else:
        columns = infer_columns(sample.records, from_text=sample.from_text)
        kind = "inferred"
    convert = [_sample_converter(c.type) if kind == "declared" else _as_read(sample.from_text) for c in columns]
    rows = [[fn(record.get(c.name)) for c, fn in zip(columns, convert, strict=True)] for record in sample.records]
    return columns, rows, kind


def _sample_converter(type_name: str) -> Callable[[Any], Any]:
    strict = converter(type_name)

    def convert(value: Any) -> Any:
        if value is None:
            return None
        try:
            return _json_ready(strict(_from_text(value) if isinstance(value, str) and type_name not in
                                      ("string", "date", "timestamp", "timestamp_ntz") else value))
        except (TypeError, ValueError, OverflowError, OSError):
            return None

    return convert


def _as_read(from_text: bool) -> Callable[[Any], Any]:
    def convert(value: Any) -> Any:
        value = _from_text(value) if from_text and isinstance(value, str) else value
        return value if isinstance(value, (str, int, float, bool, type(None))) else _json_ready(value)

    return convert


def _json_ready(value: Any) -> Any:
    if isinstance(value, (dt.datetime, dt.date)):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(",", ":"), default=str)
    return value


def stream_detail(config: StreamCatalogConfig, database: str, table: str, records: list[dict[str, Any]], *,
                  row_count: int | None, properties: dict[str, str], location: str | None = None,
                  from_text: bool = False) -> TableDetail:
    """A stream table's detail: the declared schema, or one inferred from `records` (marked as such)."""
    spec = config.declared(database, table)
    if spec is not None:
        columns = [Column(name=c.name, type=c.type) for c in spec.columns]
        properties = {**properties, "schema": "declared"}
        if spec.event_time:
            properties["event-time"] = spec.event_time
    else:
        columns = infer_columns(records, from_text=from_text)
        properties = {**properties, "schema": "inferred", "sampled-records": str(len(records))}
        event_time = suggest_event_time(columns)
        if event_time:
            properties["event-time"] = event_time
    return TableDetail(database=database, name=table, columns=columns, kind="stream", location=location,
                       row_count=row_count, properties=properties)


__all__ = ["DEFAULT_DATABASE", "StreamCatalogConfig", "StreamSample", "StreamTableSpec", "infer_columns",
           "json_records", "sample_table", "stream_detail", "suggest_event_time"]
