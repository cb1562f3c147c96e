"""What the stream catalog types (redis-streams, nats-jetstream, files, kafka) share: the declared tables of the
configuration, `"<database>.<table>" → {"columns": [{"name", "type"}, …], "event-time": …?, "format": …?}`.

One model for both sides: the catalog API validates a configuration with it, and the Spark runtime reads a
declared table through it (`lakeport_engine/streamio/tables.py`).
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from lakeport_engine.catalog_types.base import CatalogConfig

DEFAULT_DATABASE = "default"
# Column types a stream table may declare (Spark SQL names); nested types are read as JSON strings.
SIMPLE_TYPES = ("string", "boolean", "int", "bigint", "float", "double", "date", "timestamp", "timestamp_ntz")
_DECIMAL = re.compile(r"^decimal\((\d{1,2}),\s*(\d{1,2})\)$")
_TABLE_KEY = re.compile(r"^[A-Za-z0-9_$-]{1,128}\.[A-Za-z0-9_$-]{1,128}$")


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


class StreamColumnSpec(BaseModel):
    """One declared column: a plain name and a Spark type name."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
    type: str = Field(description=f"One of {', '.join(SIMPLE_TYPES)} or decimal(p,s).")

    @field_validator("type")
    @classmethod
    def _type(cls, value: str) -> str:
        kind = normalize_type(value)
        if kind is None:
            raise ValueError(f"use one of {', '.join(SIMPLE_TYPES)} or decimal(p,s).")
        return kind


class StreamTableSpec(BaseModel):
    """A declared stream table: columns, optional event-time column, optional file format."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    columns: list[StreamColumnSpec] = Field(min_length=1, max_length=500)
    event_time: str | None = Field(default=None, alias="event-time")
    format: Literal["json", "csv", "parquet"] | None = None

    @field_validator("columns")
    @classmethod
    def _unique(cls, value: list[StreamColumnSpec]) -> list[StreamColumnSpec]:
        seen: set[str] = set()
        for column in value:
            if column.name.lower() in seen:
                raise ValueError(f"column name '{column.name}' is declared twice.")
            seen.add(column.name.lower())
        return value

    @field_validator("event_time")
    @classmethod
    def _event_time(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is None:
            return None
        declared: list[StreamColumnSpec] = info.data.get("columns") or []
        columns = {c.name.lower(): c for c in declared}
        column = columns.get(value.lower())
        if column is None or column.type not in ("timestamp", "timestamp_ntz"):
            raise ValueError("must name a declared timestamp column.")
        return column.name

    def ddl(self) -> str:
        """The schema as a Spark DDL string (`a STRING, ts TIMESTAMP`)."""
        return ", ".join(f"`{c.name}` {c.type.upper()}" for c in self.columns)


class StreamCatalogConfig(CatalogConfig):
    """Base of the stream catalog configurations."""

    tables: dict[str, StreamTableSpec] = Field(
        default_factory=dict, description="Declared tables by '<database>.<table>'."
    )
    start: Literal["earliest", "latest"] = Field(default="earliest", description="Where a new query starts.")
    max_records_per_batch: int | None = Field(default=None, alias="max-records-per-batch", ge=1, le=10_000_000)

    @field_validator("tables")
    @classmethod
    def _table_keys(cls, value: dict[str, StreamTableSpec]) -> dict[str, StreamTableSpec]:
        for key in value:
            if not _TABLE_KEY.match(key):
                raise ValueError(f"'{key}' must be '<database>.<table>' (letters, digits, _, $ or -).")
        return value

    def declared(self, database: str, table: str) -> StreamTableSpec | None:
        """The declared spec of `database.table`, if any."""
        return self.tables.get(f"{database}.{table}")
