"""Validate, preview, live preview and sample bodies are what the OpenAPI schema says, key for key, with a real
worker and the team's engine behind them.

Each body is written by the serializer the schema is generated from; these tests fail if a view or service goes
back to a hand-built dict that adds, drops or renames a key, and pin the values an editor reads.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.streaming.conftest import RedisServer, columns
from tests.support.schema import conforms, response_schema
from tests.support.servers import wait_until
from tests.support.worker import Worker

pytestmark = [pytest.mark.django_db(transaction=True)]

API = "/api/v1/teams/acme"
SAMPLE = "catalogs/events/databases/default/tables/{key}/sample/"


@pytest.fixture
def stream(admin_client: APIClient, redis_server: RedisServer, redis_stream: Callable[..., str]) -> str:
    """A Redis stream of five records `{"room": "r<n % 3>", "ts", "v": n}` in the team's catalog `events`."""
    key = redis_stream([{"room": f"r{n % 3}", "ts": f"2026-01-01T00:00:0{n}Z", "v": n} for n in range(5)])
    tables = {f"default.{key}": {"columns": columns(("room", "string"), ("ts", "timestamp"), ("v", "int")),
                                 "event-time": "ts"}}
    created = admin_client.post(f"{API}/catalogs/", {"catalog_name": "events", "catalog_type": "redis-streams",
                                                     "configuration": {"url": redis_server.url, "tables": tables,
                                                                       "password": redis_server.password}},
                                format="json")
    assert created.status_code == 201, created.content
    return key


class Bodies:
    """Calls the API and holds every body to the schema of its operation and status."""

    def __init__(self, client: APIClient, schema: dict[str, Any]) -> None:
        self.client, self.schema = client, schema

    def call(self, method: str, url: str, data: dict[str, Any] | None = None, status: int = 200) -> Any:
        response = getattr(self.client, method)(f"{API}/{url}", data, format="json")
        assert response.status_code == status, (url, response.content)
        body = response.json()
        spec = response_schema(self.schema, f"{API}/{url}", method, status)
        assert conforms(body, spec, self.schema) == [], (method, url, body)
        return body


def test_validate_and_preview_bodies(interactive_worker: Worker, stream: str, developer_client: APIClient,
                                     schema: dict[str, Any]) -> None:
    api = Bodies(developer_client, schema)
    sql = "SELECT 1 AS one, 'a' AS s"
    assert api.call("post", "sql/validate/", {"sql": sql}) == {
        "valid": True, "errors": [], "schema": [{"name": "one", "type": "int"}, {"name": "s", "type": "string"}],
        "statements": [{"index": 0, "start": 0, "end": len(sql), "line": 1}], "checked": "full"}
    bad = api.call("post", "sql/validate/", {"sql": "SELECT 1;\n\n  SELECT * FROM ghost.db.t"})
    assert bad["valid"] is False and bad["schema"] == [] and len(bad["statements"]) == 2
    assert [(e["statement"], e["line"]) for e in bad["errors"]] == [(1, 3)]
    assert api.call("post", "sql/validate/", {"sql": " \n"}) == {"valid": False, "errors": [
        {"statement": None, "line": 1, "column": 1, "message": "The SQL script is empty."}], "schema": [],
        "statements": [], "checked": "full"}
    streaming = api.call("post", "sql/validate/", {"sql": f"SELECT room, v FROM STREAM(events.default.{stream})"})
    assert streaming["valid"] is True and streaming["schema"] == [{"name": "room", "type": "string"},
                                                                  {"name": "v", "type": "int"}]

    # `streaming` is absent from a batch query's preview and true for a STREAM(…) one
    assert api.call("post", "sql/preview/", {"sql": "SELECT 1 AS one UNION ALL SELECT 2", "limit": 1}) == {
        "columns": [{"name": "one", "type": "int"}], "rows": [[1]], "truncated": True}
    preview = api.call("post", "sql/preview/", {"sql": f"SELECT room, v FROM STREAM(events.default.{stream}) "
                                                       "WHERE v >= 3"})
    assert preview["streaming"] is True and preview["truncated"] is False
    assert preview["columns"] == [{"name": "room", "type": "string"}, {"name": "v", "type": "int"}]
    assert sorted(preview["rows"]) == [["r0", 3], ["r1", 4]]


def test_live_preview_and_sample_bodies(interactive_worker: Worker, stream: str, developer_client: APIClient,
                                        viewer_client: APIClient, schema: dict[str, Any], settings: Any) -> None:
    settings.LAKEPORT_LIVE_PREVIEW_SECONDS = 240  # stops at the row limit; the time limit is a safety net
    settings.LAKEPORT_LIVE_PREVIEW_ROWS = 5
    api = Bodies(developer_client, schema)

    def live(sql: str) -> dict[str, Any]:
        started = api.call("post", "sql/preview/live/", {"sql": sql}, status=202)
        assert started == {"id": started["id"], "status": "STARTING", "columns": [], "rows": [], "stopped": None,
                           "error": None, "seconds": 240.0, "max_rows": 5}
        state: dict[str, Any] = {}

        def ended() -> bool:
            state.update(api.call("get", f"sql/preview/live/{started['id']}/"))
            return state["status"] in ("STOPPED", "FAILED")

        wait_until(ended, timeout=240, what="the live preview to end")
        assert api.call("delete", f"sql/preview/live/{started['id']}/") == state  # stopping an ended one: its state
        return state

    rows = live(f"SELECT room, v FROM STREAM(events.default.{stream})")
    assert (rows["status"], rows["stopped"], rows["error"]) == ("STOPPED", "rows", None), rows
    assert rows["columns"] == [{"name": "room", "type": "string"}, {"name": "v", "type": "int"}]
    assert sorted(rows["rows"]) == [["r0", 0], ["r0", 3], ["r1", 1], ["r1", 4], ["r2", 2]]

    failed = live("SELECT room, v FROM STREAM(events.default.no_such_stream)")
    assert failed["status"] == "FAILED" and failed["rows"] == [], failed
    assert set(failed["error"]) == {"statement", "line", "column", "message"}
    assert "no_such_stream" in failed["error"]["message"]

    sample = Bodies(viewer_client, schema).call("post", SAMPLE.format(key=stream), {"limit": 2})
    assert sample == {"columns": [{"name": "room", "type": "string"}, {"name": "ts", "type": "timestamp"},
                                  {"name": "v", "type": "int"}],
                      "rows": [["r0", sample["rows"][0][1], 3], ["r1", sample["rows"][1][1], 4]],
                      "schema": "declared"}
    assert sample["rows"][1][1].startswith("2026-01-01T00:00:04")
