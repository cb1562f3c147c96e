"""A changelog sink: an append-only Delta table that receives insert and retract rows, as Flink's retract stream.

A Delta table with a string column `op` is a changelog table. Each result row is appended with `op`:
`+I` a key's first row, `-U` the retraction of the row emitted before for that key, `+U` its new value (Flink's
RowKind names). So an append-only table can follow an updating query (EMIT STREAM): the current result is every
`+I`/`+U` row not cancelled by a `-U` row with the same values. The previous row of each key is rebuilt from the
table when the sink starts (counting, no ordering needed) and kept in memory afterwards; commits are exactly once
like the Delta sink's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pyarrow as pa
from deltalake import DeltaTable, write_deltalake
from deltalake.exceptions import DeltaError
from pyspark.sql import DataFrame

from lakeport_engine.streaming.emit import UPDATE
from lakeport_engine.streaming.errors import StreamingSinkError
from lakeport_engine.streaming.sinks.base import QueryShape
from lakeport_engine.streaming.sinks.delta import DeltaSink, arrow_schema, open_target, to_table_rows

if TYPE_CHECKING:
    from lakeport_engine.bindings.base import SinkTarget

OP_COLUMN = "op"
INSERT, RETRACT, UPDATE_AFTER = "+I", "-U", "+U"

Row = tuple[Any, ...]


def is_changelog(schema: pa.Schema) -> bool:
    """True when a Delta table is a changelog table (a string column `op`)."""
    if OP_COLUMN not in schema.names:
        return False
    kind = schema.field(OP_COLUMN).type
    return bool(pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_string_view(kind))


def delta_sink(target: SinkTarget) -> DeltaSink | None:
    """The delta binding's sink factory: a changelog table (an `op` column) takes a ChangelogSink, any other table
    a DeltaSink; None for a catalog bound to the JVM DeltaCatalog (Spark's `spark_catalog`), which has no sink."""
    if target.spark_catalog is not None:
        return None
    _, _, snapshot = open_target(target.catalog, target.config, target.database, target.table)
    if is_changelog(arrow_schema(snapshot)):
        return ChangelogSink(target.catalog, target.config, target.database, target.table, target.columns)
    return DeltaSink(target.catalog, target.config, target.database, target.table, target.columns)


class ChangelogSink(DeltaSink):
    """Appends `+I`/`-U`/`+U` rows to a Delta changelog table, one commit per micro-batch."""

    kind = "changelog"

    def __init__(self, catalog_name: str, config: Mapping[str, Any], database: str, table: str,
                 columns: tuple[str, ...] = ()) -> None:
        super().__init__(catalog_name, config, database, table)
        self.columns = list(columns) or [n for n in self.schema.names if n != OP_COLUMN]
        self._current: dict[Row, Row] = {}

    def check(self, mode: str, shape: QueryShape) -> None:
        super().check(mode, shape)
        self._current = self._rebuild() if self.key else {}

    def _rebuild(self) -> dict[Row, Row]:
        """Each key's current row: +I/+U rows minus the -U rows with equal values."""
        table = DeltaTable(self.catalog.table_uri(self.ref), storage_options=self.catalog.delta_options())
        data = table.to_pyarrow_table(columns=[OP_COLUMN, *self.columns])
        live: Counter[Row] = Counter()
        for record in data.to_pylist():
            row = tuple(record[c] for c in self.columns)
            live[row] += -1 if record[OP_COLUMN] == RETRACT else 1
        return {self._key_of(row): row for row, count in live.items() if count > 0}

    def _key_of(self, row: Row) -> Row:
        return tuple(row[self.columns.index(k)] for k in self.key)

    def write(self, frame: DataFrame, batch_id: int, app_id: str) -> int | None:
        table = self._uncommitted(batch_id, app_id)
        if table is None:
            return None
        rows = to_table_rows(frame, self.columns, self.schema)
        changes: list[tuple[str, Row]] = []
        updated: dict[Row, Row] = {}
        for record in rows.to_pylist():
            row = tuple(record[c] for c in self.columns)
            if self.mode != UPDATE or not self.key:
                changes.append((INSERT, row))
                continue
            key = self._key_of(row)
            before = updated.get(key, self._current.get(key))
            if before == row:
                continue  # nothing changed for a reader of the table
            changes += [(RETRACT, before), (UPDATE_AFTER, row)] if before is not None else [(INSERT, row)]
            updated[key] = row
        if not changes:
            return 0
        names = [OP_COLUMN, *self.columns]
        out = pa.Table.from_pylist([dict(zip(names, (op, *row), strict=True)) for op, row in changes],
                                   schema=pa.schema([self.schema.field(n) for n in names]))
        try:
            write_deltalake(table, out.select(self.schema.names), mode="append",
                            commit_properties=self._commit_properties(batch_id, app_id))
        except DeltaError as exc:
            raise StreamingSinkError(f"Commit of batch {batch_id} to changelog table {self.target} failed: {exc}") from exc
        self._current.update(updated)
        return int(out.num_rows)
