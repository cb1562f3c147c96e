"""The editor on streaming statements through the public API, with a real Celery worker and the team's engine:
preview as a batch over each source's newest records (the sink untouched), live preview that stops by itself,
validation of the streaming errors with statement and line, and the guard inside a streaming statement."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import deltalake
import pyarrow as pa
import pytest
from rest_framework.test import APIClient

from teams.models import Role, Team
from tests.streaming.conftest import NATS_URL, RedisServer, columns
from tests.streaming.support import delta_rows, delta_table
from tests.support.servers import wait_until
from tests.support.worker import Worker

pytestmark = [pytest.mark.django_db(transaction=True)]

API = "/api/v1/teams/acme"
UTC_TS = pa.timestamp("us", tz="UTC")
WINDOWS = pa.schema([("room", pa.string()), ("window_start", UTC_TS), ("clicks", pa.int64())])
EVENT_COLUMNS = columns(("room", "string"), ("ts", "timestamp"), ("v", "int"))


def _event(n: int) -> dict[str, Any]:
    return {"room": f"r{n % 3}", "ts": f"2026-01-01T00:00:{n:02d}Z", "v": n}


def _window(second: int) -> str:
    return dt.datetime(2026, 1, 1, 0, 0, second, tzinfo=dt.UTC).isoformat()


class World:
    """Team acme: a Redis Streams catalog `events` with a declared stream, a Delta catalog `lake` with a sink."""

    def __init__(self, client: APIClient, redis_server: RedisServer, key: str, warehouse: Path) -> None:
        self.key = key
        self.warehouse = warehouse
        tables = {f"default.{key}": {"columns": EVENT_COLUMNS, "event-time": "ts"}}
        for body in (
            {"catalog_name": "events", "catalog_type": "redis-streams", "configuration": {
                "url": redis_server.url, "password": redis_server.password, "tables": tables}},
            {"catalog_name": "lake", "catalog_type": "delta", "configuration": {
                "warehouse": str(warehouse), "default-database": "web"}},
        ):
            created = client.post(f"{API}/catalogs/", body, format="json")
            assert created.status_code == 201, created.content
        self.sink = delta_table(warehouse, "web", "clicks_10s", WINDOWS)

    def windowed(self, emit: str = "EMIT AFTER WATERMARK", *, watermark: bool = True, select_room: bool = True,
                 stream: str | None = None) -> str:
        return (f"INSERT INTO lake.web.clicks_10s\n"
                f"SELECT {'room' if select_room else chr(39) + 'x' + chr(39)}, window.start, count(*)\n"
                f"FROM STREAM(events.default.{stream or self.key})"
                f"{' WATERMARK ts DELAY OF INTERVAL 5 SECONDS' if watermark else ''}\n"
                f"GROUP BY room, window(ts, '10 seconds')\n{emit}")


@pytest.fixture
def world(admin_client: APIClient, redis_server: RedisServer, redis_stream: Callable[..., str],
          tmp_path: Path) -> World:
    key = redis_stream([_event(n) for n in range(30)])
    return World(admin_client, redis_server, key, tmp_path / "lake")


def _validate(client: APIClient, sql: str) -> dict[str, Any]:
    answer = client.post(f"{API}/sql/validate/", {"sql": sql}, format="json")
    assert answer.status_code == 200, answer.content
    return answer.json()


def test_preview_of_a_windowed_streaming_insert_returns_rows_and_schema_and_writes_nothing(
    interactive_worker: Worker, world: World, developer_client: APIClient,
) -> None:
    answer = developer_client.post(f"{API}/sql/preview/", {"sql": world.windowed(), "limit": 100}, format="json")
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["streaming"] is True
    assert body["columns"] == [{"name": "room", "type": "string"}, {"name": "window_start", "type": "timestamp"},
                               {"name": "clicks", "type": "bigint"}]  # the sink's names, by position
    rows = sorted((r[0], r[1][:19], r[2]) for r in body["rows"])
    expected = sorted((f"r{room}", _window(w)[:19], sum(1 for n in range(w, w + 10) if n % 3 == room))
                      for room in range(3) for w in (0, 10, 20))
    assert rows == expected  # every window, final or not: the watermark and EMIT are ignored
    assert delta_rows(world.sink) == []  # the sink was never written


def test_preview_and_validate_of_a_stream_joined_with_a_delta_table(
    interactive_worker: Worker, world: World, developer_client: APIClient,
) -> None:
    deltalake.write_deltalake(str(world.warehouse / "web" / "rooms"),
                              pa.table({"room": ["r0", "r1"], "label": ["Atrium", "Basement"]}))
    sql = (f"INSERT INTO lake.web.clicks_10s\nSELECT r.label, window.start, count(*)\n"
           f"FROM STREAM(events.default.{world.key}) WATERMARK ts DELAY OF INTERVAL 5 SECONDS c\n"
           "JOIN lake.web.rooms r ON c.room = r.room\nGROUP BY r.label, window(c.ts, '10 seconds')\nEMIT AFTER WATERMARK")

    valid = _validate(developer_client, sql)
    assert valid["valid"] is True, valid
    answer = developer_client.post(f"{API}/sql/preview/", {"sql": sql, "limit": 100}, format="json")
    assert answer.status_code == 200, answer.content
    rows = sorted((r[0], r[1][:19], r[2]) for r in answer.json()["rows"])
    labels = {0: "Atrium", 1: "Basement"}  # room r2 has no row in the table: the inner join drops its clicks
    assert rows == sorted((labels[room], _window(w)[:19], sum(1 for n in range(w, w + 10) if n % 3 == room))
                          for room in labels for w in (0, 10, 20))
    assert delta_rows(world.sink) == []


def test_preview_of_a_plain_select_reads_the_newest_records_of_a_jetstream_source(
    interactive_worker: Worker, admin_client: APIClient, developer_client: APIClient,
    nats_stream: Callable[..., str],
) -> None:
    stream = nats_stream([_event(n) for n in range(40)])
    body = {"catalog_name": "bus", "catalog_type": "nats-jetstream", "configuration": {
        "servers": [NATS_URL], "tables": {f"default.{stream}": {"columns": EVENT_COLUMNS, "event-time": "ts"}}}}
    assert admin_client.post(f"{API}/catalogs/", body, format="json").status_code == 201
    sql = f"SELECT room, v * 10 AS v10 FROM STREAM(bus.default.{stream}) WHERE v >= 35 EMIT STREAM"
    answer = developer_client.post(f"{API}/sql/preview/", {"sql": sql}, format="json")
    assert answer.status_code == 200, answer.content
    data = answer.json()
    assert data["columns"] == [{"name": "room", "type": "string"}, {"name": "v10", "type": "bigint"}] or \
        data["columns"] == [{"name": "room", "type": "string"}, {"name": "v10", "type": "int"}]
    assert sorted(r[1] for r in data["rows"]) == [350, 360, 370, 380, 390]


def test_validate_reports_the_streaming_errors_with_statement_and_line(
    interactive_worker: Worker, world: World, developer_client: APIClient,
) -> None:
    good = _validate(developer_client, world.windowed())
    assert good["valid"] is True, good
    assert [c["name"] for c in good["schema"]] == ["room", "window_start", "clicks"]

    prefix = "SET spark.sql.shuffle.partitions=2;\n\n"  # the streaming statement is statement 2, at line 3
    cases = [
        (world.windowed("EMIT STREAM", select_room=False), "does not select all of its GROUP BY columns"),
        (world.windowed(watermark=False), "needs a watermark"),
        (world.windowed(stream="no_such_stream"), "no_such_stream"),
    ]
    for sql, words in cases:
        body = _validate(developer_client, prefix + sql)
        assert body["valid"] is False, body
        error = body["errors"][0]
        assert words in error["message"], error
        assert (error["statement"], error["line"]) == (1, 3), error
        assert "Traceback" not in error["message"] and "\tat " not in error["message"]
    assert delta_rows(world.sink) == []


def test_guard_attacks_inside_a_streaming_statement_are_refused_with_the_rule(
    interactive_worker: Worker, world: World, developer_client: APIClient, tmp_path: Path,
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("room,ts,v\nsecret-value,2026-01-01T00:00:00Z,1\n")
    attacks = [
        (f"INSERT INTO lake.web.clicks_10s SELECT room, ts, v FROM STREAM(events.default.{world.key}) "
         f"UNION ALL SELECT * FROM csv.`{secret}`", "path-read"),
        (f"SELECT room, reflect('java.lang.System', 'getenv', 'HOME') FROM STREAM(events.default.{world.key})",
         "reflection"),
        (f"SELECT * FROM STREAM(events.default.{world.key}) UNION ALL SELECT * FROM __lp_stream_1", "reserved-name"),
    ]
    for sql, rule in attacks:
        body = _validate(developer_client, sql)
        assert body["valid"] is False and f"(rule: {rule})" in body["errors"][0]["message"], (sql, body)
        assert body["errors"][0]["line"] == 1
        preview = developer_client.post(f"{API}/sql/preview/", {"sql": sql}, format="json")
        assert preview.status_code == 400, preview.content
        message = preview.json()["error"]["message"]
        assert f"(rule: {rule})" in message and "secret-value" not in message, message
    hidden_write = f"FROM STREAM(events.default.{world.key}) INSERT INTO lake.web.clicks_10s SELECT room, ts, v"
    refused = developer_client.post(f"{API}/sql/preview/", {"sql": hidden_write}, format="json")
    assert refused.status_code == 400 and "must only read" in refused.json()["error"]["message"], refused.content
    assert delta_rows(world.sink) == []


def _live_rows_then_stop(client: APIClient, sql: str) -> dict[str, Any]:
    started = client.post(f"{API}/sql/preview/live/", {"sql": sql}, format="json")
    assert started.status_code == 202, started.content
    preview_id = started.json()["id"]
    state: dict[str, Any] = {}

    def poll() -> bool:
        state.update(client.get(f"{API}/sql/preview/live/{preview_id}/").json())
        return state["status"] in ("STOPPED", "FAILED")

    wait_until(poll, timeout=240, what="the live preview to stop by itself")
    return state


def test_live_preview_streams_rows_then_stops_by_itself(
    interactive_worker: Worker, world: World, developer_client: APIClient, redis_server: RedisServer,
    settings: Any,
) -> None:
    # after K rows: the nine windows of the 30 records, as updates (the first stateful batch may take a while
    # on a loaded machine, so the time limit is only a safety net here)
    settings.LAKEPORT_LIVE_PREVIEW_SECONDS = 240
    settings.LAKEPORT_LIVE_PREVIEW_ROWS = 9
    state = _live_rows_then_stop(developer_client, world.windowed())
    assert state["status"] == "STOPPED" and state["stopped"] == "rows", state
    assert [c["name"] for c in state["columns"]] == ["room", "window_start", "clicks"]
    windows = sorted((r[0], r[1][:19], r[2]) for r in state["rows"])
    assert windows == sorted((f"r{room}", _window(w)[:19], sum(1 for n in range(w, w + 10) if n % 3 == room))
                             for room in range(3) for w in (0, 10, 20))
    assert delta_rows(world.sink) == []  # never the sink

    # after M seconds
    settings.LAKEPORT_LIVE_PREVIEW_SECONDS = 20
    settings.LAKEPORT_LIVE_PREVIEW_ROWS = 500
    timed = _live_rows_then_stop(developer_client, f"SELECT room, v FROM STREAM(events.default.{world.key})")
    assert timed["stopped"] == "seconds", timed
    assert sorted(r[1] for r in timed["rows"]) == list(range(30))
    scratch = Path(__import__("tempfile").gettempdir()) / "lakeport-engines"
    assert not list(scratch.glob("**/lakeport-live-*"))  # its checkpoint is gone


def test_live_preview_stops_early_and_is_private_to_the_team(
    interactive_worker: Worker, world: World, developer_client: APIClient, client_for: Callable[..., APIClient],
    other_team: Team, viewer_client: APIClient, settings: Any,
) -> None:
    settings.LAKEPORT_LIVE_PREVIEW_SECONDS = 120
    sql = f"SELECT room, v FROM STREAM(events.default.{world.key})"
    started = developer_client.post(f"{API}/sql/preview/live/", {"sql": sql}, format="json")
    preview_id = started.json()["id"]
    outsider = client_for(Role.ADMIN, in_team=other_team)
    assert outsider.get(f"/api/v1/teams/globex/sql/preview/live/{preview_id}/").status_code == 404
    assert outsider.delete(f"/api/v1/teams/globex/sql/preview/live/{preview_id}/").status_code == 404
    assert viewer_client.post(f"{API}/sql/preview/live/", {"sql": sql}, format="json").status_code == 403
    wait_until(lambda: developer_client.get(f"{API}/sql/preview/live/{preview_id}/").json()["rows"],
               timeout=240, what="the first live rows")
    stopped = developer_client.delete(f"{API}/sql/preview/live/{preview_id}/")
    assert stopped.status_code == 200
    wait_until(lambda: developer_client.get(f"{API}/sql/preview/live/{preview_id}/").json()["status"] == "STOPPED",
               timeout=60, what="the live preview to stop when asked")
    final = developer_client.get(f"{API}/sql/preview/live/{preview_id}/").json()
    assert final["stopped"] == "cancelled"
    assert developer_client.get(f"{API}/sql/preview/live/{'0' * 32}/").status_code == 404
    batch = developer_client.post(f"{API}/sql/preview/live/", {"sql": "SELECT 1"}, format="json")
    assert batch.status_code == 400 and "streaming" in json.dumps(batch.json())
