"""Stream catalogs through the public API: create, test connection, browse, schema inference, permissions."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.streaming.conftest import NATS_URL, RedisServer, columns
from tests.support.net import free_port

BASE = "/api/v1/teams/acme/catalogs"
pytestmark = pytest.mark.django_db

ORDERS = [{"id": 1, "amount": 2.5, "ts": "2026-01-01T00:00:01Z", "who": "ann"},
          {"id": 2, "amount": 3, "ts": "2026-01-01T00:00:02Z", "who": "bob"}]


def _create(client: APIClient, body: dict[str, Any]) -> Any:
    return client.post(f"{BASE}/", body, format="json")


def test_redis_catalog_is_created_tested_browsed_and_its_schema_inferred(
    admin_client: APIClient, redis_server: RedisServer, redis_stream: Callable[..., str],
    stream_catalog: Callable[..., dict[str, Any]],
) -> None:
    key = redis_stream(ORDERS)
    body = stream_catalog("redis-streams", url=redis_server.url, password=redis_server.password)
    created = _create(admin_client, body)
    assert created.status_code == 201, created.content
    assert redis_server.password not in json.dumps(created.json())  # write-only

    tested = admin_client.post(f"{BASE}/events/test-connection/").json()
    assert tested["ok"] is True and "Redis" in tested["message"]

    assert admin_client.get(f"{BASE}/events/databases/").json()["databases"] == ["default"]
    tables = admin_client.get(f"{BASE}/events/databases/default/tables/").json()["tables"]
    assert {"name": key, "kind": "stream"} in tables

    detail = admin_client.get(f"{BASE}/events/databases/default/tables/{key}/").json()
    assert [(c["name"], c["type"]) for c in detail["columns"]] == [
        ("id", "bigint"), ("amount", "double"), ("ts", "timestamp"), ("who", "string")]
    assert detail["properties"]["schema"] == "inferred" and detail["properties"]["event-time"] == "ts"
    assert detail["row_count"] == 2

    # the user confirms the inferred schema: it becomes the declared one
    confirmed = {f"default.{key}": {"columns": [{"name": c["name"], "type": c["type"]} for c in detail["columns"]],
                                    "event-time": "ts"}}
    updated = admin_client.patch(f"{BASE}/events/", {"configuration": {"tables": confirmed}}, format="json")
    assert updated.status_code == 200, updated.content
    detail = admin_client.get(f"{BASE}/events/databases/default/tables/{key}/").json()
    assert detail["properties"]["schema"] == "declared"
    assert admin_client.post(f"{BASE}/events/test-connection/").json()["ok"] is True  # password kept


def test_redis_bad_config_and_failures_are_clear_without_the_secret(
    admin_client: APIClient, redis_server: RedisServer, stream_catalog: Callable[..., dict[str, Any]],
) -> None:
    bad_url = _create(admin_client, stream_catalog("redis-streams", url="http://x:1", password="p-123456"))
    assert bad_url.status_code == 400 and "url" in json.dumps(bad_url.json())
    in_url = _create(admin_client, stream_catalog("redis-streams", url="redis://:pw-in-url@127.0.0.1:6379/0"))
    assert in_url.status_code == 400 and "pw-in-url" not in json.dumps(in_url.json())
    bad_type = _create(admin_client, stream_catalog(
        "redis-streams", url=redis_server.url, tables={"default.x": {"columns": columns(("a", "map<string,int>"))}}))
    assert bad_type.status_code == 400

    wrong = "wrong-" + redis_server.password
    assert _create(admin_client, stream_catalog("redis-streams", url=redis_server.url, password=wrong)).status_code == 201
    result = admin_client.post(f"{BASE}/events/test-connection/").json()
    assert result["ok"] is False and "refused the password" in result["message"] and wrong not in result["message"]

    down = f"redis://127.0.0.1:{free_port()}/0"
    result = admin_client.post(f"{BASE}/test-connection/", {"catalog_type": "redis-streams", "configuration": {
        "url": down, "password": redis_server.password}}, format="json").json()
    assert result["ok"] is False and "could not connect" in result["message"]
    assert redis_server.password not in result["message"]


def test_nats_catalog_is_tested_and_browsed(
    admin_client: APIClient, nats_stream: Callable[..., str], stream_catalog: Callable[..., dict[str, Any]],
) -> None:
    name = nats_stream(ORDERS)
    assert _create(admin_client, stream_catalog("nats-jetstream", servers=[NATS_URL])).status_code == 201
    tested = admin_client.post(f"{BASE}/events/test-connection/").json()
    assert tested["ok"] is True and "JetStream" in tested["message"]
    tables = admin_client.get(f"{BASE}/events/databases/default/tables/").json()["tables"]
    assert {"name": name, "kind": "stream"} in tables
    detail = admin_client.get(f"{BASE}/events/databases/default/tables/{name}/").json()
    assert ("ts", "timestamp") in [(c["name"], c["type"]) for c in detail["columns"]]
    assert detail["row_count"] == 2
    missing = admin_client.get(f"{BASE}/events/databases/default/tables/NOPE{name}/")
    assert missing.status_code == 404

    down = admin_client.post(f"{BASE}/test-connection/", {"catalog_type": "nats-jetstream", "configuration": {
        "servers": [f"nats://127.0.0.1:{free_port()}"], "token": "tok-secret-77"}}, format="json").json()
    assert down["ok"] is False and "tok-secret-77" not in down["message"]


def test_files_catalog_stays_in_the_team_root_and_infers_csv(
    admin_client: APIClient, tmp_path: Path, stream_catalog: Callable[..., dict[str, Any]],
) -> None:
    landing = tmp_path / "landing" / "clicks"
    landing.mkdir(parents=True)
    (landing / "a.csv").write_text("id,ts,page\n1,2026-01-01T00:00:01,/a\n2,2026-01-01T00:00:02,/b\n")
    created = _create(admin_client, stream_catalog("files", root=str(tmp_path), format="csv"))
    assert created.status_code == 201, created.content
    assert admin_client.get(f"{BASE}/events/databases/").json()["databases"] == ["landing"]
    detail = admin_client.get(f"{BASE}/events/databases/landing/tables/clicks/").json()
    assert [(c["name"], c["type"]) for c in detail["columns"]] == [("id", "bigint"), ("ts", "timestamp"),
                                                                  ("page", "string")]
    outside = _create(admin_client, stream_catalog("files", name="etc", root="/etc"))
    assert outside.status_code == 400


def test_another_teams_developer_sees_no_stream_catalog(
    admin_client: APIClient, client_for: Callable[..., APIClient], other_team: Any, redis_server: RedisServer,
    stream_catalog: Callable[..., dict[str, Any]],
) -> None:
    assert _create(admin_client, stream_catalog("redis-streams", url=redis_server.url,
                                                password=redis_server.password)).status_code == 201
    stranger = client_for("developer", in_team=other_team)
    assert stranger.get(f"{BASE}/events/").status_code == 404
    assert stranger.post(f"{BASE}/events/test-connection/").status_code == 404
    assert stranger.get(f"{BASE}/events/databases/default/tables/").status_code == 404
