"""A stream table with no declared schema, in a real Chromium: the metadata browser shows the schema inferred from
its newest records and the suggested event-time column; a developer cannot change the catalog, a team admin
confirms it, and the catalog then declares the table (its secret untouched) and the page says "declared"."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import expect

from catalogs.models import Catalog
from catalogs.secrets import seal_configuration, stored_plain
from lakeport_engine.catalog_types.redis_streams import RedisStreamsConfig
from teams.models import Role, Team
from tests.e2e.conftest import Browser
from tests.streaming.conftest import RedisServer, redis_server  # noqa: F401 - the password-protected Redis

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_an_admin_confirms_the_schema_inferred_from_a_stream(
    browser: Browser, make_user: Any, redis_server: RedisServer,  # noqa: F811
) -> None:
    team = Team.objects.create(name="acme")
    make_user("dora", team, Role.DEVELOPER)
    make_user("ada", team, Role.ADMIN)
    conn = redis_server.client()
    conn.delete("visits")
    for n in range(12):
        conn.xadd("visits", {"data": json.dumps({"page": f"/p{n % 4}", "seen_at": f"2026-01-01T00:00:{n:02d}Z",
                                                 "ms": n * 10, "ok": n % 2 == 0})})
    config = RedisStreamsConfig.model_validate({"url": redis_server.url, "password": redis_server.password})
    catalog = Catalog.objects.create(team=team, catalog_type="redis-streams", catalog_name="events",
                                     configuration=seal_configuration(config))
    b = browser

    b.sign_in("dora")
    details = b.open_table("events", "default", "visits")
    inferred = details.get_by_role("group", name="Inferred schema")
    expect(inferred).to_contain_text("Suggested event-time column: seen_at")
    expect(details.get_by_test_id("columns-table").locator("tbody tr")).to_have_count(4)
    expect(details.get_by_test_id("columns-table")).to_contain_text("timestamp")
    expect(inferred.get_by_role("button", name="Confirm this schema")).to_have_count(0)  # developers cannot
    expect(inferred).to_contain_text("A team admin can confirm it")
    b.page.context.clear_cookies()  # sign out

    b.sign_in("ada")
    details = b.open_table("events", "default", "visits")
    inferred = details.get_by_role("group", name="Inferred schema")
    expect(inferred.get_by_role("button", name="Confirm this schema")).to_be_visible()
    b.shot("stream-schema-inferred")
    inferred.get_by_role("button", name="Confirm this schema").click()
    expect(details.get_by_role("group", name="Inferred schema")).to_have_count(0)
    details.get_by_test_id("stream-sample").get_by_role("button", name="Sample").click()
    expect(details.get_by_test_id("stream-sample")).to_contain_text("declared schema")

    catalog.refresh_from_db()
    stored = stored_plain(catalog.configuration)
    assert stored["tables"] == {"default.visits": {
        "columns": [{"name": "page", "type": "string"}, {"name": "seen_at", "type": "timestamp"},
                    {"name": "ms", "type": "bigint"}, {"name": "ok", "type": "boolean"}],
        "event-time": "seen_at"}}
    assert stored["password"] == redis_server.password  # the PATCH sent no secret and kept the stored one
    assert catalog.version == 2
    assert redis_server.password not in b.page.content()
    assert not b.console.unexpected(), b.console.errors
