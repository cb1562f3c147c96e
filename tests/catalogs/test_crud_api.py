"""Catalog CRUD through the API with bearer tokens, for every type, and the 4xx answers to bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import psycopg
import pymysql
import pytest
from django.db import connection
from rest_framework.test import APIClient

from catalogs.models import Catalog, CatalogChange
from catalogs.secrets import open_configuration
from tests.catalogs.conftest import (
    API,
    PG_PASSWORD,
    delta_body,
    hive_body,
    mysql_body,
    pg_body,
)
from tests.conftest import MariaDatabase, PgDatabase

pytestmark = pytest.mark.django_db


def _stored(name: str) -> Catalog:
    return Catalog.objects.get(team__name="acme", catalog_name=name)


def test_jdbc_postgresql_crud_and_the_stored_row_connects(admin: APIClient, pg_source: PgDatabase) -> None:
    created = admin.post(f"{API}/catalogs/", pg_body(pg_source), format="json")
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["catalog_name"] == "pg_main" and body["catalog_type"] == "jdbc" and body["version"] == 1
    assert body["configuration"]["base-url"] == "jdbc:postgresql://127.0.0.1:5432/"
    assert "password" not in body["configuration"] and body["secrets_set"] == ["password"]
    assert body["created_by"] == body["updated_by"] and body["created_by"]
    assert created["ETag"] == '"1"' and created["Location"].endswith(f"{API}/catalogs/pg_main/")

    # The row the Spark runtime reads decrypts into a configuration that really reaches the database.
    config = open_configuration("jdbc", _stored("pg_main").configuration)
    dsn = f"host={config.host} port={config.port} dbname={config.default_database} user={config.username}"
    with psycopg.connect(dsn, password=config.password.get_secret_value()) as conn:
        assert conn.execute("SELECT current_database()").fetchone() == (pg_source.name,)

    got = admin.get(f"{API}/catalogs/pg_main/")
    assert got.status_code == 200 and got.json() == body and got["ETag"] == '"1"'

    patched = admin.patch(f"{API}/catalogs/pg_main/", {"description": "Orders (prod)"}, format="json")
    assert patched.status_code == 200 and patched.json()["description"] == "Orders (prod)"
    assert patched.json()["version"] == 2 and patched["ETag"] == '"2"'
    assert patched.json()["configuration"] == body["configuration"]

    assert admin.delete(f"{API}/catalogs/pg_main/").status_code == 204
    assert admin.get(f"{API}/catalogs/pg_main/").status_code == 404
    assert not Catalog.objects.filter(catalog_name="pg_main").exists()


def test_jdbc_mysql_crud_and_the_stored_row_connects(admin: APIClient, mariadb_user: MariaDatabase) -> None:
    created = admin.post(f"{API}/catalogs/", mysql_body(mariadb_user), format="json")
    assert created.status_code == 201, created.content
    assert created.json()["configuration"]["type"] == "mysql"
    assert created.json()["secrets_set"] == ["password"]

    config = open_configuration("jdbc", _stored("my_shop").configuration)
    conn = pymysql.connect(host=config.host, port=config.port, user=config.username,
                           password=config.password.get_secret_value(), database=config.default_database)
    with conn.cursor() as cur:
        cur.execute("SELECT DATABASE()")
        assert cur.fetchone() == (mariadb_user.name,)
    conn.close()

    replaced = admin.put(f"{API}/catalogs/my_shop/", {**mysql_body(mariadb_user, password=None),
                                                       "description": "Shop (replica)"}, format="json")
    assert replaced.status_code == 200 and replaced.json()["version"] == 2
    assert replaced.json()["secrets_set"] == ["password"]  # the omitted password was kept
    assert admin.delete(f"{API}/catalogs/my_shop/").status_code == 204


def test_hive_crud(admin: APIClient) -> None:
    created = admin.post(f"{API}/catalogs/", hive_body(), format="json")
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["configuration"]["metastore-uris"] == "thrift://127.0.0.1:9083"
    assert body["configuration"]["hive-version"] == "2.3.10"  # the model's default is stored and shown
    assert body["secrets_set"] == []
    patched = admin.patch(f"{API}/catalogs/hive_wh/",
                          {"configuration": {"metastore-uris": "thrift://127.0.0.1:9084,thrift://localhost:9085"}},
                          format="json")
    assert patched.status_code == 200, patched.content
    assert patched.json()["configuration"]["metastore-uris"] == "thrift://127.0.0.1:9084,thrift://localhost:9085"
    assert patched.json()["configuration"]["default-database"] == "default"
    assert admin.delete(f"{API}/catalogs/hive_wh/").status_code == 204


def test_delta_crud(admin: APIClient, warehouse: Path) -> None:
    created = admin.post(f"{API}/catalogs/", delta_body(warehouse), format="json")
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["configuration"] == {"warehouse": str(warehouse), "default-database": "sales"}
    assert body["secrets_set"] == ["storage-options.AWS_ACCESS_KEY_ID", "storage-options.AWS_SECRET_ACCESS_KEY"]
    listed = admin.get(f"{API}/catalogs/").json()
    assert [c["catalog_name"] for c in listed["results"]] == ["lake"] and listed["count"] == 1
    assert admin.delete(f"{API}/catalogs/lake/").status_code == 204


def test_catalog_types_serve_json_schemas_with_secret_fields_marked(viewer_client: APIClient) -> None:
    resp = viewer_client.get(f"{API}/catalog-types/")
    assert resp.status_code == 200
    types = {t["key"]: t for t in resp.json()["results"]}
    assert set(types) == {"jdbc", "hive", "delta", "redis-streams", "nats-jetstream", "files", "kafka", "iceberg",
                          "paimon"}
    assert types["redis-streams"]["schema"]["properties"]["password"]["writeOnly"] is True
    assert types["delta"]["display_name"] == "Delta Lake"
    assert types["iceberg"]["display_name"] == "Apache Iceberg" and "warehouse" in types["iceberg"]["schema"]["properties"]
    jdbc = types["jdbc"]["schema"]["properties"]
    assert {"base-url", "default-database", "username", "password", "type"} <= set(jdbc)
    assert jdbc["password"]["secret"] is True and jdbc["password"]["writeOnly"] is True
    assert "secret" not in jdbc["base-url"]
    options = types["delta"]["schema"]["properties"]["storage-options"]
    assert options["secret"] is True and options["writeOnly"] is True
    assert "metastore-uris" in types["hive"]["schema"]["properties"]


# ---- list: filters, pagination, constant queries ------------------------------------------------------
def _seed(admin: APIClient, warehouse: Path, pg_source: PgDatabase) -> None:
    for i in range(3):
        assert admin.post(f"{API}/catalogs/", pg_body(pg_source, name=f"pg_{i}"), format="json").status_code == 201
    assert admin.post(f"{API}/catalogs/", hive_body(name="hive_one"), format="json").status_code == 201
    body = {**delta_body(warehouse, name="lake_orders"), "description": "Customer orders archive"}
    assert admin.post(f"{API}/catalogs/", body, format="json").status_code == 201


def test_list_filters(admin: APIClient, warehouse: Path, pg_source: PgDatabase) -> None:
    _seed(admin, warehouse, pg_source)

    def names(query: str) -> list[str]:
        resp = admin.get(f"{API}/catalogs/?{query}")
        assert resp.status_code == 200, resp.content
        return [c["catalog_name"] for c in resp.json()["results"]]

    assert names("") == ["hive_one", "lake_orders", "pg_0", "pg_1", "pg_2"]
    assert names("catalog_type=jdbc") == ["pg_0", "pg_1", "pg_2"]
    assert names("catalog_type=hive") == ["hive_one"]
    assert names("name_prefix=pg_") == ["pg_0", "pg_1", "pg_2"]
    assert names("name_prefix=pg_&catalog_type=delta") == []
    assert names("search=ARCHIVE") == ["lake_orders"]  # description, case-insensitive
    assert names("search=one") == ["hive_one"]
    page = admin.get(f"{API}/catalogs/?page_size=2&page=2").json()
    assert page["count"] == 5 and [c["catalog_name"] for c in page["results"]] == ["pg_0", "pg_1"]
    assert page["next"] and page["previous"]
    bad = admin.get(f"{API}/catalogs/?catalog_type=oracle")
    assert bad.status_code == 400 and "catalog_type" in bad.json()["error"]["details"]


def test_list_query_count_does_not_grow_with_page_size(
    admin: APIClient, warehouse: Path, pg_source: PgDatabase, django_assert_max_num_queries: Any, client_for: Any
) -> None:
    _seed(admin, warehouse, pg_source)
    other_admin = client_for("admin")  # a second author, so created_by / updated_by differ per row
    for i in range(20):
        assert other_admin.post(f"{API}/catalogs/", hive_body(name=f"h_{i:02d}"), format="json").status_code == 201
    admin.get(f"{API}/catalogs/?page_size=1")  # warm the token's last_used_at write
    with django_assert_max_num_queries(6) as small:
        assert len(admin.get(f"{API}/catalogs/?page_size=1").json()["results"]) == 1
    with django_assert_max_num_queries(len(small.captured_queries)) as large:
        assert len(admin.get(f"{API}/catalogs/?page_size=1000").json()["results"]) == 25
    assert len(large.captured_queries) == len(small.captured_queries)


# ---- bad input ----------------------------------------------------------------------------------------
def _error(resp: Any, status: int) -> dict[str, Any]:
    assert resp.status_code == status, resp.content
    error = resp.json()["error"]
    assert set(error) == {"code", "message", "details"} and error["message"]
    return error


def test_missing_and_invalid_config_fields_are_named_by_alias(admin: APIClient, pg_source: PgDatabase) -> None:
    body = pg_body(pg_source)
    del body["configuration"]["base-url"]
    body["configuration"]["default-database"] = "bad;name"
    body["configuration"]["bogus-key"] = "x"
    error = _error(admin.post(f"{API}/catalogs/", body, format="json"), 400)
    config_errors = error["details"]["configuration"]
    assert set(config_errors) == {"base-url", "default-database", "bogus-key"}
    assert config_errors["base-url"] == ["Field required"]
    assert "configuration.base-url" in error["message"]
    assert "bad;name" not in json.dumps(error)  # no input echoed
    assert not Catalog.objects.exists() and not CatalogChange.objects.exists()


@pytest.mark.parametrize(
    ("base_url", "fragment"),
    [
        ("jdbc:oracle:thin:@db:1521/x", "base-url must start with jdbc:postgresql://"),
        ("jdbc:postgresql://db:5432/?socketFactory=org.example.Evil", "socketFactory"),
        ("jdbc:postgresql://db:5432/?loggerFile=/etc/passwd", "loggerFile"),
        ("jdbc:postgresql://db:5432/?sslmode=require&unknownParam=1", "allow-list"),
    ],
)
def test_jdbc_url_of_another_scheme_or_dangerous_parameter_is_400(
    admin: APIClient, pg_source: PgDatabase, base_url: str, fragment: str
) -> None:
    body = pg_body(pg_source)
    body["configuration"]["base-url"] = base_url
    error = _error(admin.post(f"{API}/catalogs/", body, format="json"), 400)
    messages = error["details"]["configuration"]["base-url"]
    assert any(fragment in m for m in messages), messages
    assert not Catalog.objects.exists()


def test_dangerous_mysql_property_is_400_naming_properties(admin: APIClient, mariadb_source: MariaDatabase) -> None:
    body = mysql_body(mariadb_source)
    body["configuration"]["properties"] = {"allowLoadLocalInfile": "true"}
    error = _error(admin.post(f"{API}/catalogs/", body, format="json"), 400)
    assert "allowLoadLocalInfile" in error["details"]["configuration"]["properties"][0]


def test_unknown_type_bad_name_and_unknown_field_are_400(admin: APIClient, warehouse: Path) -> None:
    error = _error(admin.post(f"{API}/catalogs/", {**hive_body(), "catalog_type": "oracle"}, format="json"), 400)
    assert "catalog_type" in error["details"]
    for bad in ["Upper", "1abc", "has-dash", "a" * 64, "", "semi;colon", 7]:
        error = _error(admin.post(f"{API}/catalogs/", {**hive_body(), "catalog_name": bad}, format="json"), 400)
        assert list(error["details"]) == ["catalog_name"], bad
    error = _error(admin.post(f"{API}/catalogs/", {**hive_body(), "config": {}}, format="json"), 400)
    assert "config" in error["details"]
    error = _error(admin.post(f"{API}/catalogs/", {"catalog_name": "x"}, format="json"), 400)
    assert {"catalog_type", "configuration"} <= set(error["details"])
    error = _error(admin.post(f"{API}/catalogs/", [hive_body()], format="json"), 400)
    error = _error(admin.post(f"{API}/catalogs/", {**hive_body(), "configuration": "thrift://x"}, format="json"), 400)
    assert error["details"]["configuration"] == ["Expected a JSON object."]
    error = _error(admin.generic("POST", f"{API}/catalogs/", "{not json", content_type="application/json"), 400)
    error = _error(admin.post(f"{API}/catalogs/", delta_body(Path("/etc")), format="json"), 400)
    assert "warehouse" in error["details"]["configuration"]
    assert not Catalog.objects.exists()


def test_duplicate_name_in_team_is_409_but_another_team_may_use_it(
    admin: APIClient, client_for: Any, other_team: Any
) -> None:
    assert admin.post(f"{API}/catalogs/", hive_body(), format="json").status_code == 201
    error = _error(admin.post(f"{API}/catalogs/", hive_body(), format="json"), 409)
    assert error["code"] == "conflict" and "hive_wh" in error["message"]
    globex_admin = client_for("admin", in_team=other_team)
    assert globex_admin.post("/api/v1/teams/globex/catalogs/", hive_body(), format="json").status_code == 201
    assert Catalog.objects.filter(catalog_name="hive_wh").count() == 2


def test_rename_and_type_change_are_400_and_nothing_changes(admin: APIClient, warehouse: Path) -> None:
    admin.post(f"{API}/catalogs/", hive_body(), format="json")
    error = _error(admin.patch(f"{API}/catalogs/hive_wh/", {"catalog_name": "other"}, format="json"), 400)
    assert "renamed" in error["details"]["catalog_name"][0]
    error = _error(admin.put(f"{API}/catalogs/hive_wh/", {**delta_body(warehouse), "catalog_name": "hive_wh"},
                             format="json"), 400)
    assert "cannot change" in error["details"]["catalog_type"][0]
    error = _error(admin.patch(f"{API}/catalogs/hive_wh/", {"catalog_type": "delta"}, format="json"), 400)
    stored = _stored("hive_wh")
    assert stored.catalog_type == "hive" and stored.version == 1
    assert CatalogChange.objects.filter(action="update").count() == 0


def test_invalid_update_saves_nothing(admin: APIClient, pg_source: PgDatabase) -> None:
    admin.post(f"{API}/catalogs/", pg_body(pg_source), format="json")
    before = _stored("pg_main")
    body = pg_body(pg_source)
    body["description"] = "changed"
    body["configuration"]["base-url"] = "jdbc:postgresql://db/?socketFactory=x"
    _error(admin.put(f"{API}/catalogs/pg_main/", body, format="json"), 400)
    _error(admin.patch(f"{API}/catalogs/pg_main/", {"description": "x" * 1001}, format="json"), 400)
    after = _stored("pg_main")
    assert (after.version, after.description, after.configuration) == (before.version, before.description,
                                                                      before.configuration)
    assert list(CatalogChange.objects.values_list("action", flat=True)) == ["create"]


@pytest.mark.parametrize("method", ["post", "put", "patch"])
def test_oversized_body_is_413(admin: APIClient, method: str) -> None:
    url = f"{API}/catalogs/" if method == "post" else f"{API}/catalogs/hive_wh/"
    body = json.dumps({**hive_body(), "description": "x" * (1024 * 1024)})
    error = _error(admin.generic(method.upper(), url, body, content_type="application/json"), 413)
    assert error["code"] == "payload_too_large"
    assert not Catalog.objects.exists()


def test_oversized_apply_is_413(admin: APIClient) -> None:
    body = json.dumps([{**hive_body(), "description": "x" * (1024 * 1024)}])
    _error(admin.generic("POST", f"{API}/apply/", body, content_type="application/json"), 413)


def test_missing_catalog_is_404(admin: APIClient) -> None:
    for method in ("get", "patch", "delete"):
        error = _error(getattr(admin, method)(f"{API}/catalogs/nope/", {}, format="json"), 404)
        assert error["code"] == "not_found"
    _error(admin.get(f"{API}/catalogs/nope/history/"), 404)


def test_password_is_required_on_create(admin: APIClient, pg_source: PgDatabase) -> None:
    error = _error(admin.post(f"{API}/catalogs/", pg_body(pg_source, password=None), format="json"), 400)
    assert error["details"]["configuration"] == {"password": ["Field required"]}


def test_platform_admin_manages_any_team(platform_admin_client: APIClient, other_team: Any) -> None:
    resp = platform_admin_client.post("/api/v1/teams/globex/catalogs/", hive_body(), format="json")
    assert resp.status_code == 201 and resp.json()["created_by"] == "root-admin"


def test_database_row_keeps_the_table_format(admin: APIClient, pg_source: PgDatabase) -> None:
    """The Spark runtime reads t_spark_catalog with psycopg: configuration is JSON text with sealed secrets."""
    admin.post(f"{API}/catalogs/", pg_body(pg_source), format="json")
    with connection.cursor() as cur:
        cur.execute("SELECT catalog_type, configuration, version FROM t_spark_catalog WHERE catalog_name = 'pg_main'")
        catalog_type, configuration, version = cur.fetchone()
    stored = json.loads(configuration)
    assert catalog_type == "jdbc" and version == 1
    assert stored["username"] == "postgres" and set(stored["password"]) == {"$secret"}
    assert PG_PASSWORD not in configuration


def test_pages_past_the_end_are_404_and_an_empty_team_lists_nothing(admin: APIClient) -> None:
    empty = admin.get(f"{API}/catalogs/")
    assert empty.status_code == 200 and empty.json() == {"count": 0, "next": None, "previous": None, "results": []}
    admin.post(f"{API}/catalogs/", hive_body(), format="json")
    for page in ("2", "0", "abc"):
        _error(admin.get(f"{API}/catalogs/?page={page}"), 404)
    assert admin.get(f"{API}/catalogs/?page_size=5000").json()["count"] == 1  # capped, not an error


def test_python_field_names_are_accepted_and_stored_by_alias(admin: APIClient, pg_source: PgDatabase) -> None:
    body = pg_body(pg_source)
    config = body["configuration"]
    config["base_url"] = config.pop("base-url")
    config["default_database"] = config.pop("default-database")
    resp = admin.post(f"{API}/catalogs/", body, format="json")
    assert resp.status_code == 201, resp.content
    assert resp.json()["configuration"]["base-url"] == "jdbc:postgresql://127.0.0.1:5432/"
    assert "base_url" not in _stored("pg_main").configuration


def test_storage_options_must_be_a_map_of_strings(admin: APIClient, warehouse: Path) -> None:
    admin.post(f"{API}/catalogs/", delta_body(warehouse), format="json")
    error = _error(admin.patch(f"{API}/catalogs/lake/", {"configuration": {"storage-options": "k=v"}},
                               format="json"), 400)
    assert "storage-options" in error["details"]["configuration"]
    error = _error(admin.patch(f"{API}/catalogs/lake/", {"configuration": {"storage-options": {"bad key!": "v"}}},
                               format="json"), 400)
    assert "storage-options" in error["details"]["configuration"]
    assert _stored("lake").version == 1


def test_hostile_bodies_are_400_not_500(admin: APIClient) -> None:
    for url in (f"{API}/catalogs/", f"{API}/apply/"):
        deep = _error(admin.generic("POST", url, "[" * 100_000, content_type="application/json"), 400)
        assert deep["code"] == "parse_error"
    deep_yaml = "a: " + "[" * 50_000
    _error(admin.generic("POST", f"{API}/apply/", deep_yaml, content_type="application/yaml"), 400)
    error = _error(admin.post(f"{API}/catalogs/", {**hive_body(), "description": "a\x00b"}, format="json"), 400)
    assert "description" in error["details"]
    body = hive_body()
    body["configuration"]["default-database"] = "a\x00b"
    error = _error(admin.post(f"{API}/catalogs/", body, format="json"), 400)
    assert "default-database" in error["details"]["configuration"]
    unsupported = admin.generic("POST", f"{API}/catalogs/", "catalog_name=x", content_type="application/x-www-form-urlencoded")
    assert unsupported.status_code == 415
    assert not Catalog.objects.exists()
