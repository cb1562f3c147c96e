"""pyiceberg's RestCatalog — a client no one here wrote — against Lakeport's Iceberg REST endpoint: namespaces,
a partitioned table, appends read back (generated rows, multisets), schema evolution, time travel, stage-create,
rename, drop with and without purge, and the refusals (locations outside the table, nested namespaces)."""

from __future__ import annotations

import datetime as dt
import random
from collections import Counter
from typing import Any

import pyarrow as pa
import pytest
from pyiceberg import types as it
from pyiceberg.exceptions import (
    BadRequestError,
    CommitFailedException,
    NamespaceAlreadyExistsError,
    NamespaceNotEmptyError,
    NoSuchNamespaceError,
    NoSuchTableError,
    TableAlreadyExistsError,
)
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.table.update import AssertRefSnapshotId, SetLocationUpdate, SetPropertiesUpdate
from pyiceberg.transforms import BucketTransform, DayTransform, IdentityTransform

from lakeport_engine.iceberg.catalog import open_catalog
from tests.iceberg_rest.conftest import Rest

pytestmark = pytest.mark.django_db(transaction=True)

SCHEMA = Schema(it.NestedField(1, "id", it.LongType(), required=True), it.NestedField(2, "ts", it.TimestamptzType()),
                it.NestedField(3, "region", it.StringType()), it.NestedField(4, "amount", it.DoubleType()))
SPEC = PartitionSpec(PartitionField(2, 1000, DayTransform(), "ts_day"),
                     PartitionField(1, 1001, BucketTransform(8), "id_bucket"),
                     PartitionField(3, 1002, IdentityTransform(), "region"))
ARROW = pa.schema([pa.field("id", pa.int64(), nullable=False), ("ts", pa.timestamp("us", tz="UTC")),
                   ("region", pa.string()), ("amount", pa.float64())])


def generated(seed: int, n: int, start: int = 0) -> pa.Table:
    """`n` seeded rows: ids from `start`, timestamps over ten days, regions with non-ASCII and null values."""
    rnd = random.Random(seed)
    regions = ["eu", "us", "apac", "zürich", None]
    rows = [{"id": start + i, "ts": dt.datetime(2024, 3, 1, tzinfo=dt.UTC) + dt.timedelta(minutes=rnd.randrange(14400)),
             "region": rnd.choice(regions), "amount": round(rnd.uniform(-100, 100), 3)} for i in range(n)]
    return pa.Table.from_pylist(rows, schema=ARROW)


def multiset(table: pa.Table) -> Counter[tuple[Any, ...]]:
    return Counter(tuple(r.values()) for r in table.to_pylist())


def test_namespaces_and_a_partitioned_table_round_trip(rest: Rest) -> None:
    client = rest.catalog()
    client.create_namespace("sales", {"owner": "ops"})
    with pytest.raises(NamespaceAlreadyExistsError):
        client.create_namespace("sales")
    assert ("sales",) in client.list_namespaces()
    assert client.load_namespace_properties("sales")["owner"] == "ops"
    assert client.namespace_exists("sales") and not client.namespace_exists("nope")
    summary = client.update_namespace_properties("sales", removals={"owner", "ghost"}, updates={"tier": "gold"})
    assert (summary.updated, summary.removed, summary.missing) == (["tier"], ["owner"], ["ghost"])

    table = client.create_table("sales.orders", schema=SCHEMA, partition_spec=SPEC)
    assert table.location() == (rest.warehouse / "sales" / "orders").as_uri() or \
        table.location().removeprefix("file://") == str(rest.warehouse / "sales" / "orders")
    first, second = generated(1, 400), generated(2, 300, start=400)
    table.append(first)
    table.append(second)
    again = client.load_table("sales.orders")
    assert multiset(again.scan().to_arrow()) == multiset(first) + multiset(second)
    # the engine's own catalog on the warehouse sees the same table and rows (one catalog, two doors)
    direct = open_catalog(str(rest.warehouse)).load_table("sales.orders")
    assert multiset(direct.scan().to_arrow()) == multiset(first) + multiset(second)
    # partition pruning proves the written partition values
    eu = [r for r in (first.to_pylist() + second.to_pylist()) if r["region"] == "eu"]
    assert multiset(again.scan(row_filter="region == 'eu'").to_arrow()) == Counter(tuple(r.values()) for r in eu)

    # time travel to the first snapshot
    snapshots = again.snapshots()
    assert len(snapshots) == 2
    assert multiset(again.scan(snapshot_id=snapshots[0].snapshot_id).to_arrow()) == multiset(first)

    # schema evolution through the endpoint
    with again.update_schema() as update:
        update.add_column("note", it.StringType())
        update.rename_column("amount", "total")
    evolved = client.load_table("sales.orders")
    assert [f.name for f in evolved.schema().fields] == ["id", "ts", "region", "total", "note"]
    assert evolved.scan().to_arrow().num_rows == 700

    # delete rows (pyiceberg rewrites or drops files) and read back
    evolved.delete("id < 100")
    assert sorted(client.load_table("sales.orders").scan().to_arrow().column("id").to_pylist()) == list(range(100, 700))

    assert client.list_tables("sales") == [("sales", "orders")]
    assert client.table_exists("sales.orders") and not client.table_exists("sales.none")
    with pytest.raises(NamespaceNotEmptyError):
        rest.catalog("admin").drop_namespace("sales")


def test_stage_create_rename_and_drop(rest: Rest) -> None:
    client = rest.catalog()
    client.create_namespace("a")
    client.create_namespace("b")
    rows = generated(3, 50)
    # create_table_transaction: a staged create, committed with assert-create and its first snapshot at once
    with client.create_table_transaction("a.t", schema=SCHEMA, partition_spec=SPEC) as tx:
        tx.append(rows)
    table = client.load_table("a.t")
    assert multiset(table.scan().to_arrow()) == multiset(rows)
    with pytest.raises(TableAlreadyExistsError):
        client.create_table("a.t", schema=SCHEMA)

    client.rename_table("a.t", "b.moved")
    assert not client.table_exists("a.t")
    assert multiset(client.load_table("b.moved").scan().to_arrow()) == multiset(rows)
    # the old directory still holds the renamed table's files: a new table may not take it over
    with pytest.raises(TableAlreadyExistsError, match="holds files of another table"):
        client.create_table("a.t", schema=SCHEMA)
    with pytest.raises(NoSuchTableError):
        client.rename_table("a.none", "b.x")
    with pytest.raises(NoSuchNamespaceError):
        client.rename_table("b.moved", "zz.x")

    admin = rest.catalog("admin")
    location = rest.warehouse / "a" / "t"
    admin.drop_table("b.moved")  # no purge: files stay
    assert location.is_dir()
    client.create_namespace("c")
    client.create_table("c.gone", schema=SCHEMA).append(rows)
    admin.purge_table("c.gone")
    assert not (rest.warehouse / "c" / "gone").exists()
    with pytest.raises(NoSuchTableError):
        client.load_table("c.gone")
    admin.drop_namespace("c")
    assert not client.namespace_exists("c")


def test_locations_outside_the_table_are_refused_by_name(rest: Rest) -> None:
    client = rest.catalog()
    client.create_namespace("sales")
    with pytest.raises(BadRequestError, match="iceberg-location"):
        client.create_table("sales.t", schema=SCHEMA, location="file:///tmp/elsewhere")
    with pytest.raises(BadRequestError, match="iceberg-location"):
        client.create_table("sales.t", schema=SCHEMA, properties={"write.data.path": "/tmp/elsewhere"})
    table = client.create_table("sales.t", schema=SCHEMA)
    with pytest.raises(BadRequestError, match="iceberg-location"), table.transaction() as tx:
        tx.set_properties({"write.metadata.path": str(rest.warehouse.parent / "x")})
    with pytest.raises(BadRequestError, match="iceberg-location"):
        client.commit_table(table, (), (SetLocationUpdate(location="file:///tmp/stolen"),))
    # inside the table's directory is fine
    with table.transaction() as tx:
        tx.set_properties({"write.data.path": str(rest.warehouse / "sales" / "t" / "files")})
    table = client.load_table("sales.t")
    table.append(generated(4, 20))
    assert all(str(rest.warehouse / "sales" / "t" / "files") in t.file.file_path for t in table.scan().plan_files())
    with pytest.raises(BadRequestError, match="Nested namespaces"):
        client.create_namespace(("a", "b"))
    with pytest.raises(BadRequestError, match="not a valid namespace name"):
        client.create_namespace("up/x")


def test_a_stale_requirement_is_409_and_nothing_is_lost(rest: Rest) -> None:
    client = rest.catalog()
    client.create_namespace("sales")
    client.create_table("sales.t", schema=SCHEMA)
    one, two = client.load_table("sales.t"), client.load_table("sales.t")
    one.append(generated(5, 10))
    # `two` still holds the old metadata: its requirement (main has no snapshot yet) no longer holds
    with pytest.raises(CommitFailedException, match="CommitFailedException"):
        client.commit_table(two, (AssertRefSnapshotId(ref="main", snapshot_id=None),),
                            (SetPropertiesUpdate(updates={"k": "v"}),))
    assert "k" not in client.load_table("sales.t").properties
    assert client.load_table("sales.t").scan().to_arrow().num_rows == 10
