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
ROWS_COLUMN = "rows"


def writable(loaded: Any, *, table: str) -> None:  # noqa: ANN401 - pypaimon's FileStoreTable
    """Refuse, by name, writes the connector cannot make exactly or visibly: dynamic/postponed buckets of primary-key
    tables (Paimon's job-wide bucket assigner and postpone compaction), and primary-key tables whose new files Paimon
    reads only after a lookup compaction (deletion vectors, first-row), which pypaimon does not run."""
    schema = loaded.table_schema
    bucket = int(schema.options.get("bucket", "-1"))
    options = loaded.options
    if schema.primary_keys and options.batch_scan_skip_level0():
        # Paimon reads these tables' level-0 files only once compacted (Flink compacts with lookup as it writes);
        # pypaimon writes level 0 and never compacts, so the rows would stay invisible to every batch read.
        what = ("merge-engine 'first-row'" if not options.deletion_vectors_enabled()
                else "'deletion-vectors.enabled'='true'")
        raise PaimonError(f"Paimon table {table}: writing a primary-key table with {what} is not supported by the "
                          "embedded Paimon connector: Paimon shows such a table's new files only after a lookup "
                          "compaction, which pypaimon does not run, so the rows written would not be read back "
                          "(Flink's writer compacts as it writes). Reading it works.")
    if schema.primary_keys and bucket == -2:
        raise PaimonError(f"Paimon table {table}: writing a primary-key table with postponed buckets ('bucket'='-2') "
                          "is not supported by the embedded Paimon connector: its rows get their buckets from Paimon's "
                          "postpone compaction, which pypaimon does not run. Create the table with TBLPROPERTIES "
                          "('bucket'='<n>'), or write it with Flink. Reading it works.")
    if schema.primary_keys and bucket < 1 and getattr(loaded, "cross_partition_update", False):
        raise PaimonError(f"Paimon table {table}: writing a primary-key table whose key does not include its partition "
                          f"columns ({', '.join(schema.partition_keys)}) is not supported: such a table moves a key "
                          "between partitions through a global key index, which pypaimon cannot write. Write it with "
                          "Flink. Reading it works.")
    if schema.primary_keys and bucket < 1:
        raise PaimonError(f"Paimon table {table}: writing a primary-key table with dynamic buckets ('bucket'='{bucket}')"
                          " is not supported by the embedded Paimon connector: Paimon gives each new key a bucket "
                          "through one assigner per bucket range across the whole write and keeps the key→bucket index "
                          "per bucket, but the connector's Spark tasks each write with their own pypaimon writer, whose "
                          "assigner sees only its task's keys, so two tasks would fill the same bucket and each write its "
                          "index (a key could later land in a second bucket and read back twice). Create the table with "
                          "TBLPROPERTIES ('bucket'='<n>'), or write it with Flink. Reading it works.")


def write_messages(frame: DataFrame, loaded: Any, *, overwrite: dict[str, Any] | None) -> list[Any]:  # noqa: ANN401
    """Write `frame` (shaped like the table) into `loaded`'s directory from the executors; the commit messages.

    `overwrite`: None for an append/upsert, else the static partition the overwrite replaces ({} = all)."""
    return write_rows(frame, loaded, overwrite=overwrite)[0]


def write_rows(frame: DataFrame, loaded: Any, *,  # noqa: ANN401 - pypaimon's FileStoreTable
               overwrite: dict[str, Any] | None) -> tuple[list[Any], int]:
    """`write_messages`, and how many rows the tasks handed to pypaimon (its writer may merge rows of one key)."""
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
            count = 0
            for batch in batches:
                if batch.num_rows:
                    writer.write_arrow_batch(pa.RecordBatch.from_arrays(
                        [batch.column(i).cast(arrow.field(i).type) for i in range(len(arrow))], schema=arrow))
                    count += batch.num_rows
            messages = [m for m in writer.prepare_commit() if not m.is_empty()] if count else []
        finally:
            writer.close()
        # the task's row count rides on its first message (a task that wrote nothing returns no row)
        yield pa.RecordBatch.from_pylist(
            [{MESSAGE_COLUMN: pickle.dumps(m), ROWS_COLUMN: count if i == 0 else 0} for i, m in enumerate(messages)],
            schema=pa.schema([(MESSAGE_COLUMN, pa.binary()), (ROWS_COLUMN, pa.int64())]))

    rows = frame.mapInArrow(task, f"{MESSAGE_COLUMN} BINARY, {ROWS_COLUMN} BIGINT").collect()
    return [pickle.loads(r[0]) for r in rows], sum(int(r[1]) for r in rows)  # noqa: S301 - this job's own tasks


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
