"""Embedded Delta tables as the static side of a streaming query (a stream joined with a Delta table), re-read at
the table's latest version in every micro-batch, as Delta-Spark re-reads a static Delta side per micro-batch.

Spark analyses a streaming query once and runs its physical plan again in every micro-batch. A Python data
source's partitions are planned once per query (checked on pyspark 4.3: `partitions()` ran once for two
micro-batches), but `read()` runs in each micro-batch's tasks. So this reader plans one partition, and its task
opens the table's latest snapshot when it runs: all rows of one micro-batch's static side come from one version.
The rows are read as the stream source reads a snapshot (`stream_source.read_active`: active files less the rows
their deletion vectors delete, physical column names under column mapping, partition values from the log).
Local warehouses only, like the stream source.

The schema is the one the query was planned with: a later version may add columns (not seen until the query is
started again), but a version that drops one of the planned columns or changes its type fails the micro-batch.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator

import pyarrow as pa
from deltalake import DeltaTable
from deltalake.exceptions import DeltaError, TableNotFoundError
from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition
from pyspark.sql.types import StructType

from lakeport_engine.delta.errors import DeltaConnectorError
from lakeport_engine.delta.schema import spark_schema
from lakeport_engine.delta.stream_source import read_active

FORMAT = "lakeport_delta_static"
# Per Python worker process: the last version each table was read at, so a version is logged once, not per batch.
_LOGGED: dict[str, int] = {}


class DeltaStaticDataSource(DataSource):
    """`spark.read.format("lakeport_delta_static")` with options uri, table (label), schema (Spark JSON)."""

    @classmethod
    def name(cls) -> str:
        return FORMAT

    def schema(self) -> StructType:
        return StructType.fromJson(json.loads(self.options["schema"]))

    def reader(self, schema: StructType) -> DataSourceReader:
        return DeltaStaticReader(dict(self.options))


class DeltaStaticReader(DataSourceReader):
    """One partition, read at the table's latest version when the micro-batch's task runs."""

    def __init__(self, options: dict[str, str]) -> None:
        self.uri = options["uri"]
        self.label = options["table"]
        self.schema = StructType.fromJson(json.loads(options["schema"]))

    def partitions(self) -> list[InputPartition]:
        """One task per micro-batch: the whole snapshot comes from one version."""
        return [InputPartition(0)]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        """The latest snapshot's rows, in the planned schema."""
        try:
            table = DeltaTable(self.uri)
        except TableNotFoundError:
            raise DeltaConnectorError(f"Delta table {self.label} (joined to the stream) no longer exists "
                                      f"(no _delta_log at {self.uri}).") from None
        except (DeltaError, OSError) as exc:
            raise DeltaConnectorError(f"cannot load Delta table {self.label} (joined to the stream): {exc}") from exc
        check_planned_columns(self.label, table.version(), self.schema, spark_schema(table.schema()))
        _log_version(self.label, table.version())
        yield from read_active(table, self.label, self.schema)


def check_planned_columns(label: str, version: int, planned: StructType, current: StructType) -> None:
    """Refuse a version that dropped a column the query was planned with or changed its type."""
    types = {f.name.lower(): f.dataType.simpleString() for f in current.fields}
    changed = [f"{f.name} {f.dataType.simpleString()}" for f in planned.fields
               if types.get(f.name.lower()) != f.dataType.simpleString()]
    if changed:
        raise DeltaConnectorError(
            f"Delta table {label} (joined to the stream): version {version} no longer has the column(s) "
            f"{', '.join(changed)} the query was planned with; start the query again to read the new schema."
        )


def _log_version(label: str, version: int) -> None:
    """One line on the worker's stderr (the engine's log) when a table is first read at a new version."""
    if _LOGGED.get(label) != version:
        _LOGGED[label] = version
        print(f"lakeport: Delta table {label} joined to a stream: micro-batch reads version {version}",
              file=sys.stderr, flush=True)


__all__ = ["FORMAT", "DeltaStaticDataSource", "DeltaStaticReader", "check_planned_columns"]
