"""Iceberg catalogs browsed through the API on tables pyiceberg wrote into a temporary warehouse: test connection,
namespaces, tables, and a table's columns with field ids, partition spec and snapshots; names and files outside
the warehouse refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from pyiceberg import types as it
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import BucketTransform, DayTransform
from rest_framework.test import APIClient

from lakeport_engine.iceberg.catalog import open_catalog

pytestmark = pytest.mark.django_db

BASE = "/api/v1/teams/acme/catalogs"


@pytest.fixture
def iceberg_warehouse(tmp_path: Path) -> Path:
    """Namespace `sales` with `orders` (day + bucket partitions, two appends, a rename) and an empty `staging`."""
    root = tmp_path / "warehouse"
    root.mkdir()
    catalog = open_catalog(str(root))
    catalog.create_namespace("sales")
    catalog.create_namespace("staging")
    schema = Schema(it.NestedField(1, "id", it.LongType(), required=True), it.NestedField(2, "ts", it.TimestamptzType()),
                    it.NestedField(3, "amount", it.DecimalType(10, 2)))
    spec = PartitionSpec(PartitionField(2, 1000, DayTransform(), "ts_day"),
                         PartitionField(1, 1001, BucketTransform(4), "id_bucket"))
    orders = catalog.create_table("sales.orders", schema=schema, partition_spec=spec,
                                  location=(root / "sales" / "orders").as_uri())
    arrow = pa.schema([pa.field("id", pa.int64(), nullable=False), ("ts", pa.timestamp("us", tz="UTC")),
                       ("amount", pa.decimal128(10, 2))])
    import datetime as dt
    from decimal import Decimal

    rows = [{"id": i, "ts": dt.datetime(2024, 1, 1 + i, tzinfo=dt.UTC), "amount": Decimal(i)} for i in range(3)]
    orders.append(pa.Table.from_pylist(rows, schema=arrow))
    orders.append(pa.Table.from_pylist(rows[:2], schema=arrow))
    with orders.update_schema() as update:
        update.rename_column("amount", "total")
    return root


def test_connection_opens_a_table_and_an_empty_warehouse_passes(admin_client: APIClient, make_catalog: Any,
                                                                iceberg_warehouse: Path, tmp_path: Path) -> None:
    make_catalog("ice", "iceberg", {"warehouse": str(iceberg_warehouse)})
    body = admin_client.post(f"{BASE}/ice/test-connection/").json()
    assert body["ok"] is True, body
    assert "opened sales.orders" in body["message"]
    (tmp_path / "empty").mkdir()
    make_catalog("fresh", "iceberg", {"warehouse": str(tmp_path / "empty")})
    body = admin_client.post(f"{BASE}/fresh/test-connection/").json()
    assert body["ok"] is True and "no Iceberg catalog yet" in body["message"]
    assert not (tmp_path / "empty" / "_lakeport_iceberg").exists()  # testing never creates the catalog
    make_catalog("gone", "iceberg", {"warehouse": str(tmp_path / "nowhere")})
    body = admin_client.post(f"{BASE}/gone/test-connection/").json()
    assert body["ok"] is False and "does not exist" in body["message"]


def test_browse_three_levels(viewer_client: APIClient, make_catalog: Any, iceberg_warehouse: Path) -> None:
    make_catalog("ice", "iceberg", {"warehouse": str(iceberg_warehouse)})
    assert viewer_client.get(f"{BASE}/ice/databases/").json() == {"catalog": "ice", "databases": ["sales", "staging"]}
    assert viewer_client.get(f"{BASE}/ice/databases/sales/tables/").json()["tables"] == [
        {"name": "orders", "kind": "iceberg"}]
    assert viewer_client.get(f"{BASE}/ice/databases/staging/tables/").json()["tables"] == []
    assert viewer_client.get(f"{BASE}/ice/databases/nope/tables/").status_code == 404
    detail = viewer_client.get(f"{BASE}/ice/databases/sales/tables/orders/").json()
    assert detail["columns"] == [
        {"name": "id", "type": "bigint", "nullable": False, "comment": None},
        {"name": "ts", "type": "timestamp", "nullable": True, "comment": None},
        {"name": "total", "type": "decimal(10,2)", "nullable": True, "comment": None},
    ]
    table = open_catalog(str(iceberg_warehouse)).load_table("sales.orders")
    properties = detail["properties"]
    assert json.loads(properties["iceberg.field-ids"]) == {"id": 1, "ts": 2, "total": 3}  # renamed, same id
    assert json.loads(properties["iceberg.partition-spec"]) == ["day(ts)", "bucket[4](id)"]
    snapshots = json.loads(properties["iceberg.snapshots"])
    assert [s["snapshot_id"] for s in snapshots] == [s.snapshot_id for s in table.snapshots()]
    assert detail["version"] == table.current_snapshot().snapshot_id
    assert detail["row_count"] == 5
    assert detail["location"] == str(iceberg_warehouse / "sales" / "orders")
    assert detail["kind"] == "iceberg"


def test_names_and_files_outside_the_warehouse_are_refused(viewer_client: APIClient, make_catalog: Any,
                                                           iceberg_warehouse: Path, tmp_path: Path) -> None:
    make_catalog("ice", "iceberg", {"warehouse": str(iceberg_warehouse)})
    for name in ("..", "%2E%2E", "_lakeport_iceberg", ".hidden"):
        assert viewer_client.get(f"{BASE}/ice/databases/{name}/tables/").status_code in (400, 404), name
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    open_catalog(str(iceberg_warehouse)).create_table(
        "sales.leak", schema=Schema(it.NestedField(1, "id", it.LongType())), location=outside.as_uri())
    resp = viewer_client.get(f"{BASE}/ice/databases/sales/tables/leak/")
    assert resp.status_code == 409
    assert "iceberg-location" in resp.json()["error"]["message"]


def test_a_warehouse_outside_the_teams_roots_or_remote_is_refused_on_save(admin_client: APIClient,
                                                                          tmp_path: Path) -> None:
    for warehouse in ("/", "s3a://bucket/wh", "relative/path"):
        resp = admin_client.post(f"{BASE}/", {"catalog_name": "ice", "catalog_type": "iceberg",
                                              "configuration": {"warehouse": warehouse}}, format="json")
        assert resp.status_code == 400, (warehouse, resp.content)
    (tmp_path / "wh").mkdir()
    resp = admin_client.post(f"{BASE}/", {"catalog_name": "ice", "catalog_type": "iceberg",
                                          "configuration": {"warehouse": str(tmp_path / "wh")}}, format="json")
    assert resp.status_code == 201, resp.content
