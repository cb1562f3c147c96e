"""Paimon tables of a Paimon catalog as streaming sinks, exactly once by Paimon's own commit identity.

Each micro-batch is one Paimon snapshot: the executors write data files with pypaimon's table writer (as a batch
INSERT does, lakeport_engine/paimon/write.py) and the driver commits their messages once, as a stream commit whose
commit user is the query's app id (`lakeport-<query id>`) and whose commit identifier is the batch id. That pair is
what Paimon's Flink sink records for its own exactly-once commits; the sink finds the app id's newest snapshot
before writing, and a batch whose id is not above that snapshot's identifier is a replay of a committed batch:
it is consumed without writing. A driver killed before the commit leaves files no snapshot references; one killed
after it leaves a snapshot the replay finds.

Append mode appends to append tables and upserts into primary-key tables (the table's merge engine decides what
an upsert means, as for INSERT INTO). Update mode (an aggregation's changed groups) upserts too, so it needs a
primary-key table whose key is the query's grouping key and whose merge engine keeps the last row (deduplicate).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pyspark.sql import DataFrame

from lakeport_engine.bindings.base import SinkTarget
from lakeport_engine.delta.catalog import TableRef
from lakeport_engine.delta.commit import align
from lakeport_engine.delta.errors import DeltaConnectorError
from lakeport_engine.paimon.catalog import PaimonError, merge_engine
from lakeport_engine.paimon.connector import PaimonCatalogConfig, load_table, spark_schema
from lakeport_engine.paimon.write import writable, write_rows
from lakeport_engine.streaming.emit import UPDATE
from lakeport_engine.streaming.errors import StreamingSinkError, StreamingStatementError
from lakeport_engine.streaming.sinks.base import BatchSink, QueryShape

OPERATION = "STREAMING INSERT"


def paimon_sink(target: SinkTarget) -> PaimonSink:
    """The sink for a table of a Paimon catalog (the binding's sink factory)."""
    return PaimonSink(target.catalog, target.config, target.database, target.table, target.columns)


def committed_batch(loaded: Any, app_id: str) -> int | None:  # noqa: ANN401 - pypaimon's FileStoreTable
    """The commit identifier (batch id) of `app_id`'s newest snapshot, None when it committed none (Paimon's
    `latestSnapshotOfUser`: snapshots are read newest first; the app's last commit is usually the newest)."""
    snapshots = loaded.snapshot_manager()
    latest = snapshots.get_latest_snapshot()
    if latest is None:
        return None
    earliest = _earliest(snapshots, int(latest.id))
    for snapshot_id in range(int(latest.id), earliest - 1, -1):
        snapshot = latest if snapshot_id == latest.id else snapshots.get_snapshot_by_id(snapshot_id)
        if snapshot is not None and snapshot.commit_user == app_id:
            return int(snapshot.commit_identifier)
    return None


def _earliest(snapshots: Any, latest: int) -> int:  # noqa: ANN401 - pypaimon's SnapshotManager
    try:
        earliest = snapshots.try_get_earliest_snapshot(latest)
    except Exception:  # older or newer pypaimon without the helper: scan from snapshot 1
        earliest = None
    return int(earliest.id) if earliest is not None else 1


class PaimonSink(BatchSink):
    """Append or upsert into one Paimon table, one snapshot per micro-batch, written by the executors."""

    kind = "paimon"

    def __init__(self, catalog_name: str, config: Mapping[str, Any], database: str, table: str,
                 columns: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.ref = TableRef(catalog_name, database, table)
        self.target = str(self.ref)
        try:
            self.catalog = PaimonCatalogConfig.from_config(catalog_name, config)
            loaded = load_table(self.catalog, self.ref)
            writable(loaded, table=self.target)
            self.schema = spark_schema(loaded, self.target)
        except PaimonError as exc:
            hint = "; create it with CREATE TABLE before the streaming INSERT." if "does not exist" in exc.message else ""
            raise StreamingSinkError(f"Sink {self.target}: {exc.message.rstrip('.') if hint else exc.message}{hint}") \
                from None
        self.primary_key = tuple(loaded.table_schema.primary_keys)
        self.merge_engine = merge_engine(loaded)
        self.listed = list(columns) or None  # the INSERT's column list, if it has one
        self.columns = list(columns) or [f.name for f in self.schema.fields]
        self._committed: dict[str, int | None] = {}  # app id → last batch id it committed (read once per query)

    def check(self, mode: str, shape: QueryShape) -> None:
        """Column count by position; update mode needs a deduplicating primary-key table keyed like the query."""
        if len(shape.columns) != len(self.columns):
            raise StreamingSinkError(
                f"The query has {len(shape.columns)} column(s) ({', '.join(shape.columns)}) but Paimon table "
                f"{self.target} takes {len(self.columns)} ({', '.join(self.columns)}); columns match by position.")
        if mode != UPDATE or not shape.aggregates:
            return
        key = {self.columns[shape.columns.index(k)].lower() for k in shape.key if k in shape.columns}
        if not self.primary_key:
            raise StreamingStatementError(
                f"EMIT STREAM/CHANGES updates rows by key, but Paimon table {self.target} is an append table: create it "
                f"with TBLPROPERTIES ('primary-key'='{', '.join(sorted(key)) or '<grouping columns>'}', 'bucket'='<n>'),"
                " or use EMIT AFTER WATERMARK to append each window once.")
        if len(shape.key) < len(shape.group_by) or key != {k.lower() for k in self.primary_key}:
            raise StreamingStatementError(
                f"EMIT STREAM/CHANGES upserts into Paimon table {self.target} by its primary key "
                f"({', '.join(self.primary_key)}), which must be exactly the columns the query groups by and selects "
                f"({', '.join(shape.group_by) or 'none'}); change the key or the query, or use EMIT AFTER WATERMARK.")
        if self.merge_engine != "deduplicate":
            raise StreamingStatementError(
                f"EMIT STREAM/CHANGES sends a group's new total each time it changes, but Paimon table {self.target} "
                f"merges rows with merge-engine '{self.merge_engine}', which would combine those totals; use a "
                "table with the deduplicate merge engine, or EMIT AFTER WATERMARK.")

    def _last_committed(self, loaded: Any, app_id: str) -> int | None:  # noqa: ANN401
        if app_id not in self._committed:
            self._committed[app_id] = committed_batch(loaded, app_id)
        return self._committed[app_id]

    def write(self, frame: DataFrame, batch_id: int, app_id: str) -> int | None:
        """Write the batch from the executors and commit it as snapshot (app id, batch id); None for a replay."""
        try:
            loaded = load_table(self.catalog, self.ref)
        except PaimonError as exc:
            raise StreamingSinkError(f"Sink {self.target}: {exc.message}") from None
        done = self._last_committed(loaded, app_id)
        if done is not None and done >= batch_id:
            return None
        try:
            rows = align(frame, self.schema, ref=self.ref, columns=self.listed, table_format="Paimon")
        except DeltaConnectorError as exc:
            raise StreamingSinkError(f"Batch {batch_id} into Paimon table {self.target}: {exc.message}") from None
        messages, written = write_rows(rows, loaded, overwrite=None)
        if not messages:
            return 0
        builder = loaded.new_stream_write_builder()
        builder._with_commit_user(app_id)  # the identity the replay check reads back (pypaimon's own hook)
        committer = builder.new_commit()
        try:
            committer.commit(messages, batch_id, snapshot_properties={
                "lakeport.operation": OPERATION, "lakeport.streaming.batch": str(batch_id)})
        except Exception as exc:
            raise StreamingSinkError(f"Commit of batch {batch_id} to Paimon table {self.target} failed: "
                                     f"{str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__}"
                                     ) from exc
        finally:
            committer.close()
        self._committed[app_id] = batch_id
        return written
