"""Writing Iceberg tables: Spark writes the parquet files (distributed, field ids from the table schema, one hidden
directory column per partition field holding the transformed value), pyiceberg commits them in one snapshot.

Partition values come from the directory names Spark wrote (never from min/max statistics, which may be
truncated); the `bucket` transform is Iceberg's murmur3 (computed by pyiceberg's own transform in an Arrow UDF).
A failed write deletes its files and commits nothing.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from lakeport_engine.iceberg.catalog import IcebergConflictError, IcebergError, confined
from lakeport_engine.iceberg.planning import plan_reads
from lakeport_engine.iceberg.scan import spark_schema

if TYPE_CHECKING:
    from pyiceberg.manifest import DataFile
    from pyiceberg.partitioning import PartitionField
    from pyiceberg.schema import Schema
    from pyiceberg.table import Table, Transaction
    from pyiceberg.types import IcebergType

HIDDEN = "__lp_part_"  # the directory columns of partition fields (never stored in the files)
_DEFAULT_PARTITION = "__HIVE_DEFAULT_PARTITION__"
_TRANSFORM = re.compile(r"^\s*(?:(years|months|days|hours|year|month|day|hour|bucket|truncate)\s*\(\s*(?:(\d+)\s*,\s*)?"
                        r"`?([A-Za-z_][A-Za-z0-9_]*)`?\s*\)|`?([A-Za-z_][A-Za-z0-9_]*)`?)\s*$", re.I)


@dataclass(frozen=True)
class PartitionItem:
    """One `PARTITIONED BY` item: a transform (identity, years, months, days, hours, bucket, truncate) of a column."""

    transform: str
    column: str
    width: int | None = None


def partition_item(text: str, table: str) -> PartitionItem:
    """Read `col`, `days(ts)`, `bucket(16, id)`, `truncate(4, s)`; IcebergError naming the item otherwise."""
    match = _TRANSFORM.match(text)
    if match is None:
        raise IcebergError(f"CREATE TABLE {table}: PARTITIONED BY item '{text.strip()}' is not a column or one of "
                           "years(c), months(c), days(c), hours(c), bucket(n, c), truncate(n, c).")
    name, width, inner, plain = match.groups()
    if plain:
        return PartitionItem("identity", plain)
    kind = name.lower().rstrip("s") + "s" if name.lower() not in ("bucket", "truncate") else name.lower()
    if kind in ("bucket", "truncate") and not width:
        raise IcebergError(f"CREATE TABLE {table}: {kind}(n, column) needs a width n.")
    if kind not in ("bucket", "truncate") and width:
        raise IcebergError(f"CREATE TABLE {table}: {kind}(column) takes no width.")
    return PartitionItem(kind, inner, int(width) if width else None)


# ---- Spark schema → Iceberg schema --------------------------------------------------------------------------
def iceberg_schema(schema: T.StructType, table: str) -> Schema:
    """An Iceberg schema for a Spark one (field ids assigned in order; pyiceberg re-assigns them on create)."""
    from pyiceberg.schema import Schema

    counter = iter(range(1, 1_000_000))
    return Schema(*[_nested(f.name, f.dataType, f.nullable, counter, table, f.metadata.get("comment"))
                    for f in schema.fields])


def iceberg_type(kind: T.DataType, table: str) -> IcebergType:
    """The Iceberg type of a Spark type (nested field ids placeholders: pyiceberg assigns fresh ones when adding)."""
    result: IcebergType = _iceberg_type(kind, iter(range(1, 1_000_000)), table)
    return result


def _nested(name: str, kind: T.DataType, nullable: bool, ids: Any, table: str, doc: str | None = None) -> Any:  # noqa: ANN401
    from pyiceberg.types import NestedField

    field_id = next(ids)
    return NestedField(field_id, name, _iceberg_type(kind, ids, table), required=not nullable, doc=doc)


def _iceberg_type(kind: T.DataType, ids: Any, table: str) -> Any:  # noqa: ANN401 - pyiceberg's IcebergType union
    from pyiceberg import types as it

    simple: list[tuple[type, Any]] = [
        (T.BooleanType, it.BooleanType()), (T.ByteType, it.IntegerType()), (T.ShortType, it.IntegerType()),
        (T.IntegerType, it.IntegerType()), (T.LongType, it.LongType()), (T.FloatType, it.FloatType()),
        (T.DoubleType, it.DoubleType()), (T.DateType, it.DateType()), (T.TimestampNTZType, it.TimestampType()),
        (T.TimestampType, it.TimestamptzType()), (T.StringType, it.StringType()), (T.BinaryType, it.BinaryType()),
        (T.CharType, it.StringType()), (T.VarcharType, it.StringType()),
    ]
    for cls, iceberg in simple:
        if isinstance(kind, cls):
            return iceberg
    if isinstance(kind, T.DecimalType):
        return it.DecimalType(kind.precision, kind.scale)
    if isinstance(kind, T.StructType):
        return it.StructType(*[_nested(f.name, f.dataType, f.nullable, ids, table) for f in kind.fields])
    if isinstance(kind, (T.ArrayType, T.MapType)):
        # Spark's parquet writer gives list elements and map entries no field id, and an Iceberg reader needs every
        # field's id (or none): such files would be unreadable elsewhere
        raise IcebergError(f"Iceberg table {table}: array and map columns are not written by the embedded Iceberg "
                           "connector yet (Spark's parquet writer cannot give their elements Iceberg field ids).")
    raise IcebergError(f"Iceberg table {table}: Spark type '{kind.simpleString()}' has no Iceberg equivalent the "
                       "embedded connector writes.")


def partition_spec(schema: Schema, items: Sequence[PartitionItem], table: str) -> Any:  # noqa: ANN401
    """The Iceberg partition spec of `PARTITIONED BY` items over `schema`."""
    from pyiceberg.partitioning import PartitionField, PartitionSpec
    from pyiceberg.transforms import (
        BucketTransform,
        DayTransform,
        HourTransform,
        IdentityTransform,
        MonthTransform,
        TruncateTransform,
        YearTransform,
    )

    fields = []
    for index, item in enumerate(items):
        try:
            source = schema.find_field(item.column, case_sensitive=False)
        except ValueError:
            raise IcebergError(f"PARTITIONED BY {item.column}: not a column of Iceberg table {table}.") from None
        transform: Any = {"identity": IdentityTransform(), "years": YearTransform(), "months": MonthTransform(),
                     "days": DayTransform(), "hours": HourTransform()}.get(item.transform)
        if item.transform == "bucket":
            transform = BucketTransform(item.width or 1)
        elif item.transform == "truncate":
            transform = TruncateTransform(item.width or 1)
        assert transform is not None
        if not transform.can_transform(source.field_type):
            raise IcebergError(f"PARTITIONED BY {item.transform}({source.name}) on Iceberg table {table}: the "
                               f"transform does not apply to type {source.field_type}.")
        suffix = "" if item.transform == "identity" else f"_{item.transform.rstrip('s')}"
        fields.append(PartitionField(source.field_id, 1000 + index, transform, f"{source.name}{suffix}"))
    return PartitionSpec(*fields)


# ---- partition values in Spark -----------------------------------------------------------------------------
def _micros(column: Column, kind: T.DataType) -> Column:
    """Microseconds since the epoch, as Iceberg stores the timestamp (UTC for timestamptz, wall clock for ntz)."""
    if isinstance(kind, T.TimestampNTZType):
        days = F.unix_date(column.cast("date")).cast("long")
        seconds = F.hour(column) * 3600 + F.minute(column) * 60
        fraction = (F.second(column).cast("long") * 1_000_000
                    + (F.date_format(column, "SSSSSS").cast("long") % 1_000_000))
        return days * 86_400_000_000 + seconds.cast("long") * 1_000_000 + fraction
    return F.unix_micros(column)


def _epoch_days(column: Column, kind: T.DataType) -> Column:
    if isinstance(kind, T.DateType):
        return F.unix_date(column)
    return F.floor(_micros(column, kind) / 86_400_000_000).cast("int")


def transform_column(field: PartitionField, source: T.StructField) -> tuple[Column, Callable[[str], Any]]:
    """The Spark expression of a partition field's value and the reader of its directory text back into
    pyiceberg's partition value (ints for dates/times/buckets, text, booleans)."""
    from pyiceberg.transforms import (
        BucketTransform,
        DayTransform,
        HourTransform,
        IdentityTransform,
        MonthTransform,
        TruncateTransform,
        YearTransform,
    )

    column, kind, transform = F.col(f"`{source.name}`"), source.dataType, field.transform
    if isinstance(transform, IdentityTransform):
        if isinstance(kind, T.StringType):
            return column, str
        if isinstance(kind, (T.IntegerType, T.LongType, T.ShortType, T.ByteType)):
            return column, int
        if isinstance(kind, T.BooleanType):
            return column, lambda text: text.lower() == "true"
        if isinstance(kind, T.DateType):
            return F.unix_date(column), int
        if isinstance(kind, (T.TimestampType, T.TimestampNTZType)):
            return _micros(column, kind), int
        raise IcebergError(f"identity partitions on {kind.simpleString()} columns are not written by the embedded "
                           "Iceberg connector yet; use a string, integer, date or timestamp column.")
    if isinstance(transform, DayTransform):
        return _epoch_days(column, kind), int
    if isinstance(transform, HourTransform):
        return F.floor(_micros(column, kind) / 3_600_000_000).cast("int"), int
    if isinstance(transform, (MonthTransform, YearTransform)):
        day = F.date_from_unix_date(_epoch_days(column, kind))
        years = F.year(day) - 1970
        return (years if isinstance(transform, YearTransform) else years * 12 + F.month(day) - 1), int
    if isinstance(transform, TruncateTransform):
        width = transform.width
        if isinstance(kind, T.StringType):
            return F.substring(column, 1, width), str
        if isinstance(kind, (T.IntegerType, T.LongType)):
            return column - (((column % width) + width) % width), int
        raise IcebergError(f"truncate on {kind.simpleString()} columns is not written by the embedded connector yet.")
    if isinstance(transform, BucketTransform):
        return _bucket(column, kind, transform.num_buckets), int
    raise IcebergError(f"partition transform {transform} is not written by the embedded Iceberg connector.")


def _bucket(column: Column, kind: T.DataType, buckets: int) -> Column:
    """Iceberg's bucket transform (murmur3 of the value's canonical bytes), computed by pyiceberg in an Arrow UDF."""
    if isinstance(kind, (T.IntegerType, T.LongType, T.ShortType, T.ByteType)):
        value, family = column.cast("long"), "long"
    elif isinstance(kind, T.DateType):
        value, family = F.unix_date(column).cast("long"), "long"  # the spec hashes a date as its int day count
    elif isinstance(kind, (T.TimestampType, T.TimestampNTZType)):
        value, family = _micros(column, kind), "long"
    elif isinstance(kind, T.StringType):
        value, family = column, "string"
    elif isinstance(kind, T.BinaryType):
        value, family = column, "binary"
    else:
        raise IcebergError(f"bucket on {kind.simpleString()} columns is not written by the embedded connector yet.")
    return _bucket_udf(family, buckets)(value)


def _bucket_udf(family: str, buckets: int) -> Callable[[Column], Column]:
    import pyarrow as pa

    def run(values: pa.Array) -> pa.Array:
        from pyiceberg import types as it
        from pyiceberg.transforms import BucketTransform

        source = {"long": it.LongType(), "string": it.StringType(), "binary": it.BinaryType()}[family]
        apply = BucketTransform(buckets).transform(source)
        return pa.array([None if v is None else apply(v) for v in values.to_pylist()], type=pa.int32())

    run.__annotations__ = {"values": pa.Array, "return": pa.Array}  # resolved hints: Spark reads the UDF's kind
    return F.arrow_udf(run, "int")  # type: ignore[attr-defined,no-any-return]  # Spark 4.1+, not in its stubs


# ---- writing and committing --------------------------------------------------------------------------------
def write_files(spark: SparkSession, table: Table, frame: DataFrame, *, name: str, warehouse: str,
                schema: Schema | None = None, spec: Any = None) -> tuple[list[DataFile], Path]:  # noqa: ANN401
    """Write `frame` (already shaped like the table) as parquet data files under the table's `data/` directory and
    describe them for a commit; returns the data files and the directory they are in (deleted by the caller if the
    commit fails)."""
    schema = schema or table.schema()
    spec = spec or table.spec()
    location = confined(table.location(), warehouse, what="location", table=name)
    target = Path(location) / "data" / f"lp-{uuid.uuid4().hex}"
    typed = spark_schema(schema, name)
    columns: list[Column] = [F.col(f"`{f.name}`").cast(f.dataType).alias(f.name, metadata=f.metadata)
                             for f in typed.fields]
    readers: list[Callable[[str], Any]] = []
    hidden: list[str] = []
    by_id = {f.metadata["parquet.field.id"]: f for f in typed.fields}
    for index, field in enumerate(spec.fields):
        source = by_id.get(field.source_id)
        if source is None:
            raise IcebergError(f"Iceberg table {name}: partition field {field.name} is on a nested column, which "
                               "the embedded connector does not write.")
        expression, reader = transform_column(field, source)
        columns.append(expression.alias(f"{HIDDEN}{index}"))
        hidden.append(f"{HIDDEN}{index}")
        readers.append(reader)
    try:
        writer = frame.select(*columns).write.mode("errorifexists")
        if hidden:
            writer = writer.partitionBy(*hidden)
        with _session_conf(spark, {"spark.sql.parquet.outputTimestampType": "TIMESTAMP_MICROS"}):  # Iceberg: no INT96
            writer.parquet(str(target))
        return [_data_file(table, schema, spec, path, target, readers) for path in _parquet_files(target)], target
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise


@contextlib.contextmanager
def _session_conf(spark: SparkSession, confs: dict[str, str]) -> Iterator[None]:
    """`confs` set on the session for the block, then put back as they were."""
    before: dict[str, str | None] = {key: spark.conf.get(key, None) for key in confs}
    for key, value in confs.items():
        spark.conf.set(key, value)
    try:
        yield
    finally:
        for key, old in before.items():
            if old is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, old)


def _parquet_files(root: Path) -> list[Path]:
    found: list[Path] = []
    for directory, subdirs, files in os.walk(root):
        subdirs[:] = [d for d in subdirs if d.startswith(HIDDEN)]  # partition directories only, never _temporary
        found += [Path(directory) / f for f in files if f.endswith(".parquet") and not f.startswith(("_", "."))]
    return sorted(found)


def _data_file(table: Table, schema: Schema, spec: Any, path: Path, root: Path,  # noqa: ANN401
               readers: list[Callable[[str], Any]]) -> DataFile:
    import pyarrow.parquet as pq
    from pyiceberg.io.pyarrow import (
        compute_statistics_plan,
        data_file_statistics_from_parquet_metadata,
        parquet_path_to_id_mapping,
    )
    from pyiceberg.manifest import DataFile, DataFileContent, FileFormat
    from pyiceberg.typedef import Record

    metadata = pq.read_metadata(path)
    statistics = data_file_statistics_from_parquet_metadata(
        parquet_metadata=metadata, stats_columns=compute_statistics_plan(schema, table.properties),
        parquet_column_mapping=parquet_path_to_id_mapping(schema))
    values: dict[str, str] = {}
    for part in path.parent.relative_to(root).parts:
        key, _, text = part.partition("=")
        values[key] = text
    partition = []
    for index, reader in enumerate(readers):
        found = values.get(f"{HIDDEN}{index}")
        if found is None:
            raise IcebergError(f"data file {path.name} was written outside its partition directory.")
        partition.append(None if found == _DEFAULT_PARTITION else reader(unquote(found)))
    data_file = DataFile.from_args(
        content=DataFileContent.DATA, file_path=f"file://{path}", file_format=FileFormat.PARQUET,  # literal, as pyiceberg
        partition=Record(*partition), file_size_in_bytes=path.stat().st_size, sort_order_id=None,
        spec_id=spec.spec_id, equality_ids=None, key_metadata=None, **statistics.to_serialized_dict())
    data_file.spec_id = spec.spec_id  # not a stored field: from_args drops it, overwrites compare by it
    return data_file


def commit_append(transaction: Transaction, files: Sequence[DataFile], properties: dict[str, str]) -> None:
    """Add `files` to `transaction` as one fast append."""
    with transaction.update_snapshot(snapshot_properties=properties).fast_append() as append:
        for data_file in files:
            append.append_data_file(data_file)


def commit_overwrite(table: Table, files: Sequence[DataFile], *, dynamic: bool, name: str,
                     properties: dict[str, str]) -> None:
    """Replace the table's rows (or, `dynamic`, the partitions `files` write to) with `files`, in one commit on the
    snapshot `table` was loaded at: a concurrent commit since then fails it (IcebergConflictError), never a retry
    that would drop rows it did not see."""
    from pyiceberg.exceptions import CommitFailedException, ValidationException

    spec_id = table.spec().spec_id  # new files are written with the current spec
    targets = {(spec_id, _partition_key(f.partition)) for f in files}
    snapshot = table.current_snapshot()
    current = plan_reads(table, snapshot) if snapshot is not None else []  # tables with equality deletes too
    try:
        with table.transaction() as tx, tx.update_snapshot(snapshot_properties=properties).overwrite() as overwrite:
            for task in current:
                if not dynamic or (task.data_file.spec_id, _partition_key(task.data_file.partition)) in targets:
                    overwrite.delete_data_file(task.data_file)
            for data_file in files:
                overwrite.append_data_file(data_file)
    except (CommitFailedException, ValidationException):  # pyiceberg's own retry found the concurrent files
        raise IcebergConflictError(f"INSERT OVERWRITE on Iceberg table {name}: another commit changed the table "
                                   "since this statement read it; nothing was committed.") from None


def _partition_key(record: Any) -> tuple[Any, ...]:  # noqa: ANN401 - pyiceberg's Record
    return tuple(record[i] for i in range(len(record)))


def commit_with_retries(load: Callable[[], Table], apply: Callable[[Table], None], *, name: str, retries: int) -> Table:
    """Commit `apply(table)` in a transaction on the latest metadata; a commit that lost the race to a concurrent
    one is retried `retries` times on the refreshed table (appends are blind), then IcebergConflictError."""
    from pyiceberg.exceptions import CommitFailedException

    for attempt in range(retries + 1):
        table = load()
        try:
            apply(table)
            return load()
        except CommitFailedException as exc:
            if attempt == retries:
                raise IcebergConflictError(f"Iceberg table {name}: the commit lost to concurrent commits {retries + 1} "
                                           f"time(s) ({exc}); nothing of this statement was committed.") from None
    raise AssertionError("unreachable")
