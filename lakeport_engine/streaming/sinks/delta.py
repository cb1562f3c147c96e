"""Delta tables of an embedded Delta catalog as streaming sinks, exactly once with delta-rs app transactions.

Append mode appends each batch; update mode merges it on the query's grouping key (the GROUP BY columns it
selects). Each commit carries `Transaction(app_id, batch_id)`; delta-rs records it but does not enforce it, so the
sink reads `DeltaTable.transaction_version(app_id)` before committing and skips a batch already committed. A
batch goes through the driver as Arrow (micro-batches are bounded by the source's per-trigger limit).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pyarrow as pa
from deltalake import CommitProperties, DeltaTable, Transaction, write_deltalake
from deltalake.exceptions import DeltaError
from pyspark.sql import DataFrame

from lakeport_engine.delta.catalog import DeltaCatalog, TableRef, check_name
from lakeport_engine.delta.column_mapping import is_mapped
from lakeport_engine.delta.errors import DeltaConnectorError
from lakeport_engine.delta.features import check_writable
from lakeport_engine.delta.snapshot import open_table
from lakeport_engine.streaming.emit import UPDATE
from lakeport_engine.streaming.errors import StreamingSinkError, StreamingStatementError
from lakeport_engine.streaming.sinks.base import BatchSink, QueryShape


def open_target(catalog_name: str, config: Mapping[str, Any], database: str, table: str) -> tuple[DeltaCatalog, TableRef, DeltaTable]:
    """The Delta catalog, table reference and latest snapshot of a sink table (a missing table is a user error)."""
    try:
        catalog = DeltaCatalog.from_config(catalog_name, config)
        check_name(database, what="database", catalog=catalog_name)
        check_name(table, what="table", catalog=catalog_name)
        ref = TableRef(catalog_name, database, table)
        return catalog, ref, open_table(catalog, ref)
    except DeltaConnectorError as exc:
        raise StreamingSinkError(f"Sink {catalog_name}.{database}.{table}: {exc.message.rstrip('.')}; create it "
                                 "with CREATE TABLE before the streaming INSERT.") from None


def arrow_schema(table: DeltaTable) -> pa.Schema:
    """The Arrow schema delta-rs writes the table with."""
    return pa.schema(table.schema().to_arrow())


def to_table_rows(frame: DataFrame, names: list[str], schema: pa.Schema) -> pa.Table:
    """A batch as Arrow with the table's column names (by position) and types."""
    data = frame.toArrow()
    data = data.rename_columns(names)
    return data.cast(pa.schema([schema.field(n) for n in names]), safe=False)


class DeltaSink(BatchSink):
    """Append (or merge on the grouping key) into one Delta table, one delta-rs commit per micro-batch."""

    kind = "delta"

    def __init__(self, catalog_name: str, config: Mapping[str, Any], database: str, table: str,
                 columns: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.catalog, self.ref, snapshot = open_target(catalog_name, config, database, table)
        self.target = str(self.ref)
        self._check_writable(snapshot, removes_files=False)
        self.schema = arrow_schema(snapshot)
        self.columns = list(columns) or list(self.schema.names)
        self.key: tuple[str, ...] = ()
        self.mode = "append"

    def check(self, mode: str, shape: QueryShape) -> None:
        if len(shape.columns) != len(self.columns):
            raise StreamingSinkError(
                f"The query has {len(shape.columns)} column(s) ({', '.join(shape.columns)}) but Delta table "
                f"{self.target} takes {len(self.columns)} ({', '.join(self.columns)}); columns match by position."
            )
        self.mode = mode
        if mode == UPDATE and shape.aggregates:
            self.key = self._key(shape)
            # a merge rewrites files: the table's rules for removing files apply (as for the batch connector)
            self._check_writable(DeltaTable(self.catalog.table_uri(self.ref),
                                            storage_options=self.catalog.delta_options()), removes_files=True)

    def _check_writable(self, snapshot: DeltaTable, *, removes_files: bool) -> None:
        """The batch connector's writability rules (protocol features, append-only, constraints…), by name."""
        try:
            check_writable(snapshot, self.ref, removes_files=removes_files)
        except DeltaConnectorError as exc:
            raise StreamingSinkError(f"Sink {self.target}: {exc.message}") from None
        if is_mapped(snapshot):  # the batch connector writes physical names; this sink writes with delta-rs
            raise StreamingSinkError(
                f"Sink {self.target}: the table uses column mapping (delta.columnMapping.mode), which the streaming "
                "Delta sink does not write (delta-rs 1.6 cannot); write it from a batch job or use a table without it.")

    def _key(self, shape: QueryShape) -> tuple[str, ...]:
        """Table columns at the positions of the query's grouping columns (the merge key of update mode)."""
        positions = [shape.columns.index(k) for k in shape.key if k in shape.columns]
        if not positions or len(shape.key) < len(shape.group_by):
            wanted = ", ".join(shape.group_by) or "the GROUP BY columns"
            raise StreamingStatementError(
                f"EMIT STREAM/CHANGES updates rows of Delta table {self.target} by key, but the query does not select "
                f"all of its GROUP BY columns ({wanted}): select them so the sink can merge on them, or use "
                "EMIT AFTER WATERMARK to append each window once."
            )
        return tuple(self.columns[p] for p in positions)

    def _uncommitted(self, batch_id: int, app_id: str) -> DeltaTable | None:
        """The target's latest snapshot, or None when it already holds batch `batch_id` of `app_id`: committed
        before a crash, and replayed by Spark because its checkpoint did not record it."""
        table = DeltaTable(self.catalog.table_uri(self.ref), storage_options=self.catalog.delta_options())
        done = table.transaction_version(app_id)
        return None if done is not None and done >= batch_id else table

    @staticmethod
    def _commit_properties(batch_id: int, app_id: str) -> CommitProperties:
        """The commit records the batch as the app's transaction version, which `_uncommitted` reads back."""
        return CommitProperties(app_transactions=[Transaction(app_id, batch_id)],
                                custom_metadata={"lakeport.streaming.batch": str(batch_id)})

    def write(self, frame: DataFrame, batch_id: int, app_id: str) -> int | None:
        table = self._uncommitted(batch_id, app_id)
        if table is None:
            return None
        rows = to_table_rows(frame, self.columns, self.schema)
        if rows.num_rows == 0:
            return 0
        properties = self._commit_properties(batch_id, app_id)
        try:
            if self.key:
                predicate = " AND ".join(f"t.`{k}` = s.`{k}`" for k in self.key)
                (table.merge(rows, predicate, source_alias="s", target_alias="t", commit_properties=properties)
                 .when_matched_update_all().when_not_matched_insert_all().execute())
            else:
                write_deltalake(table, rows, mode="append", commit_properties=properties)
        except DeltaError as exc:
            raise StreamingSinkError(f"Commit of batch {batch_id} to Delta table {self.target} failed: {exc}") from exc
        return int(rows.num_rows)
