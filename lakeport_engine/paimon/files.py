"""The fast read of append tables: pypaimon plans the snapshot's data files, Spark's own parquet/ORC reader reads them.

Only where that is exact (`files_frame` returns None otherwise and the connector reads through pypaimon, source.py):
an append table (no primary key: nothing to merge) without row tracking or data evolution (files there may hold
some columns only), no deletion vector on any planned file, every file parquet or ORC inside the table directory,
column types Spark's readers read the same way whoever wrote the file, and every file's schema mapping onto the
snapshot's by field id with the same names and types (a column added since reads as NULL, as in pypaimon; a renamed
or retyped column falls back). Partition values come from pypaimon's plan: through Spark's partition discovery
when each file's `col=value/` directories read back as exactly that value (one scan, Spark prunes files by them),
else as literal columns per partition (the optimizer drops partitions a filter rules out), as the Delta connector
does (lakeport_engine/delta/snapshot.py).
"""

from __future__ import annotations

import datetime as dt
import functools
import os
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from lakeport_engine.delta.catalog import spark_path

# Types Spark's parquet and ORC readers read identically from pypaimon's and Java Paimon's files. Timestamps are
# left out: Paimon's writers differ in their UTC annotation and precision (nanoseconds), which Spark refuses or reads
# differently; nested types: their sub-fields evolve by id, which a read by name does not follow.
_PLAIN_TYPES = (T.BooleanType, T.ByteType, T.ShortType, T.IntegerType, T.LongType, T.FloatType, T.DoubleType,
                T.DecimalType, T.StringType, T.BinaryType, T.DateType)
_FORMATS = {".parquet": "parquet", ".orc": "orc"}
_OPTIONS_NOT_PLAIN = ("row-tracking.enabled", "data-evolution.enabled")
# Beyond this many partitions without readable directories, a union of literal-column scans plans too slowly.
MAX_LITERAL_PARTITIONS = 64


def files_frame(spark: SparkSession, table: Any, schema: T.StructType,  # noqa: ANN401 - pypaimon's FileStoreTable
                keep: Sequence[str] | None = None) -> DataFrame | None:
    """The rows of `table` (pinned to its snapshot by the caller: `table.copy({...})`) read by Spark's own readers,
    columns `keep` (default all) of `schema` (the snapshot's columns in Spark types); None when that is not exact."""
    from pypaimon.read.split import DataSplit

    table_schema = table.table_schema
    options = {str(k).lower(): str(v).lower() for k, v in dict(table_schema.options).items()}
    if table_schema.primary_keys or any(options.get(k) == "true" for k in _OPTIONS_NOT_PLAIN):
        return None
    names = list(keep) if keep is not None else schema.names
    read = set(names) | set(table_schema.partition_keys)  # only the columns read need to be plain and unchanged
    if not all(isinstance(f.dataType, _PLAIN_TYPES) for f in schema.fields if f.name in read):
        return None
    splits = table.new_read_builder().new_scan().plan().splits()
    if not splits:
        return spark.createDataFrame([], T.StructType([f for f in schema.fields if f.name in names]))
    root = os.path.realpath(str(table.table_path).removeprefix("file://"))
    partition_keys = list(table_schema.partition_keys)
    files: list[tuple[str, str, tuple[Any, ...]]] = []  # (format, absolute path, partition values)
    schema_ids: set[int] = set()
    for split in splits:
        if not isinstance(split, DataSplit):
            return None
        if any(d is not None for d in (split.data_deletion_files or [])):
            return None  # rows deleted by vectors: pypaimon applies them
        values = tuple(split.partition.values) if partition_keys else ()
        for meta in split.files:
            found = _file(meta, root)
            if found is None:
                return None
            files.append((found[0], found[1], values))
            schema_ids.add(int(meta.schema_id))
    if not all(_maps_by_name(table, schema_id, read) for schema_id in schema_ids):
        return None
    by_name = {f.name: f for f in schema.fields}
    wanted = [by_name[n] for n in names]
    frames: list[DataFrame] = []
    for fmt in sorted({f for f, _, _ in files}):
        of_format = [(path, values) for f, path, values in files if f == fmt]
        frame = _read(spark, fmt, of_format, root, schema, partition_keys, wanted)
        if frame is None:
            return None
        frames.append(frame)
    return functools.reduce(DataFrame.unionAll, frames)


def _file(meta: Any, root: str) -> tuple[str, str] | None:  # noqa: ANN401 - pypaimon's DataFileMeta
    """(format, path) of a data file Spark can read as it is; None for anything else."""
    if meta.external_path or meta.write_cols or meta.first_row_id is not None or not meta.file_path:
        return None
    fmt = _FORMATS.get(os.path.splitext(str(meta.file_name))[1].lower())
    path = os.path.realpath(str(meta.file_path).removeprefix("file://"))
    if fmt is None or not path.startswith(root.rstrip("/") + "/"):
        return None
    return fmt, path


def _maps_by_name(table: Any, schema_id: int, read: set[str]) -> bool:  # noqa: ANN401 - pypaimon's FileStoreTable
    """True when reading the columns `read` of a file written with schema `schema_id` by name gives what pypaimon's
    read by field id gives: each is in the file under the same name and type, or absent from it under any name."""
    current = table.table_schema
    if schema_id == current.id:
        return True
    try:
        written = table.schema_manager.get_schema(schema_id)
    except Exception:
        return False
    if written is None:
        return False
    by_id = {f.id: f for f in written.fields}
    lower = [f.name.lower() for f in written.fields]
    if len(set(lower)) != len(lower):
        return False
    for field in current.fields:
        if field.name not in read:
            continue
        old = by_id.get(field.id)
        if old is None:
            if field.name.lower() in lower:  # another column's data under this name (dropped and re-added)
                return False
        elif old.name != field.name or _type(old.type) != _type(field.type):
            return False
    return True


def _type(kind: Any) -> str:  # noqa: ANN401 - a Paimon data type
    return str(kind).replace(" NOT NULL", "").upper()


def _read(spark: SparkSession, fmt: str, files: list[tuple[str, tuple[Any, ...]]], root: str,
          schema: T.StructType, partition_keys: list[str], wanted: list[T.StructField]) -> DataFrame | None:
    """One format's files as the `wanted` columns: one scan over readable partition directories, else one scan per
    partition with its values as literals; None past MAX_LITERAL_PARTITIONS."""
    by_name = {f.name: f for f in schema.fields}
    partition_fields = [by_name[k] for k in partition_keys]
    data_fields = [f for f in wanted if f.name not in partition_keys]
    columns = [F.col(_q(f.name)) for f in wanted]
    if all(_at_partition_path(path, root, partition_fields, values) for path, values in files):
        # Spark types what it reads from `col=value` directories with the schema given here; it prunes by them.
        read = spark.read.schema(T.StructType(data_fields + partition_fields)).option("basePath", spark_path(root))
        return read.format(fmt).load([spark_path(p) for p, _ in files]).select(*columns)
    groups: dict[tuple[Any, ...], list[str]] = {}
    for path, values in files:
        groups.setdefault(values, []).append(spark_path(path))
    if len(groups) > MAX_LITERAL_PARTITIONS:
        return None
    frames = []
    for values, paths in groups.items():
        literals = {f.name: _literal(v, f.dataType) for f, v in zip(partition_fields, values, strict=True)}
        scan = spark.read.schema(T.StructType(data_fields)).format(fmt).load(paths)
        frames.append(scan.select(*[literals[f.name].alias(f.name) if f.name in literals else F.col(_q(f.name))
                                    for f in wanted]))
    return functools.reduce(DataFrame.unionAll, frames)


def _at_partition_path(path: str, root: str, fields: list[T.StructField], values: tuple[Any, ...]) -> bool:
    """True if the file sits at `<root>/k1=v1/…/bucket-N/<file>` and Spark reads each `v` back as exactly the
    planned partition value (Paimon's NULL directory and its legacy date names are not: those take literals)."""
    segments = path[len(root.rstrip("/")) + 1:].split("/")
    if len(segments) != len(fields) + 2 or not segments[-2].startswith("bucket-"):
        return False
    for segment, field, value in zip(segments[:len(fields)], fields, values, strict=True):
        name, sep, raw = segment.partition("=")
        if not sep or name != field.name or value is None or "%" in raw:
            return False
        spelled = raw.lower() if isinstance(field.dataType, T.BooleanType) else raw  # Spark casts 'True' too
        if _directory_text(value, field.dataType) != spelled:
            return False
    return True


def _directory_text(value: Any, dtype: T.DataType) -> str | None:  # noqa: ANN401
    """The directory text Spark casts to exactly `value` of `dtype` (None where no text is unambiguous)."""
    if isinstance(dtype, T.StringType) and isinstance(value, str):
        return value if value and value != "__HIVE_DEFAULT_PARTITION__" else None
    if isinstance(dtype, T.ByteType | T.ShortType | T.IntegerType | T.LongType) and type(value) is int:
        return str(value)
    if isinstance(dtype, T.DateType) and type(value) is dt.date:
        return value.isoformat()
    if isinstance(dtype, T.BooleanType) and isinstance(value, bool):
        return str(value).lower()
    return None  # floats, decimals, binaries: their text has several spellings; literals are exact


def _literal(value: Any, dtype: T.DataType) -> Column:  # noqa: ANN401
    """A planned partition value as a Spark literal of `dtype` (dates as dates: no zone involved)."""
    if value is None:
        return F.lit(None).cast(dtype)
    if isinstance(dtype, T.BinaryType):
        return F.lit(bytearray(value)).cast(dtype)
    if isinstance(dtype, T.DecimalType):
        return F.lit(str(Decimal(value))).cast(dtype)
    return F.lit(value).cast(dtype)


def _q(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


__all__ = ["MAX_LITERAL_PARTITIONS", "files_frame"]
