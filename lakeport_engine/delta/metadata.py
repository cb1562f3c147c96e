"""SHOW DATABASES / SHOW TABLES / DESCRIBE / DESCRIBE HISTORY for Delta catalogs, shaped like Spark's output."""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Any

from deltalake import DeltaTable
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import types as T

from lakeport_engine.delta.catalog import DeltaCatalog, TableRef
from lakeport_engine.delta.errors import DeltaConnectorError
from lakeport_engine.delta.schema import spark_schema
from lakeport_engine.delta.storage import Storage

SHOW_DATABASES = T.StructType([T.StructField("namespace", T.StringType(), False)])
SHOW_TABLES = T.StructType([T.StructField("namespace", T.StringType(), False),
                            T.StructField("tableName", T.StringType(), False),
                            T.StructField("isTemporary", T.BooleanType(), False)])
DESCRIBE = T.StructType([T.StructField("col_name", T.StringType(), False),
                         T.StructField("data_type", T.StringType(), True),
                         T.StructField("comment", T.StringType(), True)])
HISTORY = T.StructType([
    T.StructField("version", T.LongType(), True),
    T.StructField("timestamp", T.TimestampType(), True),
    T.StructField("operation", T.StringType(), True),
    T.StructField("operationParameters", T.MapType(T.StringType(), T.StringType()), True),
    T.StructField("readVersion", T.LongType(), True),
    T.StructField("isolationLevel", T.StringType(), True),
    T.StructField("isBlindAppend", T.BooleanType(), True),
    T.StructField("operationMetrics", T.MapType(T.StringType(), T.StringType()), True),
    T.StructField("userMetadata", T.StringType(), True),
    T.StructField("engineInfo", T.StringType(), True),
])


def like(pattern: str | None) -> re.Pattern[str] | None:
    """Spark's SHOW … LIKE pattern: `*` matches anything, `|` separates alternatives, case-insensitive."""
    if pattern is None:
        return None
    options = [re.escape(p.strip()).replace(r"\*", ".*") for p in pattern.split("|")]
    return re.compile("^(?:" + "|".join(options) + ")$", re.I)


def databases(catalog: DeltaCatalog, storage: Storage) -> list[str]:
    """Databases of a catalog: the warehouse's directories, plus the default database."""
    names = {d for d in storage.list_dirs(catalog.warehouse) if not d.startswith(("_", "."))}
    names.add(catalog.default_database)
    return sorted(names)


def database_exists(catalog: DeltaCatalog, storage: Storage, database: str) -> bool:
    return database == catalog.default_database or storage.exists(catalog.database_uri(database))


def tables(catalog: DeltaCatalog, storage: Storage, database: str) -> list[str]:
    """Tables of a database: its directories holding a `_delta_log`."""
    root = catalog.database_uri(database)
    return [d for d in storage.list_dirs(root)
            if not d.startswith(("_", ".")) and storage.exists(f"{root}/{d}/_delta_log")]


def show_databases(spark: SparkSession, catalog: DeltaCatalog, storage: Storage, pattern: str | None) -> DataFrame:
    """`SHOW DATABASES [LIKE …]`."""
    match = like(pattern)
    rows = [(d,) for d in databases(catalog, storage) if match is None or match.match(d)]
    return spark.createDataFrame(rows, SHOW_DATABASES)


def show_tables(spark: SparkSession, catalog: DeltaCatalog, storage: Storage, database: str,
                pattern: str | None) -> DataFrame:
    """`SHOW TABLES [IN db] [LIKE …]`."""
    if not database_exists(catalog, storage, database):
        raise DeltaConnectorError(f"database '{database}' does not exist in Delta catalog '{catalog.name}'.")
    match = like(pattern)
    rows = [(database, t, False) for t in tables(catalog, storage, database) if match is None or match.match(t)]
    return spark.createDataFrame(rows, SHOW_TABLES)


def describe(spark: SparkSession, catalog: DeltaCatalog, ref: TableRef, table: DeltaTable, *,
             extended: bool) -> DataFrame:
    """`DESCRIBE [TABLE] [EXTENDED] t`: columns, partition information and (extended) table details."""
    schema = spark_schema(table.schema())
    partition_cols = list(table.metadata().partition_columns)
    rows: list[tuple[str, str | None, str | None]] = [
        (f.name, f.dataType.simpleString(), (f.metadata or {}).get("comment")) for f in schema.fields
    ]
    if partition_cols:
        types = {f.name: f for f in schema.fields}
        rows += [("# Partition Information", "", ""), ("# col_name", "data_type", "comment")]
        rows += [(c, types[c].dataType.simpleString(), (types[c].metadata or {}).get("comment"))
                 for c in partition_cols]
    if extended:
        meta = table.metadata()
        protocol = table.protocol()
        props = ",".join(f"{k}={v}" for k, v in sorted(meta.configuration.items()))
        features = sorted(set(protocol.reader_features or []) | set(protocol.writer_features or []))
        rows += [
            ("", "", ""),
            ("# Detailed Table Information", "", ""),
            ("Catalog", ref.catalog, ""),
            ("Database", ref.database, ""),
            ("Table", ref.table, ""),
            ("Type", "MANAGED", ""),
            ("Provider", "delta", ""),
            ("Location", table.table_uri, ""),
            ("Version", str(table.version()), ""),
            ("Comment", meta.description or "", ""),
            ("Created Time", _ms(meta.created_time), ""),
            ("Protocol", f"minReaderVersion={protocol.min_reader_version}, "
                         f"minWriterVersion={protocol.min_writer_version}", ""),
            ("Table Features", ", ".join(features), ""),
            ("Table Properties", f"[{props}]", ""),
            ("Engine", "lakeport embedded Delta connector (delta-rs log, Spark parquet)", ""),
        ]
    return spark.createDataFrame(rows, DESCRIBE)


def history(spark: SparkSession, commits: list[dict[str, Any]]) -> DataFrame:
    """`DESCRIBE HISTORY t [LIMIT n]` of the commits (`history.commit_history`): newest first, Delta's columns."""
    rows: list[tuple[Any, ...]] = []
    for commit in commits:
        timestamp = commit.get("timestamp")
        params = {k: _text(v) for k, v in (commit.get("operationParameters") or {}).items()}
        metrics = {k: _text(v) for k, v in (commit.get("operationMetrics") or {}).items()}
        for key in ("lakeport.operation", "lakeport.numFiles", "lakeport.numOutputRows"):
            if key in commit:
                metrics[key.removeprefix("lakeport.")] = _text(commit[key])
        rows.append((
            commit.get("version"),
            dt.datetime.fromtimestamp(timestamp / 1000, tz=dt.UTC) if timestamp is not None else None,
            commit.get("operation"),
            params,
            commit.get("readVersion"),
            commit.get("isolationLevel"),
            commit.get("isBlindAppend"),
            metrics,
            commit.get("userMetadata"),
            commit.get("engineInfo"),
        ))
    return spark.createDataFrame(rows, HISTORY)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _ms(value: int | None) -> str:
    if value is None:
        return ""
    return dt.datetime.fromtimestamp(value / 1000, tz=dt.UTC).isoformat()
