"""The declared tables of a stream catalog, as its plain configuration holds them.

Every stream catalog type (redis-streams, nats-jetstream, files) keeps a `tables` map in its configuration:
`"<database>.<table>" → {"columns": [{"name", "type"}, …], "event-time": "<column>"?, "format": …?}`. The
Django side validates the same shape (catalogs/types/streams.py) with the same type names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from lakeport_engine.errors import SparkRuntimeError

DEFAULT_DATABASE = "default"
# Column types a stream table may declare (Spark SQL names); nested types are read as JSON strings.
SIMPLE_TYPES = ("string", "boolean", "int", "bigint", "float", "double", "date", "timestamp", "timestamp_ntz")
_DECIMAL = re.compile(r"^decimal\((\d{1,2}),\s*(\d{1,2})\)$")
_COLUMN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")


class StreamSourceError(SparkRuntimeError):
    """A stream source that cannot be read: unknown stream or table, a type that cannot stream, missing jars,
    a bad declared schema, an unreachable server. The message names the table and the reason, never a secret."""


def normalize_type(value: str) -> str | None:
    """The canonical type name for a declared column type, or None if stream tables cannot declare it."""
    text = re.sub(r"\s+", "", str(value).strip().lower())
    text = {"integer": "int", "long": "bigint", "bool": "boolean", "real": "float", "text": "string"}.get(text, text)
    if text in SIMPLE_TYPES:
        return text
    match = _DECIMAL.match(text)
    if match and 0 < int(match.group(1)) <= 38 and int(match.group(2)) <= int(match.group(1)):
        return f"decimal({match.group(1)},{match.group(2)})"
    return None


@dataclass(frozen=True)
class StreamColumn:
    """One declared column."""

    name: str
    type: str


@dataclass(frozen=True)
class StreamTable:
    """A declared stream table: its columns, optional event-time column and (files) format."""

    database: str
    name: str
    columns: tuple[StreamColumn, ...]
    event_time: str | None = None
    format: str | None = None

    @property
    def label(self) -> str:
        """`database.table`, for messages."""
        return f"{self.database}.{self.name}"

    def ddl(self) -> str:
        """The schema as a Spark DDL string (`a STRING, ts TIMESTAMP`)."""
        return ", ".join(f"`{c.name}` {c.type.upper()}" for c in self.columns)


def declared_table(config: dict[str, Any], catalog: str, database: str, table: str) -> StreamTable:
    """The declared table `database.table` of a stream catalog; StreamSourceError if undeclared or invalid."""
    where = f"{catalog}.{database}.{table}"
    tables = config.get("tables") or {}
    spec = tables.get(f"{database}.{table}") if isinstance(tables, dict) else None
    if spec is None:
        lowered = {str(k).lower(): v for k, v in tables.items()} if isinstance(tables, dict) else {}
        spec = lowered.get(f"{database}.{table}".lower())
    if not isinstance(spec, dict):
        raise StreamSourceError(
            f"Stream table {where} has no declared schema: declare its columns in catalog '{catalog}' "
            "(or infer them from recent records and confirm)."
        )
    raw_columns = spec.get("columns")
    if not isinstance(raw_columns, list) or not raw_columns:
        raise StreamSourceError(f"Stream table {where}: the declared schema has no columns.")
    columns: list[StreamColumn] = []
    seen: set[str] = set()
    for item in raw_columns:
        name = str(item.get("name", "")) if isinstance(item, dict) else ""
        kind = normalize_type(str(item.get("type", ""))) if isinstance(item, dict) else None
        if not _COLUMN.match(name) or name.lower() in seen:
            raise StreamSourceError(f"Stream table {where}: column name {name!r} is not a plain, unique name.")
        if kind is None:
            raise StreamSourceError(
                f"Stream table {where}: column '{name}' has type {item.get('type')!r}; use one of "
                f"{', '.join(SIMPLE_TYPES)} or decimal(p,s)."
            )
        seen.add(name.lower())
        columns.append(StreamColumn(name, kind))
    event_time = spec.get("event-time") or None
    if event_time is not None:
        match = next((c for c in columns if c.name.lower() == str(event_time).lower()), None)
        if match is None or match.type not in ("timestamp", "timestamp_ntz"):
            raise StreamSourceError(f"Stream table {where}: event-time column '{event_time}' must be a declared "
                                    "timestamp column.")
        event_time = match.name
    fmt = spec.get("format") or config.get("format")
    return StreamTable(database, table, tuple(columns), event_time, str(fmt) if fmt else None)
