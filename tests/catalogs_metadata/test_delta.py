"""Delta catalogs on real Delta tables written with delta-rs into a temporary warehouse."""

from __future__ import annotations

import pyarrow as pa
import pytest
from deltalake import write_deltalake
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

BASE = "/api/v1/teams/acme/catalogs"


def test_connection_opens_a_table(developer_client: APIClient, make_catalog, delta_warehouse) -> None:
    make_catalog("lake", "delta", {"warehouse": str(delta_warehouse)})
    body = developer_client.post(f"{BASE}/lake/test-connection/").json()
    assert body["ok"] is True, body
    assert "sales.customers" in body["message"]


def test_missing_warehouse_fails_the_test(admin_client: APIClient, make_catalog, tmp_path) -> None:
    make_catalog("lake", "delta", {"warehouse": str(tmp_path / "nowhere")})
    body = admin_client.post(f"{BASE}/lake/test-connection/").json()
    assert body["ok"] is False
    assert body["message"] == f"warehouse {tmp_path / 'nowhere'} does not exist"


def test_empty_warehouse_passes_and_says_it_has_no_tables(admin_client: APIClient, make_catalog, tmp_path) -> None:
    (tmp_path / "wh" / "db" / "plain").mkdir(parents=True)  # a directory that is not a Delta table
    make_catalog("lake", "delta", {"warehouse": str(tmp_path / "wh")})
    body = admin_client.post(f"{BASE}/lake/test-connection/").json()
    assert body["ok"] is True
    assert body["message"].startswith(f"warehouse {tmp_path / 'wh'} is reachable and holds no Delta tables yet")


def test_browse_three_levels(viewer_client: APIClient, make_catalog, delta_warehouse) -> None:
    make_catalog("lake", "delta", {"warehouse": str(delta_warehouse)})
    assert viewer_client.get(f"{BASE}/lake/databases/").json() == {"catalog": "lake", "databases": ["sales", "staging"]}
    tables = viewer_client.get(f"{BASE}/lake/databases/sales/tables/").json()["tables"]
    assert tables == [{"name": "customers", "kind": "delta"}, {"name": "orders", "kind": "delta"}]  # not not_delta
    assert viewer_client.get(f"{BASE}/lake/databases/staging/tables/").json()["tables"] == []

    detail = viewer_client.get(f"{BASE}/lake/databases/sales/tables/orders/").json()
    assert detail["columns"] == [
        {"name": "id", "type": "long", "nullable": True, "comment": None},
        {"name": "day", "type": "string", "nullable": True, "comment": None},
        {"name": "amount", "type": "decimal(10,2)", "nullable": True, "comment": None},
        {"name": "tags", "type": "array<string>", "nullable": True, "comment": None},
    ]
    assert detail["partition_columns"] == ["day"]
    assert detail["version"] == 1  # two commits: 0 and 1
    assert detail["row_count"] == 5  # 3 + 2 rows, from the add actions' numRecords
    assert detail["location"] == str(delta_warehouse / "sales" / "orders")
    assert detail["kind"] == "delta"


def test_version_and_row_count_follow_new_commits(viewer_client: APIClient, make_catalog, delta_warehouse) -> None:
    make_catalog("lake", "delta", {"warehouse": str(delta_warehouse)})
    url = f"{BASE}/lake/databases/sales/tables/customers/"
    before = viewer_client.get(url).json()
    write_deltalake(str(delta_warehouse / "sales" / "customers"),
                    pa.table({"id": pa.array([2, 3], pa.int32()), "name": ["bob", "cy"]}), mode="overwrite")
    after = viewer_client.get(url).json()
    assert (before["version"], before["row_count"]) == (0, 1)
    assert (after["version"], after["row_count"]) == (1, 2)


def test_row_count_unknown_without_stats(viewer_client: APIClient, make_catalog, delta_warehouse) -> None:
    """A table whose files carry no numRecords stats reports row_count null, not a wrong number."""
    from deltalake import DeltaTable
    from deltalake.transaction import AddAction

    table = delta_warehouse / "sales" / "nostats"
    write_deltalake(str(table), pa.table({"id": pa.array([], pa.int64())}))
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"id": pa.array([7, 8, 9], pa.int64())}), str(table / "part-manual.parquet"))
    size = (table / "part-manual.parquet").stat().st_size
    DeltaTable(str(table)).create_write_transaction(
        actions=[AddAction(path="part-manual.parquet", size=size, partition_values={},
                           modification_time=1_700_000_000_000, data_change=True, stats="")],
        mode="append", schema=DeltaTable(str(table)).schema(),
    )
    make_catalog("lake", "delta", {"warehouse": str(delta_warehouse)})
    detail = viewer_client.get(f"{BASE}/lake/databases/sales/tables/nostats/").json()
    assert detail["version"] == 1
    assert detail["row_count"] is None


def test_unknown_database_and_table_are_404(viewer_client: APIClient, make_catalog, delta_warehouse) -> None:
    make_catalog("lake", "delta", {"warehouse": str(delta_warehouse)})
    for url, message in [
        (f"{BASE}/lake/databases/nope/tables/", "database 'nope' does not exist"),
        (f"{BASE}/lake/databases/nope/tables/orders/", "database 'nope' does not exist"),
        (f"{BASE}/lake/databases/sales/tables/nope/", "table 'sales.nope' does not exist"),
        (f"{BASE}/lake/databases/sales/tables/not_delta/", "table 'sales.not_delta' does not exist"),
    ]:
        resp = viewer_client.get(url)
        assert resp.status_code == 404, url
        assert resp.json()["error"]["message"].startswith(message)


def test_browsing_missing_warehouse_is_502(viewer_client: APIClient, make_catalog, tmp_path) -> None:
    make_catalog("lake", "delta", {"warehouse": str(tmp_path / "gone")})
    resp = viewer_client.get(f"{BASE}/lake/databases/")
    assert resp.status_code == 502
    assert resp.json()["error"]["message"] == f"warehouse {tmp_path / 'gone'} does not exist"


def test_object_store_config_is_validated_and_secrets_are_not_echoed(admin_client: APIClient) -> None:
    """No object store exists here; what can be checked is validation: bad keys → 400 without the values."""
    secret = "AKIA-very-secret-value-123"
    resp = admin_client.post(f"{BASE}/test-connection/", {"catalog_type": "delta", "configuration": {
        "warehouse": "ftp://bucket/wh", "storage-options": {"bad key!": secret}}}, format="json")
    assert resp.status_code == 400
    details = resp.json()["error"]["details"]["configuration"]
    assert set(details) == {"warehouse", "storage-options"}
    assert secret not in resp.content.decode()


def test_storage_option_secrets_never_leave_the_server(admin_client: APIClient, viewer_client: APIClient,
                                                       make_catalog, delta_warehouse, caplog) -> None:
    from tests.catalogs_metadata.helpers import assert_secret_absent, capture_everything

    capture_everything(caplog)
    secret = "Delta-Storage-Secret-987"
    make_catalog("lake", "delta", {"warehouse": str(delta_warehouse),
                                   "storage-options": {"AWS_SECRET_ACCESS_KEY": secret}})
    responses = [
        admin_client.post(f"{BASE}/lake/test-connection/"),
        viewer_client.get(f"{BASE}/lake/databases/"),
        viewer_client.get(f"{BASE}/lake/databases/sales/tables/"),
        viewer_client.get(f"{BASE}/lake/databases/sales/tables/orders/"),
        viewer_client.get(f"{BASE}/lake/databases/sales/tables/nope/"),
    ]
    assert [r.status_code for r in responses] == [200, 200, 200, 200, 404]
    assert responses[0].json()["ok"] is True
    assert_secret_absent(secret, responses=responses, caplog=caplog)


def test_corrupt_log_is_502_not_500(viewer_client: APIClient, make_catalog, delta_warehouse) -> None:
    log = delta_warehouse / "sales" / "broken" / "_delta_log"
    log.mkdir(parents=True)
    (log / "00000000000000000000.json").write_text("this is not json\n")
    make_catalog("lake", "delta", {"warehouse": str(delta_warehouse)})
    assert {"name": "broken", "kind": "delta"} in viewer_client.get(f"{BASE}/lake/databases/sales/tables/").json()["tables"]
    resp = viewer_client.get(f"{BASE}/lake/databases/sales/tables/broken/")
    assert resp.status_code == 502
    assert resp.json()["error"]["code"] == "bad_gateway"
    assert resp.json()["error"]["message"].startswith(f"reading warehouse {delta_warehouse} failed")
