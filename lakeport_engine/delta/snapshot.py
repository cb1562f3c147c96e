"""Reading a Delta snapshot: delta-rs picks the active files, Spark's parquet reader reads them, distributed."""

from __future__ import annotations

import base64
import datetime as dt
import functools
import itertools
import re
import string
import struct
import zlib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any
from urllib.parse import unquote

import pyarrow as pa
import pyarrow.compute as pc
from deltalake import DeltaTable
from deltalake.exceptions import DeltaError, TableNotFoundError
from py4j.protocol import Py4JJavaError
from pyspark.sql import Column, DataFrame, DataFrameReader, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from lakeport_engine.delta.catalog import DeltaCatalog, TableRef, spark_path
from lakeport_engine.delta.errors import DeltaConnectorError
from lakeport_engine.delta.features import check_readable
from lakeport_engine.delta.schema import column_mapping_mode, physical_schema, spark_schema

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
    actions: list[dict[str, Any]] = pa.table(table.get_add_actions(flatten=True)).to_pylist()
    return actions


def snapshot_frame(spark: SparkSession, table: DeltaTable, ref: TableRef, *,
                   only: set[str] | None = None) -> DataFrame:
    """A DataFrame of the loaded snapshot's rows: its active files less deleted rows, partition values from the log.

    Data columns are read by their physical names (column mapping) with the table's current types (type
    widening: Spark's parquet reader widens), then renamed to their logical names. `only`: the rows of these
    active files (paths as the log has them) and no others.
    """
    check_readable(table, ref)
    schema = spark_schema(table.schema())
    partition_cols = list(table.metadata().partition_columns)
    actions = read_actions(table)
    if only is not None:
        actions = actions.filter(pc.is_in(actions.column("path"), pa.array(sorted(only), pa.string())))
    if actions.num_rows == 0:
        return spark.createDataFrame([], schema)
    root = table.table_uri.removeprefix("file://").rstrip("/")
    physical = physical_schema(schema) if column_mapping_mode(table) != "none" else schema
    data_fields = [(f, p) for f, p in zip(schema.fields, physical.fields, strict=True) if f.name not in partition_cols]
    data_schema = T.StructType([p for _, p in data_fields])
    files = actions.to_pylist()
    deleted = _deletion_vectors(table, ref, root, files)
    fields = dict(zip(schema.names, zip(schema.fields, physical.fields, strict=True), strict=True))
    types = [fields[c][0].dataType for c in partition_cols]
    directories = [fields[c][1].name for c in partition_cols]  # column mapping: `<physical name>=value/`
    if all(_at_hive_path(f, partition_cols, directories, types) for f in files):
        # Spark types the values it reads from `col=value` directories with the schema given here.
        base = spark_path(root)
        scan = _without_deleted(spark, lambda: spark.read.schema(physical).option("basePath", base),
                                [file_path(root, f["path"]) for f in files], deleted)
        # Spark puts partition columns last; the table may not. Physical names become logical ones.
        return _logical_columns(scan, list(fields.values()))
    logical = [_logical(f, p) for f, p in data_fields]
    groups: dict[tuple[Any, ...], list[str]] = {}
    for f in files:
        key = tuple(f.get(f"partition.{c}") for c in partition_cols)
        groups.setdefault(key, []).append(file_path(root, f["path"]))
    by_name = {f.name: f.dataType for f in schema.fields}
    frames = []
    for key, paths in groups.items():
        values = {c: partition_literal(v, by_name[c]) for c, v in zip(partition_cols, key, strict=True)}
        scan = _without_deleted(spark, lambda: spark.read.schema(data_schema), paths, deleted)
        columns = iter(logical)
        frames.append(scan.select(*[values[f.name].alias(f.name) if f.name in values else next(columns)
                                    for f in schema.fields]))
    return functools.reduce(DataFrame.unionAll, frames)


def read_actions(table: DeltaTable) -> pa.Table:
    """The active files with partition values as exact primitives: timestamps as UTC microseconds, dates as days.

    Arrow holds the log's values exactly; Python datetimes would bring the host zone and calendar in.
    """
    actions = pa.table(table.get_add_actions(flatten=True))
    for index, field in enumerate(actions.schema):
        if not field.name.startswith("partition."):
            continue
        column = actions.column(index)
        if pa.types.is_timestamp(field.type):
            column = column.cast(pa.timestamp("us", tz=field.type.tz)).cast(pa.int64())
        elif pa.types.is_date(field.type):
            column = column.cast(pa.date32()).cast(pa.int32())
        elif pa.types.is_decimal(field.type):
            column = column.cast(pa.string())
        else:
            continue
        actions = actions.set_column(index, field.name, column)
    return actions


def partition_literal(value: Any, dtype: T.DataType) -> Column:
    """A partition value (as `_read_actions` gives it) as a Spark column of `dtype`, independent of every zone.

    Timestamps are built from UTC microseconds and dates from epoch days (Spark's proleptic Gregorian calendar);
    `timestamp_ntz` from its wall-clock text, which Spark casts without a zone.
    """
    if value is None:
        return F.lit(None).cast(dtype)
    if isinstance(dtype, T.TimestampType):
        return F.timestamp_micros(F.lit(int(value)))
    if isinstance(dtype, T.TimestampNTZType):
        return F.lit(ntz_text(int(value))).cast(dtype)
    if isinstance(dtype, T.DateType):
        return F.date_from_unix_date(F.lit(int(value)))
    if isinstance(dtype, T.BinaryType):
        return F.lit(bytearray(value)).cast(dtype)
    return F.lit(value).cast(dtype)


def ntz_text(micros: int) -> str:
    """Wall-clock text of a `timestamp_ntz` held as microseconds since 1970-01-01 00:00 (naive arithmetic)."""
    return (_EPOCH + dt.timedelta(microseconds=micros)).isoformat(sep=" ", timespec="microseconds")


_EPOCH = dt.datetime(1970, 1, 1)  # noqa: DTZ001 — naive on purpose: timestamp_ntz has no zone


# ---- deletion vectors -----------------------------------------------------------------------------------
_FILE, _KEEP, _MAP, _ROW, _SCANNED = "__lp_dv_file", "__lp_dv_keep", "__lp_dv_map", "__lp_dv_row", "__lp_dv_scanned"
# Up to this many files in one scan, each row finds its file's keep flags in a literal map (a linear search);
# beyond it, a broadcast hash join costs less (docs/delta.md, deletion vectors).
_MAP_LOOKUP_MAX_FILES = 32
# The platform's parquet reader that drops deleted rows while decoding (platform/jvm, built by build-jvm.sh).
JVM_READER = "io.lakeport.spark.DeletionVectorParquetFileFormat"
_VECTORS_OPTION = "lakeport.deletionVectors"
_JVM_READER_LOADABLE: dict[str, bool] = {}  # by Spark application id


@dataclass(frozen=True)
class _Vectors:
    """The selection vectors of the snapshot's files that have deleted rows, by the path given to Spark's reader."""

    flags: dict[str, pa.Array]  # keep flags as 64-bit words (`_packed`)
    sizes: dict[str, int]  # the file's size in bytes, as the log gives it and `_metadata.file_size` reads it
    uris: dict[str, str]  # Spark's URI of the file, as `_metadata.file_path` reads it


def _deletion_vectors(table: DeltaTable, ref: TableRef, root: str,
                      files: Sequence[dict[str, Any]]) -> _Vectors | None:
    """The selection vectors of the active files that have deleted rows; None when no file has any.

    delta-rs decodes the vectors (inline, on disk, from checkpoints) into per-row keep flags; Spark filters
    `_metadata.row_index` against them.
    """
    if "deletionVectors" not in set(table.protocol().reader_features or []):
        return None
    try:
        vectors = pa.table(table.deletion_vectors())
    except (DeltaError, OSError) as exc:
        raise DeltaConnectorError(
            f"cannot read the deletion vectors of Delta table {ref} at version {table.version()}: {exc}"
        ) from exc
    # Arrow all the way: a selection vector holds one flag per row of its file (millions for large files).
    position = {plain_uri(uri): i for i, uri in enumerate(vectors.column("filepath").to_pylist())}
    plain = [plain_uri(file_path(root, f["path"])) for f in files]
    unknown = set(position) - set(plain)
    if unknown:
        raise DeltaConnectorError(f"Delta table {ref} at version {table.version()} has a deletion vector for "
                                  f"a file that is not in the snapshot: {sorted(unknown)[0]}")
    selection = vectors.column("selection_vector")
    found = _Vectors({}, {}, {})
    for action, key in zip(files, plain, strict=True):
        if key in position and selection[position[key]].is_valid:
            path = file_path(root, action["path"])
            found.flags[path] = _packed(selection[position[key]].values)
            found.sizes[path] = int(action["size_bytes"])
            found.uris[path] = _spark_uri(path)
    return found if found.flags else None


def _without_deleted(spark: SparkSession, reader: Callable[[], DataFrameReader], paths: list[str],
                     vectors: _Vectors | None) -> DataFrame:
    """A parquet read of active files (`reader()` set up for it) less the rows their deletion vectors mark deleted.

    Files without a vector are read as they are. Files with one are read by the platform's JVM reader
    (`platform/jvm`), which drops deleted rows while decoding, when the engine has it on its classpath; else
    they find their flags by `_metadata.file_size` when no other file of the scan has their size (a long
    compares and hashes far cheaper per row than the file's path: the path cost as much as the scan), else by
    `_metadata.file_path`, in a Filter of SQL expressions.
    """
    def read(some: list[str]) -> DataFrame:
        return reader().parquet(*some)

    if vectors is None:
        return read(paths)
    marked = [p for p in paths if p in vectors.flags]
    unmarked = [p for p in paths if p not in vectors.flags]
    if not marked:
        return read(paths)
    if jvm_reader_available(spark):
        kept = reader().format(JVM_READER).option(_VECTORS_OPTION, _vector_option(vectors, marked)).load(marked)
        return kept.unionAll(read(unmarked)) if unmarked else kept
    sizes = Counter(vectors.sizes[p] for p in marked)
    by_size = [p for p in marked if sizes[vectors.sizes[p]] == 1]
    by_path = [p for p in marked if sizes[vectors.sizes[p]] > 1]
    frames = [read(unmarked)] if unmarked else []
    if by_size:
        keys = pa.array([vectors.sizes[p] for p in by_size], pa.int64())
        frames.append(_kept_rows(spark, read(by_size), "file_size", keys, [vectors.flags[p] for p in by_size]))
    if by_path:
        keys = pa.array([vectors.uris[p] for p in by_path], pa.string())
        frames.append(_kept_rows(spark, read(by_path), "file_path", keys, [vectors.flags[p] for p in by_path]))
    return functools.reduce(DataFrame.unionAll, frames)


def jvm_reader_available(spark: SparkSession) -> bool:
    """True when the platform's deletion-vector parquet reader is on the driver's classpath (`spark.jars`)."""
    context = spark.sparkContext
    key = context.applicationId
    if key not in _JVM_READER_LOADABLE:
        jvm = context._jvm  # noqa: SLF001 — PySpark's own gateway; asked once per Spark application
        if jvm is None:
            return False  # a stopped context
        try:
            loader = jvm.org.apache.spark.util.Utils.getContextOrSparkClassLoader()
            jvm.java.lang.Class.forName(JVM_READER, False, loader)
            _JVM_READER_LOADABLE[key] = True
        except Py4JJavaError:
            _JVM_READER_LOADABLE[key] = False
    return _JVM_READER_LOADABLE[key]


def _vector_option(vectors: _Vectors, paths: list[str]) -> str:
    """The keep bits of `paths` as the JVM reader's option: base64 of zlib-compressed little-endian records
    (uri, size, words), each file keyed by the URI Spark gives its `PartitionedFile`
    (`platform/jvm/src/io/lakeport/spark/DeletionVectors.java`)."""
    parts = [struct.pack("<i", len(paths))]
    for path in paths:
        uri = vectors.uris[path].encode()  # `_spark_uri(path)`, computed with the vectors
        words = vectors.flags[path]
        data = words.buffers()[1].to_pybytes()[words.offset * 8:(words.offset + len(words)) * 8]
        parts += [struct.pack("<i", len(uri)), uri, struct.pack("<qi", vectors.sizes[path], len(words)), data]
    return base64.b64encode(zlib.compress(b"".join(parts), 1)).decode("ascii")


def _packed(flags: pa.Array) -> pa.Array:
    """Keep flags as 64-bit words: row i is bit i % 64 of word i // 64 (Arrow's own bit order, read as
    little-endian longs), 8× smaller than `array<boolean>` in every task; bits past the vector's end keep."""
    bits = pc.fill_null(flags, True)
    if bits.offset:
        bits = pc.invert(pc.invert(bits))  # a kernel's output starts at bit 0
    count = len(bits)
    data = bytearray(bits.buffers()[1].to_pybytes()[:(count + 7) // 8])
    if count % 8:
        data[-1] |= (0xFF << (count % 8)) & 0xFF
    data += b"\xff" * (-len(data) % 8)
    return pa.Array.from_buffers(pa.int64(), len(data) // 8, [None, pa.py_buffer(bytes(data))])


def _kept_rows(spark: SparkSession, scan: DataFrame, field: str, keys: pa.Array,
               flags: list[pa.Array]) -> DataFrame:
    """The rows of `scan` whose keep bit is set, each file's words found by its `_metadata.<field>` in `keys`."""
    values = pa.ListArray.from_arrays(pa.array(_offsets(flags), pa.int32()), pa.concat_arrays(flags))
    # SQL text, not trees of Column calls: each call is a round trip to the JVM at every query's planning.
    marked = scan.selectExpr("*", f"_metadata.{field} AS `{_SCANNED}`", f"_metadata.row_index AS `{_ROW}`")
    if len(keys) <= _MAP_LOOKUP_MAX_FILES:
        # A scalar subquery runs once per query and its map becomes a literal of the plan: no join per row.
        entries = pa.MapArray.from_arrays(pa.array([0, len(keys)], pa.int32()), keys, values)
        by_key = spark.createDataFrame(pa.table({_MAP: entries})).scalar()
        # Coalesce evaluates its fallback only for a null flag: a row past its vector's end, or a missing file.
        words = f"try_element_at(`{_MAP}`, `{_SCANNED}`)"
        condition = f"coalesce({_kept_sql(words)}, CASE WHEN {words} IS NULL THEN {_no_vector_sql(field)} ELSE true END)"
        return marked.withColumn(_MAP, by_key).where(condition).drop(_SCANNED, _ROW, _MAP)
    vectors = F.broadcast(spark.createDataFrame(pa.table({_FILE: keys, _KEEP: values})))
    condition = f"CASE WHEN `{_FILE}` IS NULL THEN {_no_vector_sql(field)} " \
                f"ELSE coalesce({_kept_sql(f'`{_KEEP}`')}, true) END"
    return marked.join(vectors, F.col(_SCANNED) == F.col(_FILE), "left").where(condition)\
        .drop(_SCANNED, _ROW, _FILE, _KEEP)


def _no_vector_sql(field: str) -> str:
    """A file missing from the vectors would mean a mismatch: fail loudly rather than return deleted rows.

    The message names the key read (`file_size` or `file_path`): each `_metadata` field read is built into a
    struct per row, and a path there as well cost as much as the scan (docs/delta.md, deletion vectors).
    """
    return f"raise_error(concat('no deletion vector entry for the data file with {field} ', " \
           f"cast(`{_SCANNED}` AS STRING)))"


def _kept_sql(words: str) -> str:
    """Bit `__lp_dv_row` of the packed keep flags `words` is set (null past the words' end)."""
    return f"bit_get(get({words}, CAST(shiftright(`{_ROW}`, 6) AS INT)), CAST(`{_ROW}` & 63 AS INT)) = 1Y"


def _offsets(arrays: list[pa.Array]) -> list[int]:
    """List offsets for concatenating `arrays`: 0, len(a0), len(a0)+len(a1), …"""
    return [0, *itertools.accumulate(len(a) for a in arrays)]


def plain_uri(uri: str) -> str:
    """A file URI or path without scheme and escapes, to match delta-rs' file URIs with the log's paths."""
    text = unquote(uri)
    return re.sub(r"^file:/*", "/", text)


# Characters java.net.URI leaves as they are in a path; everything else ASCII is %-escaped (non-ASCII stays).
_URI_PATH_SAFE = frozenset(string.ascii_letters + string.digits + "-_.!~*'(),;:$&+=/@")


def _spark_uri(path: str) -> str:
    """The file URI Spark reports as `_metadata.file_path` for a path given to its parquet reader."""
    if path.startswith("file://"):
        prefix, rest = "file:", path.removeprefix("file://")
    else:
        scheme, _, after = path.partition("://")
        authority, slash, rest = after.partition("/")
        prefix, rest = f"{scheme}://{authority}", slash + rest
    encoded = "".join(c if c in _URI_PATH_SAFE or ord(c) > 127 else f"%{ord(c):02X}" for c in rest)
    return prefix + encoded


def file_path(root: str, relative: str) -> str:
    relative = unquote(relative)  # the log holds URI-encoded paths
    if "://" in relative or relative.startswith("/"):
        return spark_path(relative)  # absolute paths are legal in a Delta log (shallow clones)
    return spark_path(f"{root}/{relative}")


def _at_hive_path(action: dict[str, Any], columns: list[str], directories: list[str],
                  types: list[T.DataType]) -> bool:
    """True if the file sits under `dir=value/…` directories whose values equal its logged partition values."""
    segments = unquote(str(action["path"])).split("/")[:-1]
    if len(segments) != len(columns):
        return False
    for segment, column, directory, dtype in zip(segments, columns, directories, types, strict=True):
        name, sep, raw = segment.partition("=")
        if not sep or name != directory:
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
        if isinstance(dtype, T.DecimalType) and logged is not None:
            logged = Decimal(logged)  # `_read_actions` holds decimals as text
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
        return (dt.date.fromisoformat(value) - dt.date(1970, 1, 1)).days  # as `_read_actions` holds dates
    if isinstance(dtype, T.BooleanType):
        return {"true": True, "false": False}.get(value.lower(), _UNKNOWN)
    if isinstance(dtype, T.DecimalType):
        return Decimal(value)
    return _UNKNOWN  # timestamps, floats: the scan per partition is always right


def _logical_columns(scan: DataFrame, fields: list[tuple[T.StructField, T.StructField]]) -> DataFrame:
    """`scan`'s columns read by physical name as the (logical, physical) `fields`, in their order."""
    if all(f.dataType == p.dataType for f, p in fields):
        # One SQL text for the whole list: a Column per field is a few dozen JVM round trips at every query.
        return scan.selectExpr(*[f"{_q(p.name)} AS {_q(f.name)}" for f, p in fields])
    return scan.select(*[_logical(f, p) for f, p in fields])


def _logical(field: T.StructField, physical: T.StructField) -> Column:
    """The column read by its physical name, under its logical name (and nested logical names: a cast).

    A cast only where the types differ: each one is a dozen calls into the JVM, paid at every query's planning.
    """
    column = F.col(_q(physical.name))
    if physical.dataType != field.dataType:
        column = column.cast(field.dataType)
    return column.alias(field.name)


def _q(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"
