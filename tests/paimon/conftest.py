"""Fixtures for the embedded Paimon connector: a connector on the shared SparkSession over a fresh warehouse, and
pypaimon's own catalog on the same warehouse (the oracle every read and write is compared against)."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from lakeport_engine.paimon.catalog import open_catalog
from lakeport_engine.paimon.connector import EmbeddedPaimon


@dataclass
class Pai:
    """Paimon catalog `pai` over a tmp warehouse: SQL through the connector, and pypaimon on the same tables."""

    spark: Any
    paimon: EmbeddedPaimon
    warehouse: Path
    name: str = "pai"

    def sql(self, statement: str, *, catalog: str | None = None, database: str | None = None) -> Any:
        """Run a statement the way the resolver does: through the connector when it handles it, else Spark."""
        if self.paimon.handles(statement, current_catalog=catalog, current_database=database):
            return self.paimon.execute(statement, current_catalog=catalog, current_database=database)
        return self.spark.sql(statement)

    def rows(self, statement: str, **kwargs: Any) -> Counter[tuple[Any, ...]]:
        """The result rows as a multiset of tuples."""
        return Counter(tuple(_plain(v) for v in r) for r in self.sql(statement, **kwargs).collect())

    @property
    def catalog(self) -> Any:
        """pypaimon's filesystem catalog of the warehouse (a second, independent client)."""
        return open_catalog(str(self.warehouse))

    def table(self, identifier: str) -> Any:
        return self.catalog.get_table(identifier)

    def write(self, identifier: str, rows: list[dict[str, Any]], *, overwrite: dict[str, Any] | None = None) -> None:
        """One pypaimon commit of `rows` (the way another engine writes the table)."""
        table = self.table(identifier)
        builder = table.new_batch_write_builder()
        if overwrite is not None:
            builder = builder.overwrite(overwrite)
        writer, committer = builder.new_write(), builder.new_commit()
        schema = pa.schema([f for f in _arrow(table)])
        writer.write_arrow(pa.Table.from_pylist(rows, schema=schema))
        committer.commit(writer.prepare_commit())
        writer.close()
        committer.close()


def _arrow(table: Any) -> pa.Schema:
    from lakeport_engine.paimon.catalog import arrow_schema

    return arrow_schema(table)


def oracle(table: Any, snapshot_id: int | None = None, tag: str | None = None) -> Counter[tuple[Any, ...]]:
    """pypaimon's own read of `table` (at `snapshot_id` or `tag`), rows as a multiset of tuples in schema order."""
    if snapshot_id is not None:
        table = table.copy({"scan.snapshot-id": str(snapshot_id)})
    elif tag is not None:
        table = table.copy({"scan.tag-name": tag})
    builder = table.new_read_builder()
    splits = builder.new_scan().plan().splits()
    arrow = builder.new_read().to_arrow(splits)
    if arrow is None:
        return Counter()
    return Counter(tuple(_plain(v) for v in row.values()) for row in arrow.to_pylist())


def _plain(value: Any) -> Any:
    """Zoned datetimes as naive UTC; Decimal and the rest as they are."""
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        return value.astimezone(dt.UTC).replace(tzinfo=None)
    return value


@pytest.fixture
def pai(spark: Any, tmp_path: Path) -> Iterator[Pai]:
    """A fresh warehouse registered as Paimon catalog `pai` (database `default` exists)."""
    warehouse = tmp_path / "warehouse"
    warehouse.mkdir()
    paimon = EmbeddedPaimon(spark)
    paimon.register("pai", {"warehouse": str(warehouse), "default-database": "default"})
    open_catalog(str(warehouse)).create_database("default", True)
    yield Pai(spark=spark, paimon=paimon, warehouse=warehouse)
