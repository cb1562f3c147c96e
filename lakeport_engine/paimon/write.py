"""Writes to Paimon tables: executors write data files with pypaimon's table writer, the driver commits once.

`write_messages` runs `frame` through `mapInArrow`: each task opens the table, writes its rows with pypaimon's
batch writer (bucketing, sorting and sequence numbers as Paimon does them) and returns its commit messages,
pickled. The driver collects them and commits them in one snapshot (`commit`); a task or job that fails commits
nothing (its files are never referenced by a snapshot and are removed by `abort`). Rows of a primary-key table are
first hash-partitioned by the key, so one task holds every row of a key and, within the statement, the last of
them wins as Paimon's sequence numbers order them.
"""

from __future__ import annotations

import contextlib
import pickle
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from lakeport_engine.paimon.catalog import PaimonError

MESSAGE_COLUMN = "message"


def writable(loaded: Any, *, table: str) -> None:  # noqa: ANN401 - pypaimon's FileStoreTable
    """Refuse, by name, writes the connector cannot make exactly: dynamic/postpone buckets of primary-key tables
    need one writer per bucket across the job (Paimon's bucket assigner), which distributed tasks do not have."""
    schema = loaded.table_schema
    bucket = int(schema.options.get("bucket", "-1"))
    if schema.primary_keys and bucket < 1:
        raise PaimonError(f"Paimon table {table}: writing a primary-key table with dynamic or postponed buckets "
                          f"('bucket'='{bucket}') is not supported by the embedded Paimon connector; create it with "
                          "TBLPROPERTIES ('bucket'='<n>').")


def write_messages(frame: DataFrame, loaded: Any, *, overwrite: dict[str, Any] | None) -> list[Any]:  # noqa: ANN401
    """Write `frame` (shaped like the table) into `loaded`'s directory from the executors; the commit messages.

    `overwrite`: None for an append/upsert, else the static partition the overwrite replaces ({} = all)."""
    path = str(loaded.table_path)
    keys = list(loaded.table_schema.primary_keys)
    arrow = _arrow_schema(loaded)
    if keys:
        frame = frame.repartition(*[F.col(f"`{k}`") for k in keys])

    def task(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from pypaimon.table.file_store_table import FileStoreTable

        table = FileStoreTable.from_path(path)
        builder = table.new_batch_write_builder()
        if overwrite is not None:
            builder = builder.overwrite(overwrite)
        writer = builder.new_write()
        try:
            wrote = False
            for batch in batches:
                if batch.num_rows:
                    writer.write_arrow_batch(pa.RecordBatch.from_arrays(
                        [batch.column(i).cast(arrow.field(i).type) for i in range(len(arrow))], schema=arrow))
                    wrote = True
            messages = [m for m in writer.prepare_commit() if not m.is_empty()] if wrote else []
        finally:
            writer.close()
        yield pa.RecordBatch.from_pylist([{MESSAGE_COLUMN: pickle.dumps(m)} for m in messages],
                                         schema=pa.schema([(MESSAGE_COLUMN, pa.binary())]))

    rows = frame.mapInArrow(task, f"{MESSAGE_COLUMN} BINARY").collect()
    return [pickle.loads(r[0]) for r in rows]  # noqa: S301 - written by this job's own tasks


def commit(loaded: Any, messages: list[Any], *, overwrite: dict[str, Any] | None,  # noqa: ANN401
           properties: dict[str, str], dynamic: bool = False) -> None:
    """Commit the tasks' messages as one snapshot. An overwrite replaces the static partition given, or — as
    Spark's `partitionOverwriteMode` says — every partition (static) or only the partitions written (dynamic)."""
    if overwrite is not None:
        loaded = loaded.copy({"dynamic-partition-overwrite": "true" if dynamic else "false"})
    builder = loaded.new_batch_write_builder()
    if overwrite is not None:
        builder = builder.overwrite(overwrite)
    committer = builder.new_commit()
    try:
        committer.commit(messages, snapshot_properties=properties)
    except BaseException:
        with contextlib.suppress(Exception):  # the commit's own error is the one to report
            committer.abort(messages)  # the files are referenced by no snapshot: remove them
        raise
    finally:
        committer.close()


def abort(loaded: Any, messages: list[Any]) -> None:  # noqa: ANN401
    """Remove files written for messages that will never be committed."""
    committer = loaded.new_batch_write_builder().new_commit()
    try:
        committer.abort(messages)
    finally:
        committer.close()


def _arrow_schema(loaded: Any) -> pa.Schema:  # noqa: ANN401
    from lakeport_engine.paimon.catalog import arrow_schema

    schema: pa.Schema = arrow_schema(loaded)
    return schema
