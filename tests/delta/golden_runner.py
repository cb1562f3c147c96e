"""Reads golden Delta tables through the embedded connector and through delta-rs, in one host/session time zone.

Run as a subprocess (`python -m tests.delta.golden_runner OUT.json SESSION_TZ TABLE_DIR…`) with `TZ` set to the host
zone: the JVM of its Spark driver starts in that zone (`-Duser.timezone` too), so each time-zone pair gets a real
process of its own. Writes one JSON record per table version: `ok`, `refused` (with the feature), `error` (connector
failed where delta-rs failed too) or `diff` (with the first differences).
"""

from __future__ import annotations

import collections
import decimal
import functools
import json
import math
import os
import sys
import time
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from deltalake import DeltaTable, QueryBuilder

from lakeport_engine.delta.catalog import TableRef
from lakeport_engine.delta.errors import UnsupportedFeatureError
from lakeport_engine.delta.snapshot import snapshot_frame
from lakeport_engine.platform_jar import platform_jars


def table_versions(path: Path) -> list[int] | str:
    """The versions delta-rs can load, or the reason it cannot load the table at all."""
    try:
        latest = DeltaTable(str(path)).version()
    except Exception as exc:  # noqa: BLE001 — any delta-rs failure means "delta-rs cannot read this table"
        return str(exc).splitlines()[0]
    versions = []
    for version in range(latest + 1):
        try:
            DeltaTable(str(path), version=version)
        except Exception:  # noqa: BLE001
            continue
        versions.append(version)
    return versions


def expected(path: Path, version: int) -> pa.Table:
    """delta-rs' rows of a version: its SQL engine (deletion vectors, column mapping), else the data files as is."""
    table = DeltaTable(str(path), version=version)
    try:
        return pa.table(QueryBuilder().register("t", table).execute("SELECT * FROM t"))
    except Exception as exc:
        if "Unsupported table features" not in str(exc):
            raise
    # delta-rs' engine refuses features that do not change data files (type widening, vacuum protocol check):
    # its own file list, each file read by pyarrow and cast to the table's (widened) types.
    target = pa.schema(table.schema().to_arrow())
    if table.metadata().partition_columns:
        raise RuntimeError("no fallback reader for partitioned tables")
    parts = [pq.read_table(uri.removeprefix("file://")).select(target.names).cast(target) for uri in table.file_uris()]
    return pa.concat_tables(parts) if parts else target.empty_table()


def canonical(value: Any, dtype: pa.DataType) -> Any:
    """A value in a zone-free, comparable form: instants as UTC microseconds, wall clocks as text, floats by bits."""
    if value is None:
        return None
    if pa.types.is_timestamp(dtype):
        return ("ts" if dtype.tz else "ntz", value)
    if pa.types.is_date(dtype):
        return ("date", value)
    if isinstance(value, float):
        return "nan" if math.isnan(value) else value
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, bytes):
        return value.hex()
    if pa.types.is_struct(dtype):
        return tuple(canonical(value.get(f.name), f.type) for f in dtype)
    if pa.types.is_map(dtype):
        return tuple(sorted((repr(canonical(k, dtype.key_type)), canonical(v, dtype.item_type)) for k, v in value))
    if pa.types.is_list(dtype) or pa.types.is_large_list(dtype) or pa.types.is_list_view(dtype):
        return tuple(canonical(v, dtype.value_type) for v in value)
    return value


def exact(table: pa.Table) -> pa.Table:
    """Timestamps as int64 microseconds (UTC instants, or wall clocks for ntz), dates as days: no Python datetimes."""
    columns = []
    for field, column in zip(table.schema, table.columns, strict=True):
        columns.append(_exact_array(column, field.type))
    return pa.table(columns, names=table.schema.names)


def _exact_array(column: Any, dtype: pa.DataType) -> Any:
    if pa.types.is_timestamp(dtype):
        return column.cast(pa.timestamp("us", tz=dtype.tz)).cast(pa.int64())
    if pa.types.is_date(dtype):
        return column.cast(pa.date32()).cast(pa.int32())
    if pa.types.is_dictionary(dtype):
        return column.cast(dtype.value_type)
    return column


def type_name(dtype: pa.DataType) -> str:
    """An Arrow type with the representation-only differences (views, large, dictionary) taken out."""
    text = str(dtype)
    for old, new in (("large_string", "string"), ("string_view", "string"), ("large_binary", "binary"),
                     ("binary_view", "binary"), ("large_list", "list"), ("list_view", "list"),
                     (" not null", ""), ("element: ", "item: "), ("entries: ", "")):
        text = text.replace(old, new)
    return text


def same_sorted(got: pa.Table, want: pa.Table) -> bool:
    """Fast multiset equality for flat tables (Arrow sorts both); False means "compare row by row"."""
    try:
        got, want = exact(got), exact(want)
        names = sorted(want.schema.names)
        if sorted(got.schema.names) != names:
            return False
        got = got.select(names).cast(pa.schema([pa.field(n, want.schema.field(n).type) for n in names]))
        want = want.select(names)
        keys = [(n, "ascending") for n in names]
        return bool(got.sort_by(keys).equals(want.sort_by(keys)))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
        return False


def rows(table: pa.Table, variant_columns: set[str]) -> collections.Counter[str]:
    """Rows as a multiset of canonical JSON texts (columns by name)."""
    table = exact(table)
    names = sorted(table.schema.names)
    out: collections.Counter[str] = collections.Counter()
    for row in table.select(names).to_pylist():
        out[repr(tuple(canonical(row[n], table.schema.field(n).type) if n not in variant_columns else row[n]
                       for n in names))] += 1
    return out


VERSION = "__golden_version"


def compare_table(spark: Any, path: Path, versions: list[int]) -> list[dict[str, Any]]:
    """Every version of a table: the connector's rows and types against delta-rs'.

    Versions with the same schema are read in one Spark job (a union tagged by version), so a table with many
    versions costs about one scan; a failing union is retried version by version to name the one that fails.
    """
    from pyspark.sql import functions as F

    records: dict[int, dict[str, Any]] = {}
    frames: dict[int, Any] = {}
    for version in versions:
        record: dict[str, Any] = {"table": str(path.name), "version": version}
        table = DeltaTable(str(path), version=version)
        try:
            frame = snapshot_frame(spark, table, TableRef("golden", "default", path.name))
            variants = [f.name for f in frame.schema.fields if "variant" in f.dataType.simpleString()]
            if variants:
                frame = frame.selectExpr(*[f"to_json(`{f.name}`) AS `{f.name}`" if f.name in variants
                                           else f"`{f.name}`" for f in frame.schema.fields])
            record["variants"] = variants
            frames[version] = frame
        except UnsupportedFeatureError as exc:
            record.update(status="refused", feature=exc.feature, message=str(exc))
        except Exception as exc:  # noqa: BLE001
            record.update(status="error", message=_first_line(exc))
        records[version] = record
    groups: dict[str, list[int]] = {}
    for version, frame in frames.items():
        groups.setdefault(frame.schema.json(), []).append(version)
    for members in groups.values():
        tagged = [frames[v].withColumn(VERSION, F.lit(v)) for v in members]
        try:
            union = functools.reduce(lambda a, b: a.unionByName(b), tagged).toArrow()
        except Exception:  # noqa: BLE001 — find out which version fails
            union = None
        for version in members:
            if union is not None:
                got = union.filter(pc.equal(union.column(VERSION), version)).drop_columns([VERSION])
            else:
                try:
                    got = frames[version].toArrow()
                except Exception as exc:  # noqa: BLE001
                    records[version].update(status="error", message=_first_line(exc))
                    continue
            records[version].update(check(path, version, got, records[version]["variants"]))
    for version, record in records.items():
        if record.get("status") == "error":
            try:
                expected(path, version)
            except Exception as exc:  # noqa: BLE001 — delta-rs cannot read it either: an error is right
                record["oracle_error"] = _first_line(exc)
            else:
                record["status"] = "diff"  # delta-rs reads it, the connector does not
    return [records[v] for v in versions]


def check(path: Path, version: int, got: pa.Table, variants: list[str]) -> dict[str, Any]:
    """Compare one version's rows and types with delta-rs'."""
    try:
        want = expected(path, version)
    except Exception as exc:  # noqa: BLE001
        return {"status": "diff", "message": f"delta-rs failed ({_first_line(exc)}) but the connector returned "
                                             f"{got.num_rows} rows"}
    if variants:
        want = _variants_as_json(want, variants)
        got = _parse_json(got, variants)
    problems = []
    if got.num_rows != want.num_rows:
        problems.append(f"count {got.num_rows} != delta-rs {want.num_rows}")
    got_types = {f.name: type_name(f.type) for f in got.schema}
    want_types = {f.name: type_name(f.type) for f in want.schema}
    for name in sorted(set(got_types) | set(want_types)):
        if got_types.get(name) != want_types.get(name) and name not in variants:
            problems.append(f"type of {name}: {got_types.get(name)} != delta-rs {want_types.get(name)}")
    if got.num_rows == want.num_rows and same_sorted(got, want):
        return {"status": "diff" if problems else "ok", "message": "; ".join(problems), "rows": got.num_rows}
    got_rows, want_rows = rows(got, set()), rows(want, set())
    if got_rows != want_rows:
        extra = list((got_rows - want_rows).elements())[:3]
        missing = list((want_rows - got_rows).elements())[:3]
        problems.append(f"rows differ: connector only {extra}; delta-rs only {missing}")
    return {"status": "diff" if problems else "ok", "message": "; ".join(problems), "rows": got.num_rows}


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:300] if text else type(exc).__name__


def _variants_as_json(table: pa.Table, names: list[str]) -> pa.Table:
    """delta-rs gives variants as their binary encoding: decoded to canonical JSON text, as Spark's `to_json`."""
    from pyspark.sql.types import VariantVal

    def decode(value: Any) -> Any:
        if value is None:
            return None
        if isinstance(value, dict) and set(value) == {"metadata", "value"} and isinstance(value["value"], bytes):
            return json.loads(VariantVal(value["value"], value["metadata"]).toJson())
        if isinstance(value, dict):  # a struct: to_json leaves out its null fields
            return {k: decode(v) for k, v in value.items() if v is not None}
        if isinstance(value, list) and value and all(isinstance(v, tuple) for v in value):
            return {str(k): decode(v) for k, v in value}  # a map: to_json prints it as an object
        if isinstance(value, list):
            return [decode(v) for v in value]
        return value

    for name in names:
        values = [None if v is None else json.dumps(decode(v), sort_keys=True)
                  for v in table.column(name).to_pylist()]
        table = table.set_column(table.schema.get_field_index(name), name, pa.array(values, pa.string()))
    return table


def _parse_json(table: pa.Table, names: list[str]) -> pa.Table:
    for name in names:
        values = [None if v is None else json.dumps(json.loads(v), sort_keys=True)
                  for v in table.column(name).to_pylist()]
        table = table.set_column(table.schema.get_field_index(name), name, pa.array(values, pa.string()))
    return table


def main() -> None:
    out, session_tz, *dirs = sys.argv[1:]
    from pyspark.sql import SparkSession

    host_tz = os.environ.get("TZ", "UTC")
    spark = (SparkSession.builder.master("local[2]").appName("delta-golden")
             .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
             .config("spark.jars", ",".join(platform_jars()))  # the deletion-vector reader, as engines have it
             .config("spark.driver.extraJavaOptions", f"-Duser.timezone={host_tz}")
             .config("spark.sql.session.timeZone", session_tz).getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    jvm_zone = spark.sparkContext._jvm.java.util.TimeZone.getDefault().getID()
    python_offset = time.localtime(1_700_000_000).tm_gmtoff
    results: list[dict[str, Any]] = []
    for directory in dirs:
        path = Path(directory)
        versions = table_versions(path)
        if isinstance(versions, str):
            continue
        started = time.monotonic()
        results.extend(compare_table(spark, path, versions))
        print(path.name, round(time.monotonic() - started, 2), file=sys.stderr, flush=True)
    Path(out).write_text(json.dumps(default=repr, obj={"jvm_zone": jvm_zone, "python_offset": python_offset,
                                     "session_zone": spark.conf.get("spark.sql.session.timeZone"),
                                     "results": results}))
    spark.stop()


if __name__ == "__main__":
    main()
