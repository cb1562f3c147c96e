"""Iceberg metadata tables in Spark SQL: `SELECT … FROM cat.ns.t.snapshots` (and `history`, `files`, `manifests`,
`partitions`, `refs`, `entries`, …), as Iceberg names them, with Iceberg's column names.

pyiceberg's `table.inspect` builds each one as an Arrow table from the table's metadata, manifests and manifest lists;
here it only becomes a Spark frame: dictionary and large types decoded, pyiceberg's naive UTC millisecond timestamps as
Spark TIMESTAMP (Iceberg's `timestamptz`), `int8` enums as INT (as Iceberg's Spark tables type `content`, `status`),
and the empty `partition` struct of an unpartitioned table left out (Iceberg's Spark tables omit it too).
The tables scoped to one snapshot (`files`, `entries`, `partitions`, …) honour `VERSION/TIMESTAMP AS OF`; the ones
that list the whole table (`snapshots`, `history`, `refs`, …) refuse it. Other Iceberg metadata tables are refused by
name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession

from lakeport_engine.iceberg.catalog import IcebergError

if TYPE_CHECKING:
    from pyiceberg.table import Table
    from pyiceberg.table.snapshots import Snapshot

# pyiceberg `inspect` methods that take a snapshot id (the table's current one by default)
SNAPSHOT_SCOPED = ("entries", "files", "data_files", "delete_files", "partitions")
WHOLE_TABLE = ("snapshots", "history", "refs", "manifests", "metadata_log_entries", "all_files", "all_data_files",
               "all_delete_files", "all_manifests")
METADATA_TABLES = SNAPSHOT_SCOPED + WHOLE_TABLE
# Iceberg metadata tables pyiceberg 0.12 does not build
_NOT_BUILT = ("all_entries", "position_deletes")


def check_metadata_table(name: str, table: str, *, time_travel: bool) -> None:
    """IcebergError naming the rule unless `name` is a metadata table the connector reads (with time travel only
    when it is scoped to one snapshot)."""
    if name in _NOT_BUILT:
        raise IcebergError(f"{table}.{name}: the Iceberg metadata table '{name}' is not supported by the embedded "
                           f"Iceberg connector (it reads {', '.join(METADATA_TABLES)}).")
    if name not in METADATA_TABLES:
        raise IcebergError(f"{table}.{name}: '{name}' is not an Iceberg metadata table (the embedded Iceberg "
                           f"connector reads {', '.join(METADATA_TABLES)}).")
    if time_travel and name not in SNAPSHOT_SCOPED:
        raise IcebergError(f"{table}.{name}: VERSION/TIMESTAMP AS OF applies to the metadata tables of one snapshot "
                           f"({', '.join(SNAPSHOT_SCOPED)}); '{name}' lists the whole table.")


def metadata_arrow(table: Table, name: str, snapshot: Snapshot | None) -> pa.Table:
    """pyiceberg's own metadata table `name` of `table` (at `snapshot` for the snapshot-scoped ones)."""
    inspect = table.inspect
    if name in SNAPSHOT_SCOPED:
        if snapshot is None:  # an empty table: pyiceberg answers the right (empty) shape without a snapshot id
            built: pa.Table = getattr(inspect, name)()
            return built
        scoped: pa.Table = getattr(inspect, name)(snapshot_id=snapshot.snapshot_id)
        return scoped
    whole: pa.Table = getattr(inspect, name)()
    return whole


def metadata_frame(spark: SparkSession, table: Table, name: str, snapshot: Snapshot | None) -> DataFrame:
    """Metadata table `name` of `table` as a Spark frame (Iceberg's column names, Spark types)."""
    arrow = metadata_arrow(table, name, snapshot)
    columns, fields = [], []
    for column, kind in zip(arrow.columns, arrow.schema, strict=True):
        target = spark_ready(kind.type)
        if target is None:
            continue  # an empty struct (`partition` of an unpartitioned table)
        columns.append(column.cast(target))
        fields.append(pa.field(kind.name, target, kind.nullable))
    return spark.createDataFrame(pa.Table.from_arrays(columns, schema=pa.schema(fields)))


def spark_ready(kind: pa.DataType) -> pa.DataType | None:
    """The Arrow type Spark takes for `kind` (None: an empty struct, which is left out)."""
    if pa.types.is_dictionary(kind):
        return spark_ready(kind.value_type)
    if pa.types.is_large_string(kind):
        return pa.string()
    if pa.types.is_large_binary(kind):
        return pa.binary()
    if pa.types.is_int8(kind) or pa.types.is_int16(kind):
        return pa.int32()
    if pa.types.is_timestamp(kind):
        return pa.timestamp("us", tz="UTC")  # pyiceberg gives instants as naive UTC: Iceberg's timestamptz
    if pa.types.is_struct(kind):
        children = [(f, spark_ready(f.type)) for f in kind]
        kept = [pa.field(f.name, t, f.nullable) for f, t in children if t is not None]
        return pa.struct(kept) if kept else None
    if pa.types.is_map(kind):
        key, item = spark_ready(kind.key_type), spark_ready(kind.item_type)
        assert key is not None and item is not None
        return pa.map_(key, item)
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        value = spark_ready(kind.value_type)
        assert value is not None
        return pa.list_(value)
    return kind


__all__ = ["METADATA_TABLES", "SNAPSHOT_SCOPED", "WHOLE_TABLE", "check_metadata_table", "metadata_arrow",
           "metadata_frame", "spark_ready"]
