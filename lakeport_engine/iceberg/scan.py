"""Reading one Iceberg snapshot with Spark's parquet reader: `plan_files()` gives the data files and their delete
files (`planning.py`); columns are matched by Iceberg field id (renamed and dropped columns, files written before a
column was added); positional delete files are applied by an anti-join on (file, row index), equality delete files
by an anti-join on their columns, each only to the data files it applies to."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from lakeport_engine.iceberg.catalog import IcebergError, check_table_files, confined
from lakeport_engine.iceberg.planning import EqualityDelete, ReadTask, Scope, equality_groups, plan_reads

if TYPE_CHECKING:
    from pyiceberg.schema import Schema
    from pyiceberg.table import Table
    from pyiceberg.table.snapshots import Snapshot
    from pyiceberg.types import IcebergType

FIELD_ID = "parquet.field.id"  # the StructField metadata key Spark's parquet reader and writer match ids by
# Spark matches parquet columns by field id only with this on; the connector sets it when a catalog binds.
FIELD_ID_CONFS = {"spark.sql.parquet.fieldId.read.enabled": "true", "spark.sql.parquet.fieldId.write.enabled": "true"}
_FILE = "__lp_ice_file"
_POS = "__lp_ice_pos"
_SEQ, _SCOPE = "__lp_ice_seq", "__lp_ice_scope"  # a data row's file's data sequence number and partition scope
_DFILE, _DSEQ, _DSCOPE = "__lp_ice_dfile", "__lp_ice_dseq", "__lp_ice_dscope"  # the same of an equality delete


def spark_type(kind: IcebergType, table: str) -> T.DataType:
    """The Spark type of an Iceberg type (nested fields carry their field ids); IcebergError for one Spark lacks."""
    from pyiceberg import types as it

    simple: dict[type, T.DataType] = {
        it.BooleanType: T.BooleanType(), it.IntegerType: T.IntegerType(), it.LongType: T.LongType(),
        it.FloatType: T.FloatType(), it.DoubleType: T.DoubleType(), it.DateType: T.DateType(),
        it.TimestampType: T.TimestampNTZType(), it.TimestamptzType: T.TimestampType(), it.StringType: T.StringType(),
        it.BinaryType: T.BinaryType(), it.UUIDType: T.BinaryType(),
    }
    for cls, spark in simple.items():
        if isinstance(kind, cls):
            return spark
    if isinstance(kind, it.DecimalType):
        return T.DecimalType(kind.precision, kind.scale)
    if isinstance(kind, it.FixedType):
        return T.BinaryType()
    if isinstance(kind, it.StructType):
        return T.StructType([_field(f, table) for f in kind.fields])
    if isinstance(kind, it.ListType):
        return T.ArrayType(spark_type(kind.element_type, table), not kind.element_required)
    if isinstance(kind, it.MapType):
        return T.MapType(spark_type(kind.key_type, table), spark_type(kind.value_type, table), not kind.value_required)
    raise IcebergError(f"Iceberg table {table}: column type '{kind}' is not supported by the embedded Iceberg "
                       "connector (Spark has no such type).")


def _field(field: object, table: str) -> T.StructField:
    from pyiceberg.types import NestedField

    assert isinstance(field, NestedField)
    return T.StructField(field.name, spark_type(field.field_type, table), not field.required,
                         {FIELD_ID: field.field_id})


def spark_schema(schema: Schema, table: str) -> T.StructType:
    """The Spark schema of an Iceberg schema, each field carrying its Iceberg field id as parquet field id."""
    return T.StructType([_field(f, table) for f in schema.fields])


def plain_schema(schema: T.StructType) -> T.StructType:
    """`schema` without the field-id metadata (what SQL and results see)."""
    return T.StructType([T.StructField(f.name, f.dataType, f.nullable) for f in schema.fields])


def pick_snapshot(table: Table, name: str, *, snapshot_id: int | None,
                  timestamp: dt.datetime | None) -> Snapshot | None:
    """The snapshot to read: by id, the last one at or before `timestamp`, or the current one (None: empty table)."""
    if snapshot_id is not None:
        found = table.snapshot_by_id(snapshot_id)
        if found is None:
            raise IcebergError(f"Iceberg table {name} has no snapshot {snapshot_id} (VERSION AS OF takes a snapshot "
                               "id; DESCRIBE HISTORY lists them).")
        return found
    if timestamp is not None:
        millis = int(timestamp.timestamp() * 1000)
        found = table.snapshot_as_of_timestamp(millis)
        if found is None:
            raise IcebergError(f"Iceberg table {name} has no snapshot at or before {timestamp.isoformat()}.")
        return found
    return table.current_snapshot()


def snapshot_frame(spark: SparkSession, table: Table, snapshot: Snapshot | None, *, name: str,
                   warehouse: str, schema: Schema | None = None) -> DataFrame:
    """The rows of `table` at `snapshot`, read by Spark (distributed) with its deletes applied, in `schema` (default:
    the snapshot's own schema, as time travel reads; a current read passes the table's current schema)."""
    check_table_files(table, warehouse, name)
    if schema is None:
        schema_id = snapshot.schema_id if snapshot is not None else None
        schema = table.schemas().get(schema_id, table.schema()) if schema_id is not None else table.schema()
    read_schema = spark_schema(schema, name)
    empty = spark.createDataFrame([], plain_schema(read_schema))
    if snapshot is None:
        return empty
    tasks = plan_reads(table, snapshot)
    plain: list[str] = []
    deleted: list[tuple[str, ReadTask]] = []
    for task in tasks:
        path = confined(task.path, warehouse, what="data file", table=name)
        if str(task.data_file.file_format).upper().endswith("PARQUET") is False:
            raise IcebergError(f"Iceberg table {name}: data file format {task.data_file.file_format} is not "
                               "supported (parquet only).")
        if task.positional or task.equality:
            deleted.append((path, task))
        else:
            plain.append(path)
    columns = [F.col(f"`{f.name}`").alias(f.name, metadata={}) for f in read_schema.fields]
    frames: list[DataFrame] = []
    if plain:
        frames.append(spark.read.schema(read_schema).parquet(*[_uri(p) for p in plain]).select(*columns))
    if deleted:
        frames.append(_with_deletes(spark, table, read_schema, deleted, columns, warehouse=warehouse, name=name))
    if not frames:
        return empty
    frame = frames[0]
    for other in frames[1:]:
        frame = frame.unionByName(other)
    return frame


def _with_deletes(spark: SparkSession, table: Table, read_schema: T.StructType, data: list[tuple[str, ReadTask]],
                  columns: list[Column], *, warehouse: str, name: str) -> DataFrame:
    """The rows of the `data` files that no delete file applying to them removes: distributed anti-joins, on
    (file, row index) for positional deletes and on the equality columns (NULL equal to NULL, as the spec says)
    for equality deletes, each limited to the data files the delete applies to by sequence number and partition."""
    groups = equality_groups([task for _path, task in data])
    by_id = {int(f.metadata[FIELD_ID]): f for f in read_schema.fields}
    extra = [_dropped_field(table, field_id, name) for ids in groups for field_id in ids if field_id not in by_id]
    for added in extra:  # an equality column dropped since: read under a hidden name, never shown
        by_id[int(added.metadata[FIELD_ID])] = added
    rows = (spark.read.schema(T.StructType([*read_schema.fields, *extra])).parquet(*[_uri(p) for p, _t in data])
            .select("*", _normalized(F.col("_metadata.file_path"), spark_uri=True).alias(_FILE),
                    F.col("_metadata.row_index").alias(_POS)))
    positional = sorted({confined(d, warehouse, what="delete file", table=name)
                         for _path, task in data for d in task.positional})
    if positional:
        removed = (spark.read.schema("file_path STRING, pos BIGINT").parquet(*[_uri(p) for p in positional])
                   .select(_normalized(F.col("file_path")).alias(_FILE), F.col("pos").alias(_POS)))
        rows = rows.join(removed, [_FILE, _POS], "left_anti")
    if groups:
        scopes: dict[Scope, int] = {}
        for _path, task in data:
            scopes.setdefault(task.scope, len(scopes))
        files = spark.createDataFrame([(path, task.sequence, scopes[task.scope]) for path, task in data],
                                      f"{_FILE} STRING, {_SEQ} BIGINT, {_SCOPE} INT")
        rows = rows.join(F.broadcast(files), _FILE)
        for ids, deletes in groups.items():
            rows = _without_equal_rows(spark, rows, ids, deletes, by_id, scopes, warehouse=warehouse, name=name)
    return rows.select(*columns)


def _without_equal_rows(spark: SparkSession, rows: DataFrame, ids: tuple[int, ...], deletes: list[EqualityDelete],
                        by_id: dict[int, T.StructField], scopes: dict[Scope, int], *, warehouse: str,
                        name: str) -> DataFrame:
    """`rows` less those equal on the columns `ids` to a row of an applying equality delete file."""
    hidden = {field_id: f"__lp_ice_eq_{field_id}" for field_id in ids}
    schema = T.StructType([T.StructField(hidden[i], by_id[i].dataType, True, {FIELD_ID: i}) for i in ids])
    paths = [confined(d.path, warehouse, what="delete file", table=name) for d in deletes]
    meta = spark.createDataFrame(
        [(path, d.sequence, None if d.scope is None else scopes.get(d.scope, -1)) for path, d in zip(paths, deletes,
                                                                                                     strict=True)],
        f"{_DFILE} STRING, {_DSEQ} BIGINT, {_DSCOPE} INT")
    removed = (spark.read.schema(schema).parquet(*[_uri(p) for p in paths])
               .select(*[F.col(h) for h in hidden.values()],
                       _normalized(F.col("_metadata.file_path"), spark_uri=True).alias(_DFILE))
               .join(F.broadcast(meta), _DFILE))
    condition = (removed[_DSEQ] > rows[_SEQ]) & (removed[_DSCOPE].isNull() | (removed[_DSCOPE] == rows[_SCOPE]))
    for field_id in ids:
        condition = condition & rows[f"`{by_id[field_id].name}`"].eqNullSafe(removed[hidden[field_id]])
    return rows.join(removed, condition, "left_anti")


def _dropped_field(table: Table, field_id: int, name: str) -> T.StructField:
    """The field `field_id` of an older schema (an equality delete column dropped since), under a hidden name."""
    for schema in sorted(table.schemas().values(), key=lambda s: -s.schema_id):
        try:
            found = schema.find_field(field_id)
        except ValueError:
            continue
        return T.StructField(f"__lp_ice_col_{field_id}", spark_type(found.field_type, name), True,
                             {FIELD_ID: field_id})
    raise IcebergError(f"Iceberg table {name}: an equality delete file matches on field id {field_id}, which no "
                       "schema of the table has.")


def _normalized(path: Column, *, spark_uri: bool = False) -> Column:
    """A data file path as one text whatever its spelling (`file:/x`, `file:///x`, `/x`). Spark reports
    `_metadata.file_path` URI-encoded (`%` as `%25`, spaces as `%20`, `+` kept): `spark_uri` decodes it exactly."""
    if spark_uri:
        path = F.url_decode(F.replace(path, F.lit("+"), F.lit("%2B")))
    return F.regexp_replace(path, r"^file:(//)?", "")


def _uri(path: str) -> str:
    """A local path as Spark reads it: a plain path is taken literally (a `file://` URI would have its `%XX`
    decoded, and pyiceberg quotes partition values into directory names)."""
    return path
