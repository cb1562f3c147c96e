"""Reading a Delta snapshot: delta-rs picks the active files, Spark's parquet reader reads them, distributed."""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Sequence
from decimal import Decimal
from typing import Any
from urllib.parse import unquote

import pyarrow as pa
from deltalake import DeltaTable
from deltalake.exceptions import DeltaError, TableNotFoundError
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from jobs.spark.delta.catalog import DeltaCatalog, TableRef, spark_path
from jobs.spark.delta.errors import DeltaConnectorError
from jobs.spark.delta.features import check_readable
from jobs.spark.delta.schema import spark_schema

HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"


def open_table(catalog: DeltaCatalog, ref: TableRef) -> DeltaTable:
    """The latest snapshot of a table; a missing table is a clear error."""
    uri = catalog.table_uri(ref)
    try:
        return DeltaTable(uri, storage_options=catalog.delta_options())
    except TableNotFoundError as exc:
        raise DeltaConnectorError(f"Delta table {ref} does not exist (no _delta_log at {uri}).") from exc
    except (DeltaError, OSError) as exc:
        raise DeltaConnectorError(f"cannot load Delta table {ref}: {exc}") from exc


def travel(table: DeltaTable, ref: TableRef, *, version: int | None = None,
           timestamp: dt.datetime | None = None) -> None:
    """Move `table` to `VERSION AS OF version` or `TIMESTAMP AS OF timestamp` (the last commit at or before it)."""
    latest = table.version()
    if version is not None:
        if version < 0 or version > latest:
            raise DeltaConnectorError(f"Delta table {ref} has no version {version} (latest is {latest}).")
        try:
            table.load_as_version(version)
        except DeltaError as exc:
            raise DeltaConnectorError(f"cannot load version {version} of Delta table {ref}: {exc}") from exc
    elif timestamp is not None:
        try:
            table.load_as_version(timestamp)
        except DeltaError as exc:
            raise DeltaConnectorError(
                f"Delta table {ref} has no version at or before {timestamp.isoformat()}: {exc}"
            ) from exc


def add_actions(table: DeltaTable) -> list[dict[str, Any]]:
    """The active files of the loaded snapshot: path, size_bytes, num_records, partition.<col> (typed)."""
    return pa.table(table.get_add_actions(flatten=True)).to_pylist()


def snapshot_frame(spark: SparkSession, table: DeltaTable, ref: TableRef) -> DataFrame:
    """A DataFrame of the loaded snapshot's rows: exactly its active files, partition values from the log."""
    check_readable(table, ref)
    schema = spark_schema(table.schema())
    partition_cols = list(table.metadata().partition_columns)
    files = add_actions(table)
    if not files:
        return spark.createDataFrame([], schema)
    root = table.table_uri.removeprefix("file://").rstrip("/")
    by_name = {f.name: f for f in schema.fields}
    data_schema = T.StructType([f for f in schema.fields if f.name not in partition_cols])
    ordered = [_q(f.name) for f in schema.fields]  # Spark puts partition columns last; the table may not
    if not partition_cols:
        paths = [_file_path(root, f["path"]) for f in files]
        return spark.read.schema(data_schema).parquet(*paths)
    types = [by_name[c].dataType for c in partition_cols]
    if all(_at_hive_path(f, partition_cols, types) for f in files):
        # Spark types the values it reads from `col=value` directories with the schema given here.
        reader = spark.read.schema(schema).option("basePath", spark_path(root))
        return reader.parquet(*[_file_path(root, f["path"]) for f in files]).selectExpr(*ordered)
    return _union_by_partition(spark, root, files, schema, data_schema, partition_cols)


def _union_by_partition(spark: SparkSession, root: str, files: Sequence[dict[str, Any]], schema: T.StructType,
                        data_schema: T.StructType, partition_cols: list[str]) -> DataFrame:
    """Files not laid out as `col=value` directories: one scan per partition, values from the log."""
    groups: dict[tuple[Any, ...], list[str]] = {}
    for f in files:
        key = tuple(f.get(f"partition.{c}") for c in partition_cols)
        groups.setdefault(key, []).append(_file_path(root, f["path"]))
    frames = []
    for key, paths in groups.items():
        values = dict(zip(partition_cols, key, strict=True))
        columns: list[Column] = []
        for field in schema.fields:
            if field.name in values:
                columns.append(F.lit(values[field.name]).cast(field.dataType).alias(field.name))
            else:
                columns.append(F.col(_q(field.name)).cast(field.dataType).alias(field.name))
        frames.append(spark.read.schema(data_schema).parquet(*paths).select(*columns))
    return functools.reduce(DataFrame.unionAll, frames)


def _file_path(root: str, relative: str) -> str:
    relative = unquote(relative)  # the log holds URI-encoded paths
    if "://" in relative or relative.startswith("/"):
        return spark_path(relative)  # absolute paths are legal in a Delta log (shallow clones)
    return spark_path(f"{root}/{relative}")


def _at_hive_path(action: dict[str, Any], columns: list[str], types: list[T.DataType]) -> bool:
    """True if the file sits under `col=value/…` directories whose values equal its logged partition values."""
    segments = unquote(str(action["path"])).split("/")[:-1]
    if len(segments) != len(columns):
        return False
    for segment, column, dtype in zip(segments, columns, types, strict=True):
        name, sep, raw = segment.partition("=")
        if not sep or name != column:
            return False
        logged = action.get(f"partition.{column}")
        value = unquote(raw)
        if value == HIVE_NULL:
            if logged is not None:
                return False
            continue
        try:
            parsed = _parse(value, dtype)
        except (ValueError, ArithmeticError):
            return False
        if parsed is _UNKNOWN or parsed != logged:
            return False
    return True


_UNKNOWN = object()


def _parse(value: str, dtype: T.DataType) -> Any:
    """The Python value Spark would read from a partition directory, for the types where that is unambiguous."""
    if isinstance(dtype, T.StringType):
        return value
    if isinstance(dtype, T.ByteType | T.ShortType | T.IntegerType | T.LongType):
        return int(value)
    if isinstance(dtype, T.DateType):
        return dt.date.fromisoformat(value)
    if isinstance(dtype, T.BooleanType):
        return {"true": True, "false": False}.get(value.lower(), _UNKNOWN)
    if isinstance(dtype, T.DecimalType):
        return Decimal(value)
    return _UNKNOWN  # timestamps, floats: the scan per partition is always right


def _q(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"
