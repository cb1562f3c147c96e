"""Embedded Delta tables as a Spark streaming source (pyspark's Python Data Source API), read through delta-rs.

Offsets are Delta versions (`{"version": n}`: every row of versions ≤ n has been read; -1 before the first
batch). As Delta's own source does, the first micro-batch is the table's snapshot at the latest version when the
query starts (active files less their deletion vectors); each later micro-batch holds the files that the versions
`(start, end]` added. A replay of a batch reads the same versions' files, so the sinks' batch-id checks make it
exactly once. Under Trigger.AvailableNow the reader pins the table's latest version when the run starts and plans
batches of at most `max_versions_per_batch` versions up to it (the snapshot, if the run makes it, is one batch), so
a run reads what the table held at its start and leaves later commits to the next run. A stream reads appends
only: a version that removes or rewrites rows (DELETE, UPDATE, MERGE, OVERWRITE) fails the micro-batch with a
message naming the version, as Delta-Spark does without `ignoreChanges` or `skipChangeCommits`; versions that only
rearrange files (OPTIMIZE, `dataChange: false`) are skipped.

The driver side plans from the commit files in `_delta_log` (local warehouses only); the Python workers read the
planned data files with pyarrow (physical column names under column mapping, partition values from the log,
deletion vectors decoded by delta-rs) and hand Spark Arrow record batches.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from deltalake import DeltaTable
from deltalake.exceptions import DeltaError, TableNotFoundError
from pyspark.sql.datasource import DataSource, DataSourceStreamReader, InputPartition
from pyspark.sql.pandas.types import to_arrow_schema
from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadLimit, SupportsTriggerAvailableNow
from pyspark.sql.types import StructType

from lakeport_engine.delta.catalog import TableRef
from lakeport_engine.delta.errors import DeltaConnectorError
from lakeport_engine.delta.features import check_readable
from lakeport_engine.delta.schema import PHYSICAL_NAME, column_mapping_mode, spark_schema

FORMAT = "lakeport_delta_stream"
FILES_PER_PARTITION = 16  # data files one Python worker reads in one task
BEFORE_FIRST = -1


@dataclass(frozen=True)
class VersionFiles(InputPartition):
    """Data files (log paths) of the table as it is at `version`, to read in one task."""

    version: int
    paths: tuple[str, ...]


def table_ref(label: str) -> TableRef:
    """The TableRef of `catalog.database.table` (for the connector's messages)."""
    catalog, database, table = label.split(".", 2)
    return TableRef(catalog, database, table)


def same_columns(a: StructType, b: StructType) -> bool:
    """True when two schemas have the same column names and types (metadata such as physical names ignored)."""
    return [(f.name.lower(), f.dataType.simpleString()) for f in a.fields] == \
        [(f.name.lower(), f.dataType.simpleString()) for f in b.fields]


def commit_actions(root: str, version: int, label: str) -> list[dict[str, Any]]:
    """The actions of one commit, read from `_delta_log/<version>.json`."""
    path = os.path.join(root, "_delta_log", f"{version:020d}.json")
    try:
        with open(path, encoding="utf-8") as handle:
            return [json.loads(line) for line in handle if line.strip()]
    except FileNotFoundError:
        raise DeltaConnectorError(
            f"Delta table {label}: the commit of version {version} is no longer in the transaction log (log "
            "retention removed it), so the stream cannot read it; start the query again with a new checkpoint."
        ) from None


def appended_files(actions: Sequence[dict[str, Any]], version: int, label: str, schema: StructType) -> list[str]:
    """The data files a commit appended; a commit that removes or changes rows, or the schema, is refused."""
    operation = next((a["commitInfo"].get("operation") for a in actions if "commitInfo" in a), None) or "unknown"
    removes = [a["remove"] for a in actions if "remove" in a and a["remove"].get("dataChange", True)]
    if removes:
        raise DeltaConnectorError(
            f"Delta table {label}: version {version} ({operation}) removes or changes rows; a stream from a Delta "
            "table reads appended rows only (as Delta's own source without ignoreChanges / skipChangeCommits). "
            "Start the query again with a new checkpoint to read the table as it is now."
        )
    for action in actions:
        if "metaData" in action and action["metaData"].get("schemaString"):
            new = StructType.fromJson(json.loads(action["metaData"]["schemaString"]))
            if not same_columns(new, schema):
                raise DeltaConnectorError(
                    f"Delta table {label}: version {version} ({operation}) changed the table's schema; the stream "
                    "reads the schema it started with. Start the query again with a new checkpoint."
                )
    return [a["add"]["path"] for a in actions if "add" in a and a["add"].get("dataChange", True)]


def _chunks(version: int, paths: Sequence[str]) -> list[InputPartition]:
    return [VersionFiles(version, tuple(paths[i:i + FILES_PER_PARTITION]))
            for i in range(0, len(paths), FILES_PER_PARTITION)]


class DeltaStreamDataSource(DataSource):
    """`spark.readStream.format("lakeport_delta_stream")` with options uri, table (label), schema (Spark JSON)."""

    @classmethod
    def name(cls) -> str:
        return FORMAT

    def schema(self) -> StructType:
        return StructType.fromJson(json.loads(self.options["schema"]))

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:
        return DeltaStreamReader(dict(self.options))


class DeltaStreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """Plans micro-batches from the table's versions; Python workers read the planned files."""

    def __init__(self, options: dict[str, str]) -> None:
        self.uri = options["uri"]
        self.label = options["table"]
        self.schema = StructType.fromJson(json.loads(options["schema"]))
        self.max_versions = int(options.get("max_versions_per_batch") or 0)
        self.target: int | None = None  # an AvailableNow run's last version, pinned when it starts

    def _latest(self) -> int:
        try:
            return DeltaTable(self.uri).version()
        except TableNotFoundError:
            raise DeltaConnectorError(f"Delta table {self.label} no longer exists (no _delta_log at {self.uri}).") \
                from None

    def initialOffset(self) -> dict[str, int]:
        """Before the first batch, which reads the snapshot at the latest version."""
        return {"version": BEFORE_FIRST}

    def getDefaultReadLimit(self) -> ReadLimit:
        return ReadAllAvailable()

    def prepareForTriggerAvailableNow(self) -> None:
        """Pin this run's end at the table's latest version now: later commits get larger versions."""
        self.target = self._latest()

    def latestOffset(self, start: dict[str, int], limit: ReadLimit) -> dict[str, int]:
        """The table's latest version (at most `max_versions_per_batch` after `start` once the snapshot is read);
        never past an AvailableNow target."""
        if self.target is not None and self.target <= start["version"]:
            return start  # the run has read everything up to its target: Spark ends it
        latest = self._latest()
        if self.target is not None:
            latest = min(latest, self.target)  # versions committed since the run started are the next run's
        if self.max_versions > 0 and start["version"] != BEFORE_FIRST:
            latest = min(latest, start["version"] + self.max_versions)
        return {"version": max(latest, start["version"])}

    def reportLatestOffset(self) -> dict[str, int]:
        return {"version": self._latest()}

    def partitions(self, start: dict[str, int], end: dict[str, int]) -> list[InputPartition]:
        """The snapshot's active files for the first batch; the appended files of each version after it."""
        first, last = int(start["version"]), int(end["version"])
        if last <= first:
            return []
        if first == BEFORE_FIRST:
            table = DeltaTable(self.uri, version=last)
            if not same_columns(spark_schema(table.schema()), self.schema):
                raise DeltaConnectorError(f"Delta table {self.label}: version {last} has another schema than the "
                                          "stream's; start the query again with a new checkpoint.")
            paths = pa.table(table.get_add_actions(flatten=True)).column("path").to_pylist()
            return _chunks(last, paths)
        root = self.uri.removeprefix("file://")
        planned: list[InputPartition] = []
        for version in range(first + 1, last + 1):
            paths = appended_files(commit_actions(root, version, self.label), version, self.label, self.schema)
            planned += _chunks(version, paths)
        return planned

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        """The partition's files as Arrow record batches of the stream's schema."""
        assert isinstance(partition, VersionFiles)
        yield from read_files(self.uri, self.label, self.schema, partition.version, partition.paths)

    def commit(self, end: dict[str, int]) -> None:
        """Nothing to acknowledge: the table keeps its versions."""


def read_files(uri: str, label: str, schema: StructType, version: int,
               paths: Sequence[str]) -> Iterator[pa.RecordBatch]:
    """Rows of some active files of version `version`, less deleted rows, as batches of `schema` (logical names)."""
    try:
        table = DeltaTable(uri, version=version)
    except (DeltaError, OSError) as exc:
        raise DeltaConnectorError(f"cannot load version {version} of Delta table {label}: {exc}") from exc
    yield from read_active(table, label, schema, paths)


def read_active(table: DeltaTable, label: str, schema: StructType,
                paths: Sequence[str] | None = None) -> Iterator[pa.RecordBatch]:
    """Rows of the loaded snapshot's active files `paths` (all of them when None), less deleted rows, as batches of
    `schema` (logical names; a column the snapshot lacks is NULL)."""
    version = table.version()
    check_readable(table, table_ref(label))
    actions = pa.table(table.get_add_actions(flatten=True))
    # the commit's paths are URI-encoded as the log holds them; compare decoded forms
    row_of = {unquote(p): i for i, p in enumerate(actions.column("path").to_pylist())}
    partition_cols = {c.lower() for c in table.metadata().partition_columns}
    current = spark_schema(table.schema())
    mapped = column_mapping_mode(table) != "none"
    physical = {f.name.lower(): (f.metadata or {}).get(PHYSICAL_NAME, f.name) if mapped else f.name
                for f in current.fields}
    target = to_arrow_schema(schema, timezone="UTC")
    root = table.table_uri.removeprefix("file://").rstrip("/")
    keep = _selection_vectors(table, label)
    for path in actions.column("path").to_pylist() if paths is None else paths:
        index = row_of.get(unquote(path))
        if index is None:
            raise DeltaConnectorError(f"Delta table {label}: file {path} is not active at version {version}.")
        local = _local_path(root, path)
        data = pq.read_table(local)
        names = set(data.column_names)
        columns = []
        for field in target:
            key = field.name.lower()
            if key in partition_cols:
                value = actions.column(_partition_column(actions, field.name))[index]
                column: pa.Array | pa.ChunkedArray = pa.repeat(value, data.num_rows)
            elif physical.get(key) in names:
                column = data.column(physical[key])
            else:  # a column added after this file was written
                column = pa.nulls(data.num_rows)
            columns.append(pc.cast(column, options=pc.CastOptions(field.type, allow_time_truncate=True)))
        rows = pa.Table.from_arrays(columns, schema=target)
        selection = keep.get(_plain(local))
        if selection is not None:
            flags = [bool(f) for f in selection[:rows.num_rows]]
            rows = rows.filter(pa.array(flags + [True] * (rows.num_rows - len(flags))))  # rows past it are kept
        yield from rows.to_batches()


def _partition_column(actions: pa.Table, name: str) -> str:
    wanted = f"partition.{name}".lower()
    return next(str(c) for c in actions.column_names if c.lower() == wanted)


def _selection_vectors(table: DeltaTable, label: str) -> dict[str, list[bool]]:
    """Per data file (plain local path) its deletion vector's keep flags; empty when the table has none."""
    if "deletionVectors" not in set(table.protocol().reader_features or []):
        return {}
    try:
        vectors = pa.table(table.deletion_vectors())
    except (DeltaError, OSError) as exc:
        raise DeltaConnectorError(f"cannot read the deletion vectors of Delta table {label}: {exc}") from exc
    return {_plain(uri): flags for uri, flags in zip(vectors.column("filepath").to_pylist(),
                                                       vectors.column("selection_vector").to_pylist(), strict=True)}


def _local_path(root: str, relative: str) -> str:
    path = unquote(relative)  # the log holds URI-encoded paths
    if path.startswith("file:"):
        return _plain(path)
    return path if path.startswith("/") else f"{root}/{path}"


def _plain(uri: str) -> str:
    text = unquote(uri)
    return "/" + text.removeprefix("file:").lstrip("/") if text.startswith("file:") else text
