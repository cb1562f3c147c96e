"""Positional delete files as the Iceberg spec defines them, written with pyarrow and committed with pyiceberg's own
manifest writer (pyiceberg 0.12 reads them but its DELETE rewrites files instead of writing them)."""

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
    """A fast append whose snapshot also gets one delete manifest holding `delete_files`."""

    delete_files: list[DataFile]

    def _process_manifests(self, manifests: list[ManifestFile]) -> list[ManifestFile]:
        writer = _DeleteManifestWriter(self._transaction.table_metadata.spec(), self.schema(),
                                       self.new_manifest_output(), self._snapshot_id, self._compression)
        with writer:
            for data_file in self.delete_files:
                writer.add(ManifestEntry.from_args(status=ManifestEntryStatus.ADDED, snapshot_id=self._snapshot_id,
                                                   sequence_number=None, file_sequence_number=None,
                                                   data_file=data_file))
        return [*manifests, writer.to_manifest_file()]


def commit_positional_deletes(table: Any, positions: dict[str, list[int]]) -> None:
    """One snapshot adding a position delete file that deletes `positions` (row indexes) of each data file."""
    schema = pa.schema([pa.field("file_path", pa.string(), nullable=False, metadata={b"PARQUET:field_id": _FILE_PATH_ID}),
                        pa.field("pos", pa.int64(), nullable=False, metadata={b"PARQUET:field_id": _POS_ID})])
    rows = sorted((path, pos) for path, list_ in positions.items() for pos in list_)
    data = pa.Table.from_pylist([{"file_path": p, "pos": n} for p, n in rows], schema=schema)
    location = table.location().removeprefix("file://") + f"/data/deletes-{uuid.uuid4().hex}.parquet"
    pq.write_table(data, location)
    delete_file = DataFile.from_args(
        content=DataFileContent.POSITION_DELETES, file_path="file://" + location, file_format=FileFormat.PARQUET,
        partition=Record(), record_count=len(rows), file_size_in_bytes=Path(location).stat().st_size,
        column_sizes={}, value_counts={}, null_value_counts={}, nan_value_counts={}, lower_bounds={},
        upper_bounds={}, split_offsets=None, equality_ids=None, sort_order_id=None, spec_id=table.spec().spec_id)
    with table.transaction() as tx:
        producer = _AddDeletes(operation=Operation.APPEND, transaction=tx, io=table.io)
        producer.delete_files = [delete_file]
        producer.commit()
