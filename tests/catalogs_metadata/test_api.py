"""The metadata endpoints' contract: roles, team isolation, name checks, input validation, timeouts."""

from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

from catalogs.models import Catalog
from teams.models import Role
from tests.catalogs_metadata.helpers import assert_secret_absent, capture_everything

pytestmark = pytest.mark.django_db

BASE = "/api/v1/teams/acme/catalogs"
ROLES = [Role.VIEWER, Role.DEVELOPER, Role.ADMIN]


@pytest.fixture
def lake(make_catalog, delta_warehouse) -> Catalog:
    return make_catalog("lake", "delta", {"warehouse": str(delta_warehouse)})


# ---- roles -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("role", ROLES)
def test_role_matrix(client_for, lake, delta_warehouse, role: str) -> None:
    client = client_for(role)
    for url in [f"{BASE}/lake/databases/", f"{BASE}/lake/databases/sales/tables/",
                f"{BASE}/lake/databases/sales/tables/orders/"]:
        assert client.get(url).status_code == 200, (role, url)

    saved = client.post(f"{BASE}/lake/test-connection/")
    assert saved.status_code == (403 if role == Role.VIEWER else 200)
    if role != Role.VIEWER:
        assert saved.json()["ok"] is True

    unsaved = client.post(f"{BASE}/test-connection/", {
        "catalog_type": "delta", "configuration": {"warehouse": str(delta_warehouse)}}, format="json")
    assert unsaved.status_code == (200 if role == Role.ADMIN else 403)
    if role != Role.ADMIN:
        assert unsaved.json()["error"]["code"] == "permission_denied"


def test_platform_admin_may_do_everything(platform_admin_client: APIClient, lake, delta_warehouse) -> None:
    assert platform_admin_client.get(f"{BASE}/lake/databases/").status_code == 200
    assert platform_admin_client.post(f"{BASE}/lake/test-connection/").json()["ok"] is True


def test_anonymous_is_401(lake) -> None:
    assert APIClient().get(f"{BASE}/lake/databases/").status_code == 401
    assert APIClient().post(f"{BASE}/test-connection/", {}, format="json").status_code == 401


@pytest.mark.parametrize("role", ROLES)
def test_other_teams_catalog_is_404(client_for, make_catalog, other_team, delta_warehouse, role: str) -> None:
    make_catalog("theirs", "delta", {"warehouse": str(delta_warehouse)}, in_team=other_team)
    client = client_for(role)
    urls = [
        ("get", "/api/v1/teams/globex/catalogs/theirs/databases/"),
        ("get", "/api/v1/teams/globex/catalogs/theirs/databases/sales/tables/orders/"),
        ("post", "/api/v1/teams/globex/catalogs/theirs/test-connection/"),
        ("post", "/api/v1/teams/globex/catalogs/test-connection/"),
        # Same name through the caller's own team: still not theirs.
        ("get", f"{BASE}/theirs/databases/"),
        ("get", f"{BASE}/theirs/databases/sales/tables/"),
        ("post", f"{BASE}/theirs/test-connection/"),
    ]
    for method, url in urls:
        resp = getattr(client, method)(url)
        if role == Role.VIEWER and method == "post" and url.startswith(BASE):
            assert resp.status_code == 403, url  # the role check comes before the lookup
        else:
            assert resp.status_code == 404, (role, url)
            assert resp.json()["error"]["code"] == "not_found"


# ---- names -------------------------------------------------------------------------------------------------
BAD_NAMES = ["a;drop", "o'hara", "..", "a%2Fb", "a%2F..%2F..", "with space", "a.b", "%00x", "x" * 129]


@pytest.mark.parametrize("bad", BAD_NAMES)
def test_bad_database_name_is_400(viewer_client: APIClient, lake, bad: str) -> None:
    resp = viewer_client.get(f"{BASE}/lake/databases/{bad}/tables/")
    assert resp.status_code == 400, resp.content
    assert "database" in resp.json()["error"]["details"]


@pytest.mark.parametrize("bad", BAD_NAMES)
def test_bad_table_name_is_400(viewer_client: APIClient, lake, bad: str) -> None:
    resp = viewer_client.get(f"{BASE}/lake/databases/sales/tables/{bad}/")
    assert resp.status_code == 400, resp.content
    assert "table" in resp.json()["error"]["details"]


def test_bad_name_is_refused_before_any_client_call(viewer_client: APIClient, make_catalog, refused_port) -> None:
    """A catalog whose server is down still answers 400 for a bad name: the client was never called."""
    make_catalog("down", "jdbc", {"type": "postgresql", "base-url": f"jdbc:postgresql://127.0.0.1:{refused_port}/",
                                  "default-database": "x", "username": "u", "password": "p"})
    assert viewer_client.get(f"{BASE}/down/databases/a;b/tables/").status_code == 400
    assert viewer_client.get(f"{BASE}/down/databases/ok/tables/").status_code == 502


def test_table_named_tables_resolves(viewer_client: APIClient, make_catalog, tmp_path) -> None:
    import pyarrow as pa
    from deltalake import write_deltalake

    write_deltalake(str(tmp_path / "wh" / "db" / "tables"), pa.table({"x": [1]}))
    make_catalog("lake", "delta", {"warehouse": str(tmp_path / "wh")})
    resp = viewer_client.get(f"{BASE}/lake/databases/db/tables/tables/")
    assert resp.status_code == 200 and resp.json()["name"] == "tables"


def test_unknown_catalog_is_404(viewer_client: APIClient, team) -> None:
    resp = viewer_client.get(f"{BASE}/nothere/databases/")
    assert resp.status_code == 404
    assert resp.json()["error"]["code"] == "not_found"


# ---- unsaved configuration validation ------------------------------------------------------------------------
def test_unsaved_config_errors_name_fields_by_alias_without_values(admin_client: APIClient, caplog) -> None:
    capture_everything(caplog)
    secret = "Sup3r-Secret-Pw-XYZ"
    resp = admin_client.post(f"{BASE}/test-connection/", {"catalog_type": "jdbc", "configuration": {
        "type": "postgresql", "base-url": "http://evil/", "username": "u", "password": secret,
        "unexpected": secret,
    }}, format="json")
    assert resp.status_code == 400
    error = resp.json()["error"]
    assert error["code"] == "invalid"
    assert set(error["details"]["configuration"]) == {"default-database", "unexpected"}
    assert "configuration.default-database" in error["message"]
    assert_secret_absent(secret, responses=[resp], caplog=caplog)


def test_unsaved_config_model_level_error_is_reported(admin_client: APIClient) -> None:
    resp = admin_client.post(f"{BASE}/test-connection/", {"catalog_type": "jdbc", "configuration": {
        "type": "postgresql", "base-url": "jdbc:postgresql://h/?socketFactory=x", "default-database": "d",
        "username": "u", "password": "p-secret-value"}}, format="json")
    assert resp.status_code == 400
    messages = resp.json()["error"]["details"]["configuration"]["base-url"]
    assert "socketFactory" in messages[0] and "not allowed" in messages[0]
    assert "p-secret-value" not in resp.content.decode()


@pytest.mark.parametrize("body", [
    {"catalog_type": "oracle", "configuration": {}},
    {"catalog_type": "jdbc", "configuration": "not an object"},
    {"catalog_type": "jdbc"},
    {"configuration": {}},
    ["not", "an", "object"],
])
def test_unsaved_config_bad_body_is_400(admin_client: APIClient, body) -> None:
    resp = admin_client.post(f"{BASE}/test-connection/", body, format="json")
    assert resp.status_code == 400
    assert resp.json()["error"]["code"] == "invalid"


def test_unsaved_config_refused_port_is_ok_false(admin_client: APIClient, refused_port) -> None:
    resp = admin_client.post(f"{BASE}/test-connection/", {"catalog_type": "hive", "configuration": {
        "metastore-uris": f"thrift://127.0.0.1:{refused_port}"}}, format="json")
    assert resp.status_code == 200
    assert resp.json()["ok"] is False and "connection refused" in resp.json()["message"]


# ---- timeouts ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("value", ["abc", "0", "-3", "nan", "inf"])
def test_bad_timeout_is_400(admin_client: APIClient, lake, value: str) -> None:
    resp = admin_client.post(f"{BASE}/lake/test-connection/?timeout={value}")
    assert resp.status_code == 400
    assert "timeout" in resp.json()["error"]["details"]


def test_large_timeout_is_capped_not_refused(admin_client: APIClient, lake) -> None:
    assert admin_client.post(f"{BASE}/lake/test-connection/?timeout=3600").json()["ok"] is True


def test_timeout_is_capped_at_30_seconds(settings) -> None:
    from catalogs.metadata import resolve_timeout

    settings.LAKEPORT_CONNECT_TIMEOUT = 10
    assert resolve_timeout(None) == 10
    assert resolve_timeout("2.5") == 2.5
    assert resolve_timeout("3600") == 30


# ---- stored configuration ----------------------------------------------------------------------------------
def test_unreadable_stored_configuration_is_409_not_500(developer_client: APIClient, lake) -> None:
    Catalog.objects.filter(pk=lake.pk).update(
        configuration=json.dumps({"warehouse": "/tmp/x", "storage-options": {"k": {"$secret": "not-a-token"}}}))
    resp = developer_client.post(f"{BASE}/lake/test-connection/")
    assert resp.status_code == 409
    assert resp.json()["error"]["code"] == "configuration_unreadable"
    assert developer_client.get(f"{BASE}/lake/databases/").status_code == 409
