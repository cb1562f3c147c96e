"""Paimon catalogs browsed through the API on tables pypaimon wrote into a temporary warehouse: test connection,
databases, tables, and a table's columns with primary and partition keys, options and snapshots; names and
tables outside the warehouse refused; a warehouse outside the team's roots refused on save."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from pypaimon import Schema
from rest_framework.test import APIClient

from lakeport_engine.paimon.catalog import open_catalog

pytestmark = pytest.mark.django_db

BASE = "/api/v1/teams/acme/catalogs"
ARROW = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("day", pa.string(), nullable=False),
                   ("amount", pa.decimal128(10, 2)), ("note", pa.string())])


@pytest.fixture
def paimon_warehouse(tmp_path: Path) -> Path:
    """Database `sales` with primary-key table `orders` (partitioned by day, two commits) and an append table
    `events`; an empty database `staging`."""
    root = tmp_path / "warehouse"
    root.mkdir()
    catalog = open_catalog(str(root))
    catalog.create_database("sales", False)
    catalog.create_database("staging", False)
    catalog.create_table("sales.orders", Schema.from_pyarrow_schema(
        ARROW, partition_keys=["day"], primary_keys=["id", "day"], options={"bucket": "2"}, comment="orders"), False)
    catalog.create_table("sales.events", Schema.from_pyarrow_schema(ARROW), False)
    orders = catalog.get_table("sales.orders")
    from decimal import Decimal

    for rows in ([{"id": 1, "day": "d1", "amount": Decimal("1.50"), "note": None},
                  {"id": 2, "day": "d1", "amount": None, "note": "x"}],
                 [{"id": 1, "day": "d1", "amount": Decimal("2.00"), "note": "y"}]):
        builder = orders.new_batch_write_builder()
        writer, committer = builder.new_write(), builder.new_commit()
        writer.write_arrow(pa.Table.from_pylist(rows, schema=ARROW))
        committer.commit(writer.prepare_commit())
        writer.close()
        committer.close()
    return root


def test_connection_opens_a_table_and_a_missing_warehouse_fails(admin_client: APIClient, make_catalog: Any,
                                                                 paimon_warehouse: Path, tmp_path: Path) -> None:
    make_catalog("pai", "paimon", {"warehouse": str(paimon_warehouse)})
    body = admin_client.post(f"{BASE}/pai/test-connection/").json()
    assert body["ok"] is True, body
    assert "opened sales." in body["message"]
    (tmp_path / "empty").mkdir()
    make_catalog("fresh", "paimon", {"warehouse": str(tmp_path / "empty")})
    body = admin_client.post(f"{BASE}/fresh/test-connection/").json()
    assert body["ok"] is True and "0 database(s)" in body["message"], body
    assert os.listdir(tmp_path / "empty") == []  # testing never writes
    make_catalog("gone", "paimon", {"warehouse": str(tmp_path / "nowhere")})
    body = admin_client.post(f"{BASE}/gone/test-connection/").json()
    assert body["ok"] is False and "does not exist" in body["message"]


def test_browse_three_levels(viewer_client: APIClient, make_catalog: Any, paimon_warehouse: Path) -> None:
    make_catalog("pai", "paimon", {"warehouse": str(paimon_warehouse)})
    assert viewer_client.get(f"{BASE}/pai/databases/").json() == {"catalog": "pai", "databases": ["sales", "staging"]}
    assert viewer_client.get(f"{BASE}/pai/databases/sales/tables/").json()["tables"] == [
        {"name": "events", "kind": "paimon"}, {"name": "orders", "kind": "paimon"}]
    assert viewer_client.get(f"{BASE}/pai/databases/staging/tables/").json()["tables"] == []
    assert viewer_client.get(f"{BASE}/pai/databases/nope/tables/").status_code == 404
    assert viewer_client.get(f"{BASE}/pai/databases/sales/tables/nope/").status_code == 404
    detail = viewer_client.get(f"{BASE}/pai/databases/sales/tables/orders/").json()
    assert detail["columns"] == [
        {"name": "id", "type": "bigint", "nullable": False, "comment": None},
        {"name": "day", "type": "string", "nullable": False, "comment": None},
        {"name": "amount", "type": "decimal(10,2)", "nullable": True, "comment": None},
        {"name": "note", "type": "string", "nullable": True, "comment": None},
    ]
    properties = detail["properties"]
    assert json.loads(properties["paimon.primary-keys"]) == ["id", "day"]
    assert json.loads(properties["paimon.partition-keys"]) == ["day"] == detail["partition_columns"]
    assert properties["paimon.merge-engine"] == "deduplicate"
    assert properties["option.bucket"] == "2"
    assert [s["snapshot_id"] for s in json.loads(properties["paimon.snapshots"])] == [1, 2]
    assert detail["version"] == 2 and detail["kind"] == "paimon"
    assert detail["location"] == str(paimon_warehouse / "sales.db" / "orders")
    events = viewer_client.get(f"{BASE}/pai/databases/sales/tables/events/").json()
    assert events["row_count"] == 0 and events["version"] is None and events["partition_columns"] == []


def test_names_and_tables_outside_the_warehouse_are_refused(viewer_client: APIClient, make_catalog: Any,
                                                            paimon_warehouse: Path, tmp_path: Path) -> None:
    make_catalog("pai", "paimon", {"warehouse": str(paimon_warehouse)})
    for name in ("..", "%2E%2E", ".hidden"):
        assert viewer_client.get(f"{BASE}/pai/databases/{name}/tables/").status_code in (400, 404), name
    # a table directory that is a symlink out of the warehouse
    (tmp_path / "other").mkdir()
    other = open_catalog(str(tmp_path / "other"))
    other.create_database("x", False)
    other.create_table("x.leak", Schema.from_pyarrow_schema(ARROW), False)
    os.symlink(tmp_path / "other" / "x.db" / "leak", paimon_warehouse / "sales.db" / "leak")
    resp = viewer_client.get(f"{BASE}/pai/databases/sales/tables/leak/")
    assert resp.status_code == 409
    assert "paimon-location" in resp.json()["error"]["message"]


def test_a_warehouse_outside_the_teams_roots_or_remote_is_refused_on_save(admin_client: APIClient,
                                                                          tmp_path: Path) -> None:
    for warehouse in ("/", "s3a://bucket/wh", "relative/path", "/etc"):
        resp = admin_client.post(f"{BASE}/", {"catalog_name": "pai", "catalog_type": "paimon",
                                              "configuration": {"warehouse": warehouse}}, format="json")
        assert resp.status_code == 400, (warehouse, resp.content)
        assert "error" in resp.json()
    (tmp_path / "wh").mkdir()
    resp = admin_client.post(f"{BASE}/", {"catalog_name": "pai", "catalog_type": "paimon",
                                          "configuration": {"warehouse": str(tmp_path / "wh")}}, format="json")
    assert resp.status_code == 201, resp.content
