"""Interactive streaming in a real Chromium: a developer samples a Redis stream from the metadata tree, opens it
in the editor, previews the streaming query (a batch over the newest records) and watches a live preview stop
by itself. Screenshots land in test-artifacts/screenshots/."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import expect

from catalogs.models import Catalog
from catalogs.secrets import seal_configuration
from lakeport_engine.catalog_types.redis_streams import RedisStreamsConfig
from teams.models import Role, Team
from tests.e2e.conftest import Browser
from tests.streaming.conftest import RedisServer, redis_server  # noqa: F401 - the password-protected Redis
from tests.support.worker import Worker

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SPARK_WAIT = 240_000  # ms; a safety net for a cold Spark on 2 shared cores, not a performance claim


def test_developer_samples_a_stream_previews_it_and_watches_it_live(
    browser: Browser, make_user: Any, celery_worker: Worker, redis_server: RedisServer,  # noqa: F811
    settings: Any,
) -> None:
    settings.LAKEPORT_LIVE_PREVIEW_SECONDS = 25
    team = Team.objects.create(name="acme")
    make_user("dora", team, Role.DEVELOPER)
    conn = redis_server.client()
    for n in range(30):
        conn.xadd("clicks", {"data": json.dumps({"room": f"r{n % 3}", "ts": f"2026-01-01T00:00:{n:02d}Z", "v": n})})
    config = RedisStreamsConfig.model_validate({
        "url": redis_server.url, "password": redis_server.password,
        "tables": {"default.clicks": {"columns": [{"name": "room", "type": "string"}, {"name": "ts", "type": "timestamp"},
                                                  {"name": "v", "type": "int"}], "event-time": "ts"}}})
    Catalog.objects.create(team=team, catalog_type="redis-streams", catalog_name="events",
                           configuration=seal_configuration(config))
    b = browser
    page = b.page
    b.sign_in("dora")

    # ---- the metadata tree: a stream table has a Sample button ----
    b.open_table("events", "default", "clicks")
    page.get_by_test_id("stream-sample").get_by_role("button", name="Sample").click()
    sample = page.get_by_role("region", name="Sample of events.default.clicks")
    grid = sample.get_by_test_id("result-grid")
    expect(grid.locator("tbody tr")).to_have_count(20, timeout=30_000)
    expect(grid.locator("tbody tr").last).to_contain_text("29")  # the newest record last
    expect(page.get_by_test_id("stream-sample")).to_contain_text("declared schema")
    b.shot("stream-sample")

    # ---- the editor: the stream opens as STREAM(…), previews as a batch, then live ----
    page.get_by_role("link", name="Query in SQL editor").click()
    editor = page.locator(".cm-content")
    expect(editor).to_have_text("SELECT * FROM STREAM(events.default.clicks)")
    expect(page.get_by_test_id("validation-status")).to_have_text("✓ Valid", timeout=SPARK_WAIT)
    page.get_by_role("button", name="Preview").click()
    preview = page.get_by_role("region", name="Preview rows")
    expect(preview.get_by_test_id("result-grid").locator("tbody tr")).to_have_count(30, timeout=SPARK_WAIT)
    b.shot("stream-preview")
    page.get_by_role("button", name="Live").click()
    live = page.get_by_test_id("live-preview")
    expect(live.get_by_role("region", name="Live rows")).to_be_visible(timeout=SPARK_WAIT)
    expect(live.get_by_test_id("live-status")).to_contain_text("stopped after its time limit", timeout=SPARK_WAIT)
    expect(live.get_by_test_id("live-status")).to_contain_text("30 rows")
    b.shot("stream-live")
    assert redis_server.password not in page.content()
    assert not b.console.unexpected(), b.console.errors
