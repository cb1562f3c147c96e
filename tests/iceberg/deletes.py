"""Positional and equality delete files as the Iceberg spec defines them, written with pyarrow and committed with
pyiceberg's own manifest writer (pyiceberg 0.12 writes neither: its DELETE rewrites files; it reads positional
deletes and refuses tables with equality deletes)."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from pyiceberg.manifest import (
    DataFile,
    DataFileContent,
    FileFormat,
    ManifestContent,
    ManifestEntry,
    ManifestEntryStatus,
    ManifestFile,
    ManifestWriterV2,
)
from pyiceberg.table.snapshots import Operation
from pyiceberg.table.update.snapshot import _FastAppendFiles
from pyiceberg.typedef import Record

_FILE_PATH_ID, _POS_ID = b"2147483546", b"2147483545"  # the spec's reserved field ids of position delete files


class _DeleteManifestWriter(ManifestWriterV2):
    def content(self) -> ManifestContent:
        return ManifestContent.DELETES

    @property
    def _meta(self) -> dict[str, str]:
        return {**super()._meta, "content": "deletes"}


class _AddDeletes(_FastAppendFiles):
    """A fast append whose snapshot also gets delete manifests (one per partition spec) holding `delete_files`."""

    delete_files: list[DataFile]

    def _process_manifests(self, manifests: list[ManifestFile]) -> list[ManifestFile]:
        by_spec: dict[int, list[DataFile]] = {}
        for data_file in self.delete_files:
            by_spec.setdefault(data_file.spec_id, []).append(data_file)
        written = []
        for spec_id, files in sorted(by_spec.items()):
            writer = _DeleteManifestWriter(self._transaction.table_metadata.specs()[spec_id], self.schema(),
                                           self.new_manifest_output(), self._snapshot_id, self._compression)
            with writer:
                for data_file in files:
                    writer.add(ManifestEntry.from_args(status=ManifestEntryStatus.ADDED, snapshot_id=self._snapshot_id,
                                                       sequence_number=None, file_sequence_number=None,
                                                       data_file=data_file))
            written.append(writer.to_manifest_file())
        return [*manifests, *written]


def commit_delete_files(table: Any, delete_files: list[DataFile]) -> None:
    """One snapshot adding `delete_files` (positional or equality)."""
    with table.transaction() as tx:
        producer = _AddDeletes(operation=Operation.APPEND, transaction=tx, io=table.io)
        producer.delete_files = delete_files
        producer.commit()


def _delete_file(table: Any, content: DataFileContent, data: pa.Table, *, spec_id: int, partition: tuple[Any, ...],
                 equality_ids: list[int] | None) -> DataFile:
    location = table.location().removeprefix("file://") + f"/data/deletes-{uuid.uuid4().hex}.parquet"
    pq.write_table(data, location)
    delete_file = DataFile.from_args(
        content=content, file_path="file://" + location, file_format=FileFormat.PARQUET,
        partition=Record(*partition), record_count=data.num_rows, file_size_in_bytes=Path(location).stat().st_size,
        column_sizes={}, value_counts={}, null_value_counts={}, nan_value_counts={}, lower_bounds={},
        upper_bounds={}, split_offsets=None, equality_ids=equality_ids, sort_order_id=None, spec_id=spec_id)
    delete_file.spec_id = spec_id  # not a stored field: from_args drops it
    return delete_file


def equality_delete_file(table: Any, columns: list[str], rows: list[tuple[Any, ...]], *, spec_id: int | None = None,
                         partition: tuple[Any, ...] = ()) -> DataFile:
    """An equality delete file on `columns` (by the table's current field ids) deleting rows equal to `rows`; scoped
    to `partition` of spec `spec_id` (default: the current spec), or global when that spec is unpartitioned."""
    from pyiceberg.io.pyarrow import schema_to_pyarrow

    schema = table.schema()
    fields = [schema.find_field(c) for c in columns]
    arrow = schema_to_pyarrow(schema.select(*columns))  # carries PARQUET:field_id metadata
    arrow = pa.schema([arrow.field(f.name).with_nullable(True) for f in fields])
    data = pa.Table.from_pylist([dict(zip(columns, r, strict=True)) for r in rows], schema=arrow)
    return _delete_file(table, DataFileContent.EQUALITY_DELETES, data,
                        spec_id=table.spec().spec_id if spec_id is None else spec_id, partition=partition,
                        equality_ids=[f.field_id for f in fields])


def commit_positional_deletes(table: Any, positions: dict[str, list[int]], *, spec_id: int | None = None,
                              partition: tuple[Any, ...] = ()) -> None:
    """One snapshot adding a position delete file that deletes `positions` (row indexes) of each data file (all in
    `partition` of spec `spec_id`, default the current spec)."""
    schema = pa.schema([pa.field("file_path", pa.string(), nullable=False, metadata={b"PARQUET:field_id": _FILE_PATH_ID}),
                        pa.field("pos", pa.int64(), nullable=False, metadata={b"PARQUET:field_id": _POS_ID})])
    rows = sorted((path, pos) for path, list_ in positions.items() for pos in list_)
    data = pa.Table.from_pylist([{"file_path": p, "pos": n} for p, n in rows], schema=schema)
    commit_delete_files(table, [_delete_file(table, DataFileContent.POSITION_DELETES, data,
                                             spec_id=table.spec().spec_id if spec_id is None else spec_id,
                                             partition=partition, equality_ids=None)])
