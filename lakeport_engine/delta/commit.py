"""Writing Delta tables: Spark writes the parquet files, delta-rs commits them in one atomic log entry.

Files are written to a per-commit staging directory under the table root (Spark's output committer must
not share a `_temporary` directory with a concurrent writer), then moved to hive-style partition paths with
a per-commit file-name prefix. Until the commit lands no snapshot references them; on any failure they are
deleted again (best effort), so a failed write leaves neither a new version nor visible rows.
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

import pyarrow.parquet as pq
from deltalake import DeltaTable
from deltalake._internal import RemoveAction
from deltalake.exceptions import CommitFailedError, DeltaError
from deltalake.transaction import AddAction, CommitProperties, create_table_with_add_actions
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from lakeport_engine.delta.catalog import DeltaCatalog, TableRef, spark_path
from lakeport_engine.delta.column_mapping import is_mapped, physical_names, to_physical
from lakeport_engine.delta.errors import DeltaConflictError, DeltaConnectorError
from lakeport_engine.delta.features import check_writable
from lakeport_engine.delta.history import commit_history
from lakeport_engine.delta.schema import delta_schema, same_columns, spark_schema
from lakeport_engine.delta.snapshot import HIVE_NULL, add_actions, open_table
from lakeport_engine.delta.storage import Storage

logger = logging.getLogger(__name__)

STAGING_PREFIX = "_lakeport_staging_"
# Overwrites retry only while concurrent commits left the replaced files untouched.
MAX_OVERWRITE_ATTEMPTS = 5
MAX_APPEND_ATTEMPTS = 20
COMMIT_ID_KEY = "lakeport.commitId"


@dataclass(frozen=True)
class WrittenFiles:
    """Data files of one pending commit, already at their final paths (relative to the table root)."""

    adds: list[AddAction]
    absolute_paths: list[str]
    commit_id: str  # written into the commit's commitInfo: how the writer finds the version its commit landed at

    @property
    def num_records(self) -> int | None:
        counts = [_records(a) for a in self.adds]
        return None if any(c is None for c in counts) else sum(c for c in counts if c is not None)


def _records(action: AddAction) -> int | None:
    try:
        return int(json.loads(action.stats or "{}")["numRecords"])
    except (KeyError, ValueError, TypeError):
        return None


class DeltaWriter:
    """Writes and commits for the tables of one Delta catalog."""

    def __init__(self, spark: SparkSession, catalog: DeltaCatalog, storage: Storage) -> None:
        self.spark = spark
        self.catalog = catalog
        self.storage = storage
        # Extra commitInfo entries of this writer's commits (a materialized view's refresh records its sources here).
        self.extra_metadata: dict[str, Any] = {}

    # ---- statements ----------------------------------------------------------------------------------
    def append(self, ref: TableRef, frame: DataFrame, *, operation: str, blind: bool = True,
               read_version: int | None = None) -> int:
        """`INSERT INTO`: add the rows of `frame` (already in table order and types) as one commit.

        A blind append (its query does not read the table) commits over any concurrent commit that leaves the
        schema alone, as Delta's WriteSerializable level allows; an append that read the table fails with a
        `DeltaConflictError` when concurrent commits changed its files since `read_version` (the snapshot
        its query read).
        """
        table = open_table(self.catalog, ref)
        check_writable(table, ref, removes_files=False)
        if read_version is not None and read_version != table.version():
            table.load_as_version(read_version)
        partition_cols = list(table.metadata().partition_columns)
        read_version = table.version()
        with self._pending(ref, frame, partition_cols, table) as written:
            metadata = self._metadata(operation, written, read_version, blind=blind)
            before = None if blind else self._replaced_files(table, None)
            return self._commit_retrying(
                ref, table, written, metadata, attempts=MAX_APPEND_ATTEMPTS, what="INSERT INTO",
                commit=lambda t, props: t.create_write_transaction(
                    [*written.adds], "append", t.schema(), partition_by=partition_cols, commit_properties=props),
                check=lambda t, latest: self._check_no_conflict(ref, t, latest, None, before, what="INSERT INTO"))

    def overwrite(self, ref: TableRef, frame: DataFrame, *, operation: str,
                  partition: Mapping[str, str | None] | None = None, dynamic: bool = False,
                  read_version: int | None = None) -> int:
        """`INSERT OVERWRITE`: replace the whole table, one static partition, or (dynamic) the partitions written.

        Conflicts: the commit is only allowed at the version right after the one read (`read_version`, when the
        query read the table itself: rows committed since it read them were never seen, so replacing them would
        lose them); when others committed in between, it is retried only if none of them touched the replaced
        files, else it fails with a `DeltaConflictError` (an append racing the overwrite is never silently dropped).
        """
        table = open_table(self.catalog, ref)
        check_writable(table, ref, removes_files=True)
        if read_version is not None and read_version != table.version():
            table.load_as_version(read_version)
        partition_cols = list(table.metadata().partition_columns)
        read_version = table.version()
        with self._pending(ref, frame, partition_cols, table) as written:
            if dynamic:
                keys = sorted({tuple(sorted(a.partition_values.items())) for a in written.adds},
                              key=lambda k: [(n, v or "") for n, v in k])
                replaced = [[(c, "=", v or "") for c, v in key] for key in keys]
                if not replaced:
                    return read_version  # nothing written, nothing replaced
            elif partition:
                replaced = [[(c, "=", partition[c] or "") for c in partition_cols if c in partition]]
            else:
                replaced = None
            before = self._replaced_files(table, replaced)
            metadata = self._metadata(operation, written, read_version, blind=False)

            def commit(t: DeltaTable, props: CommitProperties) -> None:
                if dynamic:
                    # delta-rs takes one conjunction as an overwrite filter: several partitions are removed
                    # explicitly, from the snapshot this attempt commits on.
                    t.create_write_transaction([*self._removes(t, replaced), *written.adds], "append", t.schema(),
                                               partition_by=partition_cols, commit_properties=props)
                else:
                    t.create_write_transaction([*written.adds], "overwrite", t.schema(), partition_by=partition_cols,
                                               partition_filters=replaced[0] if replaced else None,
                                               commit_properties=props)

            return self._commit_retrying(
                ref, table, written, metadata, attempts=MAX_OVERWRITE_ATTEMPTS, what="INSERT OVERWRITE", commit=commit,
                check=lambda t, latest: self._check_no_conflict(ref, t, latest, replaced, before, what=operation))

    def create(self, ref: TableRef, schema: T.StructType, *, partition_by: Sequence[str],
               frame: DataFrame | None = None, description: str | None = None,
               configuration: Mapping[str, str] | None = None, operation: str = "CREATE TABLE") -> int:
        """`CREATE TABLE` (empty) or `CREATE TABLE … AS SELECT` (with `frame`): version 0 in one commit."""
        uri = self.catalog.table_uri(ref)
        if DeltaTable.is_deltatable(uri, self.catalog.delta_options()):
            raise DeltaConnectorError(f"Delta table {ref} already exists.")
        dschema = delta_schema(schema, table=str(ref))
        _check_partitioning(ref, schema, partition_by)
        created_dir = not self.storage.exists(uri)
        try:
            if frame is None:
                DeltaTable.create(uri, dschema, mode="error", partition_by=list(partition_by) or None, name=ref.table,
                                  description=description, configuration=dict(configuration or {}) or None,
                                  storage_options=self.catalog.delta_options(),
                                  commit_properties=CommitProperties(custom_metadata={"lakeport.operation": operation}))
                return 0
            with self._pending(ref, frame, list(partition_by)) as written:
                create_table_with_add_actions(
                    uri, dschema, written.adds, mode="error", partition_by=list(partition_by) or None,
                    name=ref.table, description=description, configuration=dict(configuration or {}) or None,
                    storage_options=self.catalog.delta_options(),
                    commit_properties=CommitProperties(custom_metadata=self._metadata(operation, written, None,
                                                                                      blind=True)),
                )
            return 0
        except DeltaError as exc:
            if created_dir and not DeltaTable.is_deltatable(uri, self.catalog.delta_options()):
                self.storage.delete(uri)
            raise DeltaConnectorError(f"creating Delta table {ref} failed: {exc}") from exc
        except BaseException:
            if created_dir and not DeltaTable.is_deltatable(uri, self.catalog.delta_options()):
                self.storage.delete(uri)
            raise

    def replace(self, ref: TableRef, schema: T.StructType, *, partition_by: Sequence[str],
                frame: DataFrame | None = None, description: str | None = None,
                configuration: Mapping[str, str] | None = None, operation: str = "CREATE OR REPLACE TABLE") -> int:
        """`CREATE OR REPLACE TABLE` of an existing table: one commit removing every file and writing the new
        schema, partitioning, properties (and `frame`'s rows); older versions stay readable (history kept)."""
        uri = self.catalog.table_uri(ref)
        table = open_table(self.catalog, ref)
        check_writable(table, ref, removes_files=True)
        dschema = delta_schema(schema, table=str(ref))
        _check_partitioning(ref, schema, partition_by)
        attempted_at = table.version()
        try:
            if frame is None:
                commit_id = uuid.uuid4().hex[:16]
                DeltaTable.create(uri, dschema, mode="overwrite", partition_by=list(partition_by) or None,
                                  name=ref.table, description=description,
                                  configuration=dict(configuration or {}) or None,
                                  storage_options=self.catalog.delta_options(),
                                  commit_properties=CommitProperties(custom_metadata={
                                      "lakeport.operation": operation, COMMIT_ID_KEY: commit_id,
                                      "readVersion": attempted_at}))
                return self._landed_version(ref, attempted_at, commit_id)
            with self._pending(ref, frame, list(partition_by)) as written:
                create_table_with_add_actions(
                    uri, dschema, written.adds, mode="overwrite", partition_by=list(partition_by) or None,
                    name=ref.table, description=description, configuration=dict(configuration or {}) or None,
                    storage_options=self.catalog.delta_options(),
                    commit_properties=CommitProperties(custom_metadata=self._metadata(operation, written,
                                                                                      attempted_at, blind=False)),
                )
                return self._landed_version(ref, attempted_at, written.commit_id)
        except DeltaError as exc:
            raise DeltaConnectorError(f"{operation} {ref} failed: {exc}") from exc

    def operate(self, ref: TableRef, table: DeltaTable, operation: str,
                run: Callable[[CommitProperties], object]) -> tuple[int, object]:
        """Run one delta-rs operation (`alter`, `restore`, `optimize`, …) on `table` with this writer's commitInfo;
        returns (the version it committed, or the one read when it committed nothing; the operation's answer)."""
        commit_id = uuid.uuid4().hex[:16]
        attempted_at = table.version()
        properties = CommitProperties(custom_metadata={"lakeport.operation": operation, COMMIT_ID_KEY: commit_id,
                                                       **self.extra_metadata})
        try:
            answer = run(properties)
        except CommitFailedError as exc:
            raise DeltaConflictError(
                f"{operation} {ref} conflicted with a concurrent commit after version {attempted_at} ({exc}); nothing "
                "of it was committed. Run it again.") from exc
        except DeltaError as exc:
            raise DeltaConnectorError(f"{operation} {ref} failed: {exc}") from exc
        latest = open_table(self.catalog, ref)
        if latest.version() == attempted_at:
            return attempted_at, answer
        return self._landed_version(ref, attempted_at, commit_id), answer

    def replace_files(self, ref: TableRef, read: DeltaTable, frame: DataFrame | None, *,
                      removed: Sequence[Mapping[str, Any]], read_set: set[str], operation: str,
                      metrics: Mapping[str, Any], covers: Callable[[DeltaTable], set[str] | None] | None = None) -> int:
        """DELETE/UPDATE/TRUNCATE/MERGE: remove `removed` (files of the snapshot `read`) and add `frame`'s rows, one
        commit.

        Conflicts as Delta's WriteSerializable level defines them: blind appends committed since `read` are
        serialized before this one, so it retries on top of them (their rows stay untouched); a commit that removed a
        file this statement read (`read_set`), changed the schema, or added data files that this statement's read
        covers without being a blind append (another UPDATE, MERGE, overwrite: rows it should have seen) fails it with
        a `DeltaConflictError` naming the versions. `covers(latest)` names the files of a snapshot the statement's
        read predicate covers (its partitions), None the whole table. A table whose `delta.isolationLevel` is
        `Serializable` also conflicts on blind appends.
        """
        partition_cols = list(read.metadata().partition_columns)
        serializable = (read.metadata().configuration.get("delta.isolationLevel") or "").lower() == "serializable"
        pending = (self._pending(ref, frame, partition_cols, read) if frame is not None
                   else contextlib.nullcontext(WrittenFiles([], [], uuid.uuid4().hex[:16])))
        with pending as written:
            metadata = {**self._metadata(operation, written, read.version(), blind=False), **metrics,
                        "lakeport.numRemovedFiles": len(removed)}
            removes = _remove_actions(removed, _partition_keys(read))
            return self._commit_retrying(
                ref, read, written, metadata, attempts=MAX_OVERWRITE_ATTEMPTS, what=operation,
                commit=lambda t, props: t.create_write_transaction(
                    [*removes, *written.adds], "append", t.schema(), partition_by=partition_cols,
                    commit_properties=props),
                check=lambda _t, latest: self._check_rewrite_conflict(ref, read, latest, read_set,
                                                                      serializable=serializable, what=operation,
                                                                      covers=covers))

    def _commit_retrying(self, ref: TableRef, table: DeltaTable, written: WrittenFiles, metadata: dict[str, Any], *,
                         attempts: int, what: str, commit: Callable[[DeltaTable, CommitProperties], None],
                         check: Callable[[DeltaTable, DeltaTable], None]) -> int:
        """Commit on `table`'s snapshot; after a concurrent commit, `check(attempted, latest)` raises on a conflict,
        else the commit is retried on the latest snapshot. Returns the version the commit landed at.

        Retries are ours (`max_commit_retries=0`): delta-rs would treat every write as having read every file.
        """
        for _attempt in range(attempts):
            attempted_at = table.version()
            properties = CommitProperties(custom_metadata=metadata, max_commit_retries=0)
            try:
                commit(table, properties)
                return self._landed_version(ref, attempted_at, written.commit_id)
            except DeltaError as exc:
                latest = open_table(self.catalog, ref)
                if latest.version() == attempted_at:
                    raise DeltaConnectorError(f"commit to Delta table {ref} failed: {exc}") from exc
                check(table, latest)
                table = latest
        raise DeltaConflictError(
            f"{what} on Delta table {ref} gave up after {attempts} attempts: other writers kept committing. "
            "Nothing of this statement was committed; run it again."
        )

    def _check_rewrite_conflict(self, ref: TableRef, read: DeltaTable, latest: DeltaTable, read_set: set[str], *,
                                serializable: bool, what: str,
                                covers: Callable[[DeltaTable], set[str] | None] | None = None) -> None:
        """Raise `DeltaConflictError` if commits after `read` removed a file this statement read, added data its read
        covers other than by a blind append (any added file when Serializable), or changed the table's shape."""
        self._check_no_conflict(ref, read, latest, None, None, what=what)
        now = {f["path"] for f in add_actions(latest)}
        versions = f"{read.version() + 1}..{latest.version()}"
        gone = read_set - now
        if gone:
            raise DeltaConflictError(
                f"concurrent commit(s) {versions} to Delta table {ref} removed {len(gone)} file(s) this {what} read; "
                f"this {what} was not committed, so no committed row was lost. Run it again."
            )
        added = now - {f["path"] for f in add_actions(read)}
        if not added:
            return
        if serializable:
            raise DeltaConflictError(
                f"concurrent commit(s) {versions} added files to Delta table {ref}, whose isolation level is "
                f"Serializable; this {what} was not committed. Run it again."
            )
        seen = self._data_added_by_rewrites(ref, read.version(), latest.version()) & added
        covered = covers(latest) if covers is not None else None
        if covered is not None:
            seen &= covered
        if seen:
            raise DeltaConflictError(
                f"concurrent commit(s) {versions} to Delta table {ref} added rows this {what} should have read "
                f"({len(seen)} file(s) written by a commit that was not a blind append); this {what} was not "
                "committed, so no committed row was lost. Run it again."
            )

    def _data_added_by_rewrites(self, ref: TableRef, start: int, end: int) -> set[str]:
        """Files added with a data change by the commits after `start` up to `end` that were not blind appends or
        compactions (Delta's WriteSerializable serializes only those two before a statement that read the table)."""
        table = open_table(self.catalog, ref)
        entries = {int(h["version"]): h for h in table.history(max(1, table.version() - start))}
        table.load_as_version(start)
        previous = {f["path"] for f in add_actions(table)}
        added: set[str] = set()
        for version in range(start + 1, end + 1):
            table.load_as_version(version)
            current = {f["path"] for f in add_actions(table)}
            if not _blind_or_compaction(entries.get(version, {})):
                added |= current - previous
            previous = current
        return added

    def _landed_version(self, ref: TableRef, attempted_at: int, commit_id: str) -> int:
        """The version a commit made at `attempted_at` landed at.

        delta-rs returns nothing from a commit and the committing `DeltaTable` object still reports the version
        before it (deltalake 1.6): pinning that would make the run read its own write stale. The commit carries
        its id in commitInfo; look it up among the versions written since.
        """
        latest = open_table(self.catalog, ref)
        for entry in commit_history(latest, ref):
            if entry.get(COMMIT_ID_KEY) == commit_id:
                return int(entry["version"])
        raise DeltaConnectorError(
            f"the commit to Delta table {ref} succeeded but its version is not in the log after version "
            f"{attempted_at}; another writer may have replaced the table."
        )

    # ---- files ---------------------------------------------------------------------------------------
    @contextlib.contextmanager
    def _pending(self, ref: TableRef, frame: DataFrame, partition_cols: list[str],
                 table: DeltaTable | None = None) -> Iterator[WrittenFiles]:
        """Write `frame` as parquet files of a pending commit; delete them unless the body commits them.

        A column-mapped `table` gets its physical names: in the files, the partition directories and the log's
        partition values and statistics."""
        if table is not None and is_mapped(table):
            logical = spark_schema(table.schema())
            keys = physical_names(logical)
            frame = to_physical(frame, logical)
            partition_cols = [keys[c] for c in partition_cols]
        root = self.catalog.table_uri(ref)
        commit_id = uuid.uuid4().hex[:16]
        staging = f"{root}/{STAGING_PREFIX}{commit_id}"
        moved: list[str] = []
        try:
            try:
                frame.write.mode("errorifexists").partitionBy(*partition_cols).parquet(spark_path(staging))
            except Exception as exc:
                raise DeltaConnectorError(f"writing data files for Delta table {ref} failed: {spark_message(exc)}") \
                    from exc
            adds: list[AddAction] = []
            for info in self.storage.list_files(staging):
                directory, _, name = info.relative_path.rpartition("/")
                if not name.endswith(".parquet") or name.startswith((".", "_")):
                    continue  # _SUCCESS markers, .crc checksums of the local file system
                values = _partition_values(directory, partition_cols)
                final = f"{directory}/{commit_id}-{name}" if directory else f"{commit_id}-{name}"
                source, target = f"{staging}/{info.relative_path}", f"{root}/{final}"
                stats = None
                if self.catalog.is_local:
                    footer = pq.read_metadata(source)  # the footer only: cheap, and exact
                    if footer.num_rows == 0:
                        continue  # Spark writes an empty file for an empty result; nothing to commit
                    stats = json.dumps(file_stats(footer, frame.schema))
                self.storage.rename(source, target)
                moved.append(target)
                # delta-rs expects the raw relative path here and URI-encodes it in the log itself.
                # delta-rs takes None for a file without statistics (object stores: the footer is not read back)
                adds.append(AddAction(final, info.size, values, info.modification_time, True, stats))  # type: ignore[arg-type]
            self.storage.delete(staging)
            yield WrittenFiles(adds=adds, absolute_paths=moved, commit_id=commit_id)
        except BaseException:
            self._discard(staging, moved)
            raise

    def _discard(self, staging: str, moved: list[str]) -> None:
        """Best-effort removal of files no commit references."""
        for path in [staging, *moved]:
            try:
                self.storage.delete(path)
            except Exception:  # noqa: BLE001 — the table stays correct without this cleanup
                logger.warning("delta.cleanup_failed", extra={"path": path})

    # ---- conflicts -----------------------------------------------------------------------------------
    def _replaced_files(self, table: DeltaTable, replaced: list[list[tuple[str, str, str]]] | None) -> set[str]:
        """Paths of the files an overwrite with these partition filters replaces in `table`'s snapshot."""
        files = add_actions(table)
        if replaced is None:
            return {f["path"] for f in files}
        wanted = [{c: v for c, _, v in conj} for conj in replaced]
        chosen = set()
        for f in files:
            for conj in wanted:
                if all(_partition_string(f.get(f"partition.{c}")) == v for c, v in conj.items()):
                    chosen.add(f["path"])
                    break
        return chosen

    def _removes(self, table: DeltaTable, replaced: list[list[tuple[str, str, str]]] | None) -> list[RemoveAction]:
        """Remove actions for the replaced files of `table`'s snapshot."""
        chosen = self._replaced_files(table, replaced)
        return _remove_actions([f for f in add_actions(table) if f["path"] in chosen], _partition_keys(table))

    def _check_no_conflict(self, ref: TableRef, read: DeltaTable, latest: DeltaTable,
                           replaced: list[list[tuple[str, str, str]]] | None, before: set[str] | None, *,
                           what: str = "INSERT OVERWRITE") -> None:
        """Raise `DeltaConflictError` if commits after `read` changed the table's shape or the files it read.

        `before` None means the write read no data of the table (a blind append).
        """
        versions = f"{read.version() + 1}..{latest.version()}"
        if (list(latest.metadata().partition_columns) != list(read.metadata().partition_columns)
                or not same_columns(spark_schema(latest.schema()), spark_schema(read.schema()))):
            raise DeltaConflictError(
                f"concurrent commit(s) {versions} changed the schema of Delta table {ref}; "
                f"this {what} was not committed."
            )
        if before is None:
            return
        now = self._replaced_files(latest, replaced)
        if now != before:
            added, removed = len(now - before), len(before - now)
            raise DeltaConflictError(
                f"concurrent commit(s) {versions} to Delta table {ref} changed the data this {what} read "
                f"({added} file(s) added, {removed} removed); this {what} was not committed, so no committed "
                "row was lost. Run it again."
            )

    def _metadata(self, operation: str, written: WrittenFiles, read_version: int | None, *,
                  blind: bool) -> dict[str, Any]:
        metadata: dict[str, Any] = {"lakeport.operation": operation, "isBlindAppend": blind,
                                    "lakeport.numFiles": len(written.adds), COMMIT_ID_KEY: written.commit_id}
        if written.num_records is not None:
            metadata["lakeport.numOutputRows"] = written.num_records
        if read_version is not None:
            metadata["readVersion"] = read_version
        metadata.update(self.extra_metadata)
        return metadata


def _blind_or_compaction(commit_info: Mapping[str, Any]) -> bool:
    """Whether a commit only appended rows without reading the table, or only rearranged files (dataChange=false).

    Lakeport's commits say so (`isBlindAppend`); delta-rs's appends (`write_deltalake` mode append) and streaming
    appends do not, and read nothing of the table; OPTIMIZE adds files without a data change."""
    operation = commit_info.get("operation")
    if operation == "OPTIMIZE":
        return True
    if "isBlindAppend" in commit_info:
        return commit_info["isBlindAppend"] is True
    parameters = commit_info.get("operationParameters") or {}
    return (operation in ("WRITE", "STREAMING UPDATE") and str(parameters.get("mode", "")).lower() == "append"
            and not parameters.get("predicate"))


# Column types whose parquet footer min/max are exact and compare like Delta's stats (no NaN, no truncation).
_STATS_TYPES = (T.LongType, T.IntegerType, T.ShortType, T.ByteType, T.StringType, T.DateType)
_MAX_STATS_STRING = 256


def file_stats(footer: pq.FileMetaData, schema: T.StructType) -> dict[str, Any]:
    """Delta's per-file statistics from a parquet footer: `numRecords`, and `minValues`/`maxValues`/`nullCount` of
    the top-level columns whose footer statistics are exact for it (integers, dates, short strings), which readers
    (and this connector's DELETE/UPDATE) use to skip files."""
    stats: dict[str, Any] = {"numRecords": footer.num_rows}
    wanted = {f.name: f.dataType for f in schema.fields if isinstance(f.dataType, _STATS_TYPES)}
    mins: dict[str, Any] = {}
    maxes: dict[str, Any] = {}
    nulls: dict[str, int] = {}
    for index in range(footer.num_columns):
        name = footer.schema.column(index).path
        if name not in wanted:
            continue
        chunks = [footer.row_group(g).column(index).statistics for g in range(footer.num_row_groups)]
        if not chunks or any(c is None or c.null_count is None for c in chunks):
            continue
        nulls[name] = sum(int(c.null_count) for c in chunks)
        present = [c for c in chunks if c.has_min_max]
        if not present:
            continue
        low, high = min(c.min for c in present), max(c.max for c in present)
        if isinstance(low, bytes | bytearray) or isinstance(high, bytes | bytearray):
            continue
        if isinstance(high, str) and max(len(low), len(high)) > _MAX_STATS_STRING:
            continue
        mins[name] = low.isoformat() if hasattr(low, "isoformat") else low
        maxes[name] = high.isoformat() if hasattr(high, "isoformat") else high
    if mins:
        stats["minValues"], stats["maxValues"] = mins, maxes
    if nulls:
        stats["nullCount"] = nulls
    return stats


def _check_partitioning(ref: TableRef, schema: T.StructType, partition_by: Sequence[str]) -> None:
    """Partition columns this connector can write and read back exactly."""
    for column in partition_by:
        field = next((f for f in schema.fields if f.name == column), None)
        if field is None:
            raise DeltaConnectorError(f"partition column '{column}' of {ref} is not a column of the table.")
        if isinstance(field.dataType, T.TimestampType | T.TimestampNTZType | T.FloatType | T.DoubleType
                      | T.StructType | T.ArrayType | T.MapType | T.BinaryType):
            raise DeltaConnectorError(
                f"Delta table {ref} cannot be partitioned by '{column}' of type {field.dataType.simpleString()}:"
                " use a string, integer, date, boolean or decimal column."
            )
    if len(partition_by) == len(schema.fields) and schema.fields:
        raise DeltaConnectorError(f"Delta table {ref} needs at least one column that is not a partition column.")


def _partition_keys(table: DeltaTable) -> dict[str, str]:
    """Partition column → its key in the log's partition values (the physical name on column-mapped tables)."""
    columns = list(table.metadata().partition_columns)
    if not is_mapped(table):
        return {c: c for c in columns}
    names = physical_names(spark_schema(table.schema()))
    return {c: names[c] for c in columns}


def _remove_actions(files: Sequence[Mapping[str, Any]], keys: Mapping[str, str] | None = None) -> list[RemoveAction]:
    """Remove actions (data change) for active files as `add_actions` lists them (logical partition names, logged
    under `keys`)."""
    now = int(time.time() * 1000)
    keys = keys or {}
    return [RemoveAction(unquote(f["path"]), True, now, f["size_bytes"],
                         {keys.get(k.removeprefix("partition."), k.removeprefix("partition.")): _partition_value(v)
                          for k, v in f.items() if k.startswith("partition.")})
            for f in files]


def _partition_values(directory: str, partition_cols: list[str]) -> dict[str, str | None]:
    """Partition values of a file Spark wrote under `col=value/…` (Spark escapes values like URL encoding)."""
    if not partition_cols:
        return {}
    segments = directory.split("/") if directory else []
    if len(segments) != len(partition_cols):
        raise DeltaConnectorError(f"unexpected layout of written files: '{directory}'")
    values: dict[str, str | None] = {}
    for segment, column in zip(segments, partition_cols, strict=True):
        name, _, raw = segment.partition("=")
        value = unquote(raw)
        values[column] = None if value == HIVE_NULL else value
    return values


def _partition_value(value: Any) -> str | None:
    return None if value is None else _partition_string(value)


def _partition_string(value: Any) -> str:
    """A typed partition value in the string form of a Delta log (how partition filters compare)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def spark_message(exc: BaseException) -> str:
    """The first line of a Spark error: enough to act on, without a JVM stack trace."""
    text = str(getattr(exc, "getMessage", lambda: None)() or exc)
    return text.strip().splitlines()[0] if text.strip() else type(exc).__name__


def align(frame: DataFrame, schema: T.StructType, *, ref: TableRef, columns: Sequence[str] | None = None,
          static: Mapping[str, str | None] | None = None, by_name: bool = False,
          table_format: str = "Delta") -> DataFrame:
    """Shape a source query's rows like the table: its column order and types, static partition values filled.

    By position (Spark's INSERT default): the query's columns map to the table's columns (or the listed
    `columns`), skipping static partition columns. NOT NULL columns fail the write on a null, as Delta asks.
    """
    static = dict(static or {})
    by_lower = {f.name.lower(): f for f in schema.fields}
    for name in static:
        if name.lower() not in by_lower:
            raise DeltaConnectorError(f"PARTITION column '{name}' is not a column of {table_format} table {ref}.")
    static_lower = {k.lower(): v for k, v in static.items()}
    if columns is not None:
        unknown = [c for c in columns if c.lower() not in by_lower]
        if unknown:
            raise DeltaConnectorError(f"column(s) {', '.join(unknown)} are not columns of {table_format} table {ref}.")
        targets = [by_lower[c.lower()].name for c in columns]
    else:
        targets = [f.name for f in schema.fields if f.name.lower() not in static_lower]
    source = frame.columns
    mapping: dict[str, str] = {}
    if by_name:
        source_lower = {c.lower(): c for c in source}
        missing = [t for t in targets if t.lower() not in source_lower]
        if missing or len(source) != len(targets):
            raise DeltaConnectorError(
                f"INSERT BY NAME into {table_format} table {ref}: the query's columns ({', '.join(source)}) do not match "
                f"the table's ({', '.join(targets)})."
            )
        mapping = {t: source_lower[t.lower()] for t in targets}
    else:
        if len(source) != len(targets):
            raise DeltaConnectorError(
                f"{table_format} table {ref} expects {len(targets)} column(s) ({', '.join(targets)}) but the query produced "
                f"{len(source)} ({', '.join(source)})."
            )
        mapping = dict(zip(targets, source, strict=True))
    indexed = frame.toDF(*[f"__lp_src_{i}" for i in range(len(source))])
    position = {name: f"__lp_src_{i}" for i, name in enumerate(source)}
    out = []
    for field in schema.fields:
        if field.name.lower() in static_lower:
            value = F.lit(static_lower[field.name.lower()]).cast(field.dataType)
        elif field.name in mapping:
            value = F.col(position[mapping[field.name]]).cast(field.dataType)
        else:
            value = F.lit(None).cast(field.dataType)
        if not field.nullable:
            value = F.when(value.isNull(), F.raise_error(
                F.lit(f"NULL value for NOT NULL column '{field.name}' of {table_format} table {ref}"))).otherwise(value)
        out.append(value.alias(field.name))
    return indexed.select(*out)
