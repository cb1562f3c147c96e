"""Paimon tables read by Spark through a Python data source whose partitions are pypaimon's splits.

`spark.read.format("lakeport_paimon")` with options `path` (the table directory), `table` (label), `travel`
(JSON: `scan.snapshot-id` or `scan.tag-name`; empty for a table without snapshots) and `schema` (Spark JSON). Spark plans the read in a Python
worker: `partitions()` asks pypaimon for the snapshot's splits — with a partition filter built from the query's
filters on partition columns (`pushFilters`) — and each split becomes one task; `read()` runs in the task and
yields pypaimon's Arrow batches, merged (primary-key tables) by pypaimon's merge-on-read, deletion vectors applied.
Every filter is also handed back to Spark, which evaluates it again: pruning only ever removes whole partitions.
"""

from __future__ import annotations

import json
import pickle
from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow as pa
from pyspark.sql.datasource import (
    DataSource,
    DataSourceReader,
    EqualNullSafe,
    EqualTo,
    Filter,
    GreaterThan,
    GreaterThanOrEqual,
    In,
    InputPartition,
    IsNotNull,
    IsNull,
    LessThan,
    LessThanOrEqual,
)
from pyspark.sql.types import StructType

FORMAT = "lakeport_paimon"
FILTER_PUSHDOWN_CONF = "spark.sql.python.filterPushdown.enabled"


class SplitPartition(InputPartition):
    """One pypaimon split (pickled: plain dataclasses of file metadata)."""

    def __init__(self, index: int, split: bytes) -> None:
        super().__init__(index)
        self.split = split


class PaimonDataSource(DataSource):
    """The read side of the embedded Paimon connector."""

    @classmethod
    def name(cls) -> str:
        """The format name Spark knows the source by."""
        return FORMAT

    def schema(self) -> StructType:
        """The table's columns at the snapshot read (given by the driver)."""
        return StructType.fromJson(json.loads(self.options["schema"]))

    def reader(self, schema: StructType) -> DataSourceReader:
        """A reader of one snapshot."""
        return PaimonSplitReader(dict(self.options), schema)


class PaimonSplitReader(DataSourceReader):
    """Plans a snapshot's splits (driver-side worker) and reads one split per task."""

    def __init__(self, options: dict[str, str], schema: StructType) -> None:
        self.path = options["path"]
        self.label = options["table"]
        self.travel: dict[str, str] = json.loads(options.get("travel") or "{}")  # scan.snapshot-id | scan.tag-name
        self.partition_keys = json.loads(options.get("partition_keys") or "[]")
        self.columns = [f.name for f in schema.fields]
        self.partition_filters: list[tuple[str, str, Any]] = []  # (operator, column, value) on partition columns

    def pushFilters(self, filters: list[Filter]) -> Iterator[Filter]:  # noqa: N802 - Spark's name
        """Remember the filters on partition columns (used to prune splits); every filter stays with Spark."""
        keys = {k.lower(): k for k in self.partition_keys}
        for item in filters:
            column = getattr(item, "attribute", None)
            if column is not None and len(column) == 1 and column[0].lower() in keys:
                operator = _OPERATORS.get(type(item))
                if operator is not None and not (operator == "equal" and getattr(item, "value", None) is None):
                    self.partition_filters.append((operator, keys[column[0].lower()], getattr(item, "value", None)))
            yield item

    def _table(self) -> Any:  # noqa: ANN401 - pypaimon's FileStoreTable at the snapshot read
        from pypaimon.table.file_store_table import FileStoreTable

        table = FileStoreTable.from_path(self.path)
        return table.copy(self.travel) if self.travel else table

    def _builder(self) -> Any:  # noqa: ANN401 - pypaimon's ReadBuilder
        builder = self._table().new_read_builder().with_projection(self.columns)
        predicate = self._partition_predicate(builder)
        return builder.with_partition_filter(predicate) if predicate is not None else builder

    def _partition_predicate(self, builder: Any) -> Any:  # noqa: ANN401 - pypaimon predicate or None
        if not self.partition_filters:
            return None
        make = builder.new_predicate_builder()
        parts = []
        for operator, column, value in self.partition_filters:
            if operator == "in":
                parts.append(make.is_in(column, list(value)))
            elif operator in ("is_null", "is_not_null"):
                parts.append(getattr(make, operator)(column))
            else:
                parts.append(getattr(make, operator)(column, value))
        return make.and_predicates(parts)

    def partitions(self) -> Sequence[InputPartition]:
        """One partition per split of the snapshot (none for an empty table)."""
        if not self.travel:
            return []
        splits = self._builder().new_scan().plan().splits()
        return [SplitPartition(i, pickle.dumps(s)) for i, s in enumerate(splits)]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        """The split's rows, merged by pypaimon, as Arrow batches in the planned column order."""
        if not isinstance(partition, SplitPartition):
            return  # no splits: Spark still runs one empty task
        split = pickle.loads(partition.split)  # noqa: S301 - planned by this reader in the same application
        reader = self._builder().new_read().to_arrow_batch_reader([split])
        for batch in reader:
            if batch.num_rows:
                yield batch.select(self.columns) if batch.schema.names != self.columns else batch


_OPERATORS: dict[type, str] = {
    EqualTo: "equal", EqualNullSafe: "equal", GreaterThan: "greater_than", GreaterThanOrEqual: "greater_or_equal",
    LessThan: "less_than", LessThanOrEqual: "less_or_equal", In: "in", IsNull: "is_null",
    IsNotNull: "is_not_null",
}

__all__ = ["FILTER_PUSHDOWN_CONF", "FORMAT", "PaimonDataSource", "PaimonSplitReader"]
