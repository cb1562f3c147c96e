"""Fixtures for the embedded Iceberg connector: a connector on the shared SparkSession over a fresh warehouse, and
pyiceberg's own catalog on the same warehouse (the oracle every read and write is compared against)."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql.types import TimestampType

from lakeport_engine.iceberg.catalog import open_catalog
from lakeport_engine.iceberg.connector import EmbeddedIceberg


@dataclass
class Ice:
    """Iceberg catalog `ice` over a tmp warehouse: SQL through the connector, and pyiceberg on the same tables."""

    spark: Any
    iceberg: EmbeddedIceberg
    warehouse: Path
    name: str = "ice"

    def sql(self, statement: str, *, catalog: str | None = None, database: str | None = None) -> Any:
        """Run a statement the way the resolver does: through the connector when it handles it, else Spark."""
        if self.iceberg.handles(statement, current_catalog=catalog, current_database=database):
            return self.iceberg.execute(statement, current_catalog=catalog, current_database=database)
        return self.spark.sql(statement)

    def rows(self, statement: str, **kwargs: Any) -> Counter[tuple[Any, ...]]:
        """The result rows as a multiset (TIMESTAMP values as naive UTC, as `oracle` gives them)."""
        frame = self.sql(statement, **kwargs)
        zoned = [isinstance(f.dataType, TimestampType) for f in frame.schema.fields]
        return Counter(tuple(_utc(v) if z else _plain(v) for v, z in zip(r, zoned, strict=True))
                       for r in frame.collect())

    @property
    def catalog(self) -> Any:
        """pyiceberg's SQL catalog of the warehouse (a second, independent client)."""
        return open_catalog(str(self.warehouse))

    def table(self, identifier: str) -> Any:
        return self.catalog.load_table(identifier)


def oracle(table: Any, snapshot_id: int | None = None, row_filter: str | None = None) -> Counter[tuple[Any, ...]]:
    """pyiceberg's own scan of `table` (at `snapshot_id`), rows as a multiset of tuples in schema order."""
    scan = table.scan(snapshot_id=snapshot_id, **({"row_filter": row_filter} if row_filter else {}))
    arrow = scan.to_arrow()
    return Counter(tuple(_utc(v) if isinstance(v, dt.datetime) and v.tzinfo else _plain(v) for v in row.values())
                   for row in arrow.to_pylist())


def _plain(value: Any) -> Any:
    """Structs as tuples (PySpark gives Rows, pyarrow dicts)."""
    if isinstance(value, dict):
        return tuple(_plain(v) for v in value.values())
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    return value


def _utc(value: Any) -> Any:
    """A zoned or local (PySpark's TIMESTAMP) datetime as naive UTC."""
    return value.astimezone(dt.UTC).replace(tzinfo=None) if isinstance(value, dt.datetime) else value


@pytest.fixture
def ice(spark: Any, tmp_path: Path) -> Iterator[Ice]:
    """A fresh warehouse registered as Iceberg catalog `ice` (namespace `default` exists)."""
    warehouse = tmp_path / "warehouse"
    warehouse.mkdir()
    iceberg = EmbeddedIceberg(spark)
    iceberg.register("ice", {"warehouse": str(warehouse), "default-namespace": "default"})
    open_catalog(str(warehouse)).create_namespace_if_not_exists("default")
    yield Ice(spark=spark, iceberg=iceberg, warehouse=warehouse)
