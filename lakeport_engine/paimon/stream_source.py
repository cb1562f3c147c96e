"""Paimon tables as a Spark streaming source (pyspark's Python Data Source API), planned and read by pypaimon.

Offsets are snapshot ids (`{"snapshot": n}`: every snapshot ≤ n has been read; -1 before the first batch), kept in
Spark's checkpoint, so a restart resumes after the last snapshot a committed batch read. As Paimon's own streaming
read does (`scan.mode` = latest-full), the first micro-batch is the table at its latest snapshot when the query
first starts (primary-key tables merged); each later micro-batch holds what the snapshots `(start, end]` added:

- append tables: the files each APPEND snapshot added;
- primary-key tables with a `changelog-producer` (input, lookup, full-compaction): the snapshot's changelog files,
  i.e. complete changelog rows (+I, -U, +U, -D);
- primary-key tables without one: the records each APPEND snapshot wrote, as written (an upsert is +I or +U, a
  delete -D; no -U before-images: Paimon only has those with a changelog producer).

Primary-key tables' streams end with a `_row_kind` column (pypaimon's name) holding that kind; the first batch's
rows are +I (merged rows keep their last write's kind in pypaimon; to a new reader they are inserts). Compaction snapshots add no rows and are skipped, as in Paimon; an OVERWRITE snapshot replaces rows,
which a stream of additions cannot say, so it fails the query by name (as the Delta source refuses a DELETE).
A replay plans the same snapshots' files again, so the sinks' batch ids make it exactly once. Under
Trigger.AvailableNow the reader pins the latest snapshot when the run starts and plans at most
`max_snapshots_per_batch` snapshots per batch up to it.

The planner runs in Spark's Python planner process; each task reads one pypaimon split (pickled) in a Python worker
and hands Spark Arrow record batches. The reader holds only strings: pypaimon tables are opened per call.
"""

from __future__ import annotations

import json
import pickle
from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow as pa
from pyspark.sql.datasource import DataSource, DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadLimit, SupportsTriggerAvailableNow
from pyspark.sql.types import StringType, StructField, StructType

from lakeport_engine.paimon.catalog import PaimonError

FORMAT = "lakeport_paimon_stream"
ROW_KIND = "_row_kind"  # pypaimon's column of a row's change kind (+I, -U, +U, -D)
BEFORE_FIRST = -1


class SnapshotSplit(InputPartition):
    """One pypaimon split of snapshot `snapshot` (pickled: plain dataclasses of file metadata)."""

    def __init__(self, snapshot: int, split: bytes, *, initial: bool = False) -> None:
        super().__init__(snapshot)
        self.snapshot = snapshot
        self.split = split
        self.initial = initial  # a split of the first batch's full read: its rows are the table as it is (+I)


def stream_schema(columns: StructType, *, primary_key: bool) -> StructType:
    """The stream's columns: the table's, and `_row_kind` last for a primary-key table."""
    if not primary_key:
        return columns
    if any(f.name.lower() == ROW_KIND for f in columns.fields):
        raise PaimonError(f"the table has a column named {ROW_KIND}, which a stream of a primary-key table adds for "
                          "each row's change kind; rename the column to stream the table.")
    return StructType([*columns.fields, StructField(ROW_KIND, StringType(), True)])


class PaimonStreamDataSource(DataSource):
    """`spark.readStream.format("lakeport_paimon_stream")` with options path, table (label), schema (Spark JSON of
    the stream), primary_key ("true"/"false") and max_snapshots_per_batch."""

    @classmethod
    def name(cls) -> str:
        """The format name Spark knows the source by."""
        return FORMAT

    def schema(self) -> StructType:
        """The stream's columns (given by the driver)."""
        return StructType.fromJson(json.loads(self.options["schema"]))

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:  # noqa: N802 - Spark's name
        """A reader planning micro-batches from the table's snapshots."""
        return PaimonStreamReader(dict(self.options), schema)


class PaimonStreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """Plans micro-batches from the table's snapshots; Python workers read the planned splits."""

    def __init__(self, options: dict[str, str], schema: StructType) -> None:
        self.path = options["path"]
        self.label = options["table"]
        self.primary_key = options.get("primary_key") == "true"
        self.columns = [f.name for f in schema.fields if not (self.primary_key and f.name == ROW_KIND)]
        self.max_snapshots = int(options.get("max_snapshots_per_batch") or 0)
        self.target: int | None = None  # an AvailableNow run's last snapshot, pinned when it starts

    def _table(self) -> Any:  # noqa: ANN401 - pypaimon's FileStoreTable
        from pypaimon.table.file_store_table import FileStoreTable

        try:
            return FileStoreTable.from_path(self.path)
        except Exception as exc:
            raise PaimonError(f"Paimon table {self.label} can no longer be opened ({_first_line(exc)}).") from None

    def _latest(self) -> int:
        snapshot = self._table().snapshot_manager().get_latest_snapshot()
        return int(snapshot.id) if snapshot is not None else BEFORE_FIRST

    def initialOffset(self) -> dict[str, int]:  # noqa: N802 - Spark's name
        """Before the first batch, which reads the table at its latest snapshot."""
        return {"snapshot": BEFORE_FIRST}

    def getDefaultReadLimit(self) -> ReadLimit:  # noqa: N802 - Spark's name
        """Everything available (bounded by `max_snapshots_per_batch` in `latestOffset`)."""
        return ReadAllAvailable()

    def prepareForTriggerAvailableNow(self) -> None:  # noqa: N802 - Spark's name
        """Pin this run's end at the latest snapshot now: later commits get larger ids."""
        self.target = self._latest()

    def latestOffset(self, start: dict[str, int], limit: ReadLimit) -> dict[str, int]:  # noqa: N802
        """The latest snapshot (at most `max_snapshots_per_batch` after `start` once the first batch is read);
        never past an AvailableNow target."""
        first = int(start["snapshot"])
        if self.target is not None and self.target <= first:
            return start  # the run has read everything up to its target: Spark ends it
        latest = self._latest()
        if self.target is not None:
            latest = min(latest, self.target)
        if self.max_snapshots > 0 and first != BEFORE_FIRST:
            latest = min(latest, first + self.max_snapshots)
        return {"snapshot": max(latest, first)}

    def reportLatestOffset(self) -> dict[str, int]:  # noqa: N802 - Spark's name
        """The table's latest snapshot (the batch events' lag)."""
        return {"snapshot": self._latest()}

    def partitions(self, start: dict[str, int], end: dict[str, int]) -> Sequence[InputPartition]:
        """The splits of the latest snapshot's full read for the first batch; then of each snapshot's additions."""
        from pypaimon.read.streaming_table_scan import AsyncStreamingTableScan

        first, last = int(start["snapshot"]), int(end["snapshot"])
        if last <= first:
            return []
        table = self._table()
        scan = AsyncStreamingTableScan(table, prefetch_enabled=False)
        snapshots = table.snapshot_manager()
        planned: list[InputPartition] = []
        if first == BEFORE_FIRST:
            plan = scan._create_initial_plan(self._snapshot(snapshots, last))
            return [SnapshotSplit(last, pickle.dumps(s), initial=True) for s in plan.splits()]
        for snapshot_id in range(first + 1, last + 1):
            snapshot = self._snapshot(snapshots, snapshot_id)
            if snapshot.commit_kind == "OVERWRITE":
                raise PaimonError(
                    f"Paimon table {self.label}: snapshot {snapshot_id} is an OVERWRITE, which replaces rows; a stream "
                    "from a Paimon table reads added rows and changelogs only. Start the query again with a new "
                    "checkpoint to read the table as it is now.")
            if not scan.follow_up_scanner.should_scan(snapshot):
                continue  # a compaction or a commit without changelog: nothing added
            plan = scan._create_follow_up_plan(snapshot)
            planned += [SnapshotSplit(snapshot_id, pickle.dumps(s)) for s in plan.splits()]
        return planned

    def _snapshot(self, snapshots: Any, snapshot_id: int) -> Any:  # noqa: ANN401 - pypaimon's Snapshot
        try:
            found = snapshots.get_snapshot_by_id(snapshot_id)
        except Exception:
            found = None
        if found is None:
            raise PaimonError(
                f"Paimon table {self.label}: snapshot {snapshot_id} no longer exists (snapshot expiration removed "
                "it), so the stream cannot read it; start the query again with a new checkpoint.")
        return found

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        """The split's rows as Arrow batches of the stream's columns (`_row_kind` last for primary-key tables)."""
        assert isinstance(partition, SnapshotSplit)
        split = pickle.loads(partition.split)  # noqa: S301 - planned by this reader in the same application
        builder = self._table().new_stream_read_builder().with_projection(self.columns)
        if self.primary_key:
            builder = builder.with_include_row_kind(True)
        wanted = [*self.columns, ROW_KIND] if self.primary_key else self.columns
        for batch in builder.new_read().to_arrow_batch_reader([split]):
            if not batch.num_rows:
                continue
            batch = batch.select(wanted) if batch.schema.names != wanted else batch
            if self.primary_key and partition.initial:  # a merged row keeps its last write's kind (+U): it is new here
                batch = batch.set_column(len(wanted) - 1, ROW_KIND, pa.array(["+I"] * batch.num_rows, pa.string()))
            yield batch

    def commit(self, end: dict[str, int]) -> None:
        """Nothing to acknowledge: the table keeps its snapshots (until they expire)."""


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


__all__ = ["FORMAT", "ROW_KIND", "PaimonStreamDataSource", "PaimonStreamReader", "stream_schema"]
