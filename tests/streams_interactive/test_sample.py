"""`sample/` on a stream table through the public API: the newest records of Redis Streams, JetStream and
landing files, declared or inferred schema, and the bad requests a user can make."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from teams.models import Role, Team
from tests.streaming.conftest import RedisServer, columns

pytestmark = pytest.mark.django_db
BASE = "/api/v1/teams/acme/catalogs"


def _reading(n: int) -> dict[str, Any]:
    return {"room": f"r{n % 3}", "ts": f"2026-01-01T00:00:{n:02d}Z", "v": n}


def _sample(client: APIClient, catalog: str, table: str, body: dict[str, Any] | None = None,
            database: str = "default") -> Any:
    return client.post(f"{BASE}/{catalog}/databases/{database}/tables/{table}/sample/", body or {}, format="json")


def test_redis_sample_returns_the_newest_records_with_the_declared_schema(
    admin_client: APIClient, viewer_client: APIClient, redis_server: RedisServer,
    redis_stream: Callable[..., str], stream_catalog: Callable[..., dict[str, Any]],
) -> None:
    key = redis_stream([_reading(n) for n in range(50)])
    declared = {f"default.{key}": {"columns": columns(("room", "string"), ("ts", "timestamp"), ("v", "int")),
                                   "event-time": "ts"}}
    body = stream_catalog("redis-streams", url=redis_server.url, password=redis_server.password, tables=declared)
    assert admin_client.post(f"{BASE}/", body, format="json").status_code == 201

    answer = _sample(viewer_client, "events", key, {"limit": 5})  # a read: viewers may sample
    assert answer.status_code == 200, answer.content
    data = answer.json()
    assert data["schema"] == "declared"
    assert data["columns"] == [{"name": "room", "type": "string"}, {"name": "ts", "type": "timestamp"},
                               {"name": "v", "type": "int"}]
    assert [row[2] for row in data["rows"]] == [45, 46, 47, 48, 49]  # the newest five, oldest first
    assert data["rows"][-1][1].startswith("2026-01-01T00:00:49")
    assert redis_server.password not in json.dumps(data)

    default = _sample(viewer_client, "events", key).json()
    assert len(default["rows"]) == 20


def test_nats_sample_infers_the_schema_of_an_undeclared_stream(
    admin_client: APIClient, nats_stream: Callable[..., str], stream_catalog: Callable[..., dict[str, Any]],
) -> None:
    from tests.streaming.conftest import NATS_URL

    stream = nats_stream([_reading(n) for n in range(30)])
    body = stream_catalog("nats-jetstream", name="bus", servers=[NATS_URL])
    assert admin_client.post(f"{BASE}/", body, format="json").status_code == 201

    data = _sample(admin_client, "bus", stream, {"limit": 3}).json()
    assert data["schema"] == "inferred"
    assert {"name": "v", "type": "bigint"} in data["columns"]
    names = [c["name"] for c in data["columns"]]
    assert [row[names.index("v")] for row in data["rows"]] == [27, 28, 29]


def test_files_sample_reads_the_last_records_of_the_newest_files(
    admin_client: APIClient, tmp_path: Path, stream_catalog: Callable[..., dict[str, Any]],
) -> None:
    landing = tmp_path / "default" / "readings"
    landing.mkdir(parents=True)
    for part in range(3):
        lines = "".join(json.dumps(_reading(part * 10 + n)) + "\n" for n in range(10))
        (landing / f"part-{part}.json").write_text(lines)
        mtime = 1_700_000_000 + part
        import os

        os.utime(landing / f"part-{part}.json", (mtime, mtime))
    body = stream_catalog("files", name="landing", root=str(tmp_path), format="json")
    assert admin_client.post(f"{BASE}/", body, format="json").status_code == 201

    data = _sample(admin_client, "landing", "readings", {"limit": 12}).json()
    names = [c["name"] for c in data["columns"]]
    assert [row[names.index("v")] for row in data["rows"]] == list(range(18, 30))  # across two files


def test_bad_sample_requests_are_clear_4xx(
    admin_client: APIClient, client_for: Callable[..., APIClient], other_team: Team, tmp_path: Path,
    redis_server: RedisServer, redis_stream: Callable[..., str], stream_catalog: Callable[..., dict[str, Any]],
) -> None:
    key = redis_stream([_reading(1)])
    body = stream_catalog("redis-streams", url=redis_server.url, password=redis_server.password)
    assert admin_client.post(f"{BASE}/", body, format="json").status_code == 201
    lake = {"catalog_name": "lake", "catalog_type": "delta",
            "configuration": {"warehouse": str(tmp_path / "lake"), "default-database": "default"}}
    assert admin_client.post(f"{BASE}/", lake, format="json").status_code == 201

    oversized = _sample(admin_client, "events", key, {"limit": 1001})
    assert oversized.status_code == 400 and "limit" in oversized.json()["error"]["details"]
    assert _sample(admin_client, "events", key, {"limit": 0}).status_code == 400

    not_stream = _sample(admin_client, "lake", "orders")
    assert not_stream.status_code == 400
    assert "only stream catalogs" in json.dumps(not_stream.json())

    assert _sample(admin_client, "events", "no_such_stream").status_code == 404
    assert _sample(admin_client, "events", key, database="nope").status_code == 404

    outsider = client_for(Role.ADMIN, in_team=other_team)  # another team's catalog does not exist for it
    assert _sample(outsider, "events", key).status_code == 404
