"""Reads of tables pyiceberg wrote, through the embedded connector, against pyiceberg's own scan (rows as multisets):
appends, overwrites, copy-on-write deletes, positional delete files, schema evolution by field id (renamed, added,
dropped columns), partitioned tables, and every snapshot through VERSION AS OF / TIMESTAMP AS OF."""

from __future__ import annotations

import datetime as dt
import random
from collections import Counter
from decimal import Decimal
from typing import Any

import pyarrow as pa
import pytest
from pyiceberg import types as it
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import DayTransform, IdentityTransform

from lakeport_engine.iceberg.catalog import IcebergError
from tests.iceberg.conftest import Ice, oracle

pytestmark = pytest.mark.spark

_ARROW = pa.schema([("id", pa.int64()), ("name", pa.string()), ("amount", pa.decimal128(10, 2)),
                    ("ts", pa.timestamp("us", tz="UTC")), ("day", pa.date32()), ("flag", pa.bool_())])


def _batch(rng: random.Random, start: int, n: int) -> pa.Table:
    base = dt.datetime(2024, 1, 1, tzinfo=dt.UTC)
    rows = [{"id": start + i, "name": rng.choice(["a", "b", "ç", None, "long name " * 3]),
             "amount": Decimal(rng.randint(-10**6, 10**6)) / 100,
             "ts": base + dt.timedelta(seconds=rng.randint(0, 86_400 * 10)),
             "day": (base + dt.timedelta(days=rng.randint(0, 5))).date(), "flag": rng.random() < 0.5}
            for i in range(n)]
    return pa.Table.from_pylist(rows, schema=_ARROW)


def _spark_rows(ice: Ice, sql: str) -> Any:
    return ice.rows(sql)


def test_every_snapshot_of_an_evolving_table_reads_as_pyiceberg_scans_it(ice: Ice) -> None:
    rng = random.Random(33)
    catalog = ice.catalog
    catalog.create_namespace_if_not_exists("sales")
    spec = PartitionSpec(PartitionField(4, 1000, DayTransform(), "ts_day"),
                         PartitionField(2, 1001, IdentityTransform(), "name"))
    schema = Schema(it.NestedField(1, "id", it.LongType()), it.NestedField(2, "name", it.StringType()),
                    it.NestedField(3, "amount", it.DecimalType(10, 2)), it.NestedField(4, "ts", it.TimestamptzType()),
                    it.NestedField(5, "day", it.DateType()), it.NestedField(6, "flag", it.BooleanType()))
    table = catalog.create_table("sales.orders", schema=schema, partition_spec=spec,
                                 location=(ice.warehouse / "sales" / "orders").as_uri())
    table.append(_batch(rng, 0, 300))
    table.append(_batch(rng, 300, 200))
    table.delete("amount < 0")  # copy-on-write: rewritten files
    with table.update_schema() as update:  # by field id: a rename, a drop and an added column
        update.rename_column("name", "label")
        update.delete_column("flag")
        update.add_column("note", it.StringType())
    table = catalog.load_table("sales.orders")
    added = _batch(rng, 500, 100).drop_columns(["flag"]).rename_columns(
        ["id", "label", "amount", "ts", "day"]).append_column("note", pa.array(["n"] * 100))
    table.append(added)
    table.overwrite(added.slice(0, 10))  # replaces the whole table
    table = catalog.load_table("sales.orders")
    snapshots = [s.snapshot_id for s in table.snapshots()]
    assert len(snapshots) >= 5
    for snapshot_id in snapshots:
        expected = oracle(table, snapshot_id)
        got = _spark_rows(ice, f"SELECT * FROM ice.sales.orders VERSION AS OF {snapshot_id}")
        assert got == expected, snapshot_id
    assert _spark_rows(ice, "SELECT * FROM ice.sales.orders") == oracle(table)
    # columns by their current names; a column dropped later still reads at the old snapshot
    assert ice.sql("SELECT * FROM ice.sales.orders").columns == ["id", "label", "amount", "ts", "day", "note"]
    first = ice.sql(f"SELECT * FROM ice.sales.orders VERSION AS OF {snapshots[0]}")
    assert first.columns == ["id", "name", "amount", "ts", "day", "flag"]
    # TIMESTAMP AS OF: the snapshot current at that moment
    second = table.snapshot_by_id(snapshots[1])
    when = dt.datetime.fromtimestamp(second.timestamp_ms / 1000, tz=dt.UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
    ice.spark.conf.set("spark.sql.session.timeZone", "UTC")
    assert _spark_rows(ice, f"SELECT * FROM ice.sales.orders TIMESTAMP AS OF '{when}'") == oracle(table, snapshots[1])


def test_positional_delete_files_are_applied(ice: Ice) -> None:
    from tests.iceberg.deletes import commit_positional_deletes

    rng = random.Random(7)
    catalog = ice.catalog
    table = catalog.create_table("default.events", schema=_ARROW,
                                 location=(ice.warehouse / "default" / "events").as_uri())
    table.append(_batch(rng, 0, 500))
    table.append(_batch(rng, 500, 500))
    table = catalog.load_table("default.events")
    data_files = [task.file.file_path for task in table.scan().plan_files()]
    positions = {data_files[0]: sorted(rng.sample(range(500), 40)), data_files[1]: [0, 1, 499]}
    commit_positional_deletes(table, positions)
    table = catalog.load_table("default.events")
    assert any(task.delete_files for task in table.scan().plan_files())
    expected = oracle(table)
    assert sum(expected.values()) == 1000 - 43
    assert _spark_rows(ice, "SELECT * FROM ice.default.events") == expected
    assert _spark_rows(ice, "SELECT count(*) FROM ice.default.events WHERE flag") == Counter(
        [(sum(n for row, n in expected.items() if row[5]),)])


def test_files_outside_the_warehouse_are_refused(ice: Ice, tmp_path: Any) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    catalog = ice.catalog
    table = catalog.create_table("default.leak", schema=_ARROW, location=outside.as_uri())
    table.append(_batch(random.Random(1), 0, 5))
    with pytest.raises(IcebergError, match="outside the catalog's warehouse"):
        ice.sql("SELECT * FROM ice.default.leak").collect()



