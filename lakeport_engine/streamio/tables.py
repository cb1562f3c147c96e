"""The declared tables of a stream catalog, as its plain configuration holds them.

Every stream catalog type (redis-streams, nats-jetstream, files, kafka) keeps a `tables` map in its configuration:
`"<database>.<table>" → {"columns": [{"name", "type"}, …], "event-time": "<column>"?, "format": …?}`. One model
validates it on both sides (`StreamTableSpec`, lakeport_engine/catalog_types/streams.py): the catalog API on save,
this module when a statement reads the table (a file store's configuration was never validated by the API).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from lakeport_engine.catalog_types.base import validation_problem
from lakeport_engine.catalog_types.streams import (
    DEFAULT_DATABASE,
    SIMPLE_TYPES,
    StreamColumnSpec,
    StreamTableSpec,
    normalize_type,
)
from lakeport_engine.errors import SparkRuntimeError

StreamColumn = StreamColumnSpec  # one declared column: `name` and canonical `type`


class StreamSourceError(SparkRuntimeError):
    """A stream source that cannot be read: unknown stream or table, a type that cannot stream, missing jars,
    a bad declared schema, an unreachable server. The message names the table and the reason, never a secret."""


@dataclass(frozen=True)
class StreamTable:
    """A declared stream table: its columns, optional event-time column and (files) format."""

    database: str
    name: str
    columns: tuple[StreamColumnSpec, ...]
    event_time: str | None = None
    format: str | None = None

    @property
    def label(self) -> str:
        """`database.table`, for messages."""
        return f"{self.database}.{self.name}"

    def ddl(self) -> str:
        """The schema as a Spark DDL string (`a STRING, ts TIMESTAMP`)."""
        return ", ".join(f"`{c.name}` {c.type.upper()}" for c in self.columns)


def declared_table(config: Mapping[str, Any], catalog: str, database: str, table: str) -> StreamTable:
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
    try:
        parsed = StreamTableSpec.model_validate(spec)
    except ValidationError as exc:
        raise StreamSourceError(f"Stream table {where}: the declared schema is invalid: {validation_problem(exc)}") from None
    fmt = parsed.format or config.get("format")
    return StreamTable(database, table, tuple(parsed.columns), parsed.event_time, str(fmt) if fmt else None)


__all__ = ["DEFAULT_DATABASE", "SIMPLE_TYPES", "StreamColumn", "StreamSourceError", "StreamTable", "declared_table",
           "normalize_type"]
