"""The README's default path, walked as a newcomer walks it after `make run`: SQLite and the filesystem broker with
`config.settings.local` (tests/support/local_platform.py starts gunicorn and a Celery worker as run.sh does), in
Chromium and through the API.

In journey order, on one platform: sign in with the password bootstrap_demo printed; browse demo_lake's tables;
preview a query in the SQL editor; run the demo job and see its rows; its lineage (the job's inputs, the graph of
a table it reads, upstream/downstream/impact answering on SQLite); the demo schedule paused, resumed and paused
again; `manage.py apply -f` of a files catalog over a landing directory and a streaming job writing a Delta table
of demo_lake, then both in the UI; the stream started and stopped in the UI while files land, its rows in the
sink; and the sink's lineage graph and column lineage. Screenshots go to the test's temp directory."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from deltalake import DeltaTable
from playwright.sync_api import expect

from tests.e2e.conftest import Browser, chromium
from tests.streaming.support import FileDrops, event
from tests.support.local_platform import LocalPlatform, local_platform_fixture  # noqa: F401 - the module's platform
from tests.support.servers import wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.spark]

SPARK_WAIT = 600_000  # ms: a safety net for a cold Spark on a shared two-core machine, not a performance claim
JOB = "customer revenue"
STREAM_JOB = "room clicks"
SINK = "demo_lake.shop.room_clicks"
CLICKS = {"format": "json", "columns": [{"name": "room", "type": "string"}, {"name": "ts", "type": "timestamp"},
                                        {"name": "v", "type": "int"}]}


@pytest.fixture(scope="module")
def journey(playwright_driver: Any, local_platform: LocalPlatform,
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    """One Chromium for the whole journey, pointed at the platform's gunicorn (not Django's live server)."""
    tmp = tmp_path_factory.mktemp("journey-browser")
    with chromium(playwright_driver, local_platform.url, tmp / "profile", name="default-journey",
                  screenshots=tmp / "screenshots") as b:
        yield b


def _nav(b: Browser, section: str) -> None:
    b.page.get_by_role("navigation", name="Sections").get_by_role("link", name=section, exact=True).click()


def _api_ok(platform: LocalPlatform, path: str) -> Any:
    response = platform.api("GET", path)
    assert response.status == 200, f"{path}: {response.status} {response.text[:300]}"
    return response.json()


def _dataset_id(platform: LocalPlatform, name: str) -> int:
    found = _api_ok(platform, f"lineage/datasets/?name={name}")
    results = found["results"] if isinstance(found, dict) else found
    assert results, f"no dataset named {name}"
    return int(results[0]["id"])


def test_sign_in_with_the_printed_password_and_browse_the_demo_tables(
        journey: Browser, local_platform: LocalPlatform) -> None:
    b, page = journey, journey.page
    b.sign_in("admin", local_platform.password)
    expect(page).to_have_url(re.compile(r"/t/demo/"))
    expect(page.get_by_test_id("role-badge")).to_have_text("admin")
    details = b.open_table("demo_lake", "shop", "orders")
    columns = page.get_by_test_id("columns-table")
    for column in ("order_id", "customer_id", "amount", "ordered_at"):
        expect(columns).to_contain_text(column, timeout=60_000)
    expect(details).to_contain_text("version 0")
    b.shot("journey-1-browse")


def test_preview_a_query_in_the_sql_editor(journey: Browser) -> None:
    b, page = journey, journey.page
    _nav(b, "SQL")
    page.get_by_role("button", name="New script").click()
    editor = page.locator(".cm-content")
    editor.click()
    page.keyboard.insert_text("SELECT name, country FROM demo_lake.shop.customers ORDER BY name")
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("validation-status")).to_have_text("✓ Valid", timeout=SPARK_WAIT)
    page.get_by_role("button", name="Preview", exact=True).click()
    preview = page.get_by_role("region", name="Preview rows")
    rows = preview.get_by_test_id("result-grid").locator("tbody tr")
    expect(rows).to_have_count(6, timeout=SPARK_WAIT)
    expect(rows.first).to_contain_text("Ada")
    expect(rows.first).to_contain_text("DE")
    b.shot("journey-2-preview")


def test_run_the_demo_job_and_see_its_rows_and_lineage(journey: Browser, local_platform: LocalPlatform) -> None:
    b, page = journey, journey.page
    _nav(b, "Jobs")
    page.get_by_role("link", name=JOB, exact=True).click()
    expect(page.get_by_role("heading", name=JOB)).to_be_visible()
    form = page.get_by_role("form", name="Run this job")
    form.get_by_role("button", name="Run now").click()
    expect(page).to_have_url(re.compile(r"/t/demo/runs/\d+$"))
    run_id = int(page.url.rsplit("/", 1)[1])
    expect(page.get_by_test_id("run-status")).to_contain_text("Succeeded", timeout=SPARK_WAIT)
    grid = page.get_by_role("region", name=re.compile(r"Rows of run \d+")).get_by_test_id("result-grid")
    expect(grid.locator("tbody tr")).to_have_count(6)  # one row per demo customer (min_amount's default is 0)
    expect(grid.locator("thead")).to_contain_text("revenue")
    b.shot("journey-3-run")

    # the run's lineage through the API on SQLite: what it read, by statement
    run_lineage = _api_ok(local_platform, f"lineage/runs/{run_id}/")
    assert {"demo_lake.shop.customers", "demo_lake.shop.orders", "demo_lake.shop.events"} <= {
        d["name"] for d in run_lineage["inputs"]}, run_lineage
    # the job page lists what the job reads; the lineage page of a table it reads shows the job downstream
    page.go_back()
    expect(page.get_by_test_id("job-lineage")).to_contain_text("demo_lake.shop.orders", timeout=60_000)
    b.goto("/t/demo/lineage?table=demo_lake.shop.orders")
    expect(page.get_by_role("heading", name=re.compile("Lineage of demo_lake.shop.orders"))).to_be_visible()
    expect(page.get_by_test_id("lineage-graph").get_by_text(f"job: {JOB}")).to_be_visible(timeout=60_000)
    orders = _dataset_id(local_platform, "demo_lake.shop.orders")
    for walk in ("upstream", "downstream", "impact"):
        body = _api_ok(local_platform, f"lineage/datasets/{orders}/{walk}/")
        if walk != "upstream":
            assert JOB in json.dumps(body), (walk, body)
    b.shot("journey-4-lineage")


def test_the_demo_schedule_is_paused_and_can_be_resumed_and_paused(
        journey: Browser, local_platform: LocalPlatform) -> None:
    b, page = journey, journey.page
    _nav(b, "Jobs")
    page.get_by_role("link", name=JOB, exact=True).click()
    card = page.get_by_role("region", name="Schedule nightly revenue")
    expect(card.get_by_test_id("schedule-state")).to_have_text("Paused")
    expect(card).to_contain_text("0 6 * * *")
    card.get_by_role("button", name="Resume").click()
    expect(card.get_by_test_id("schedule-state")).to_have_text("Active")
    expect(card.get_by_role("list", name="Next fire times of nightly revenue").get_by_role("listitem")).to_have_count(5)
    assert [(s["name"], s["enabled"]) for s in _api_ok(local_platform, "schedules/")["results"]] == [
        ("nightly revenue", True)]
    b.shot("journey-5-schedule")
    card.get_by_role("button", name="Pause").click()
    expect(card.get_by_test_id("schedule-state")).to_have_text("Paused")
    assert [s["enabled"] for s in _api_ok(local_platform, "schedules/")["results"]] == [False]


def _landing(platform: LocalPlatform) -> Path:
    return platform.data / "teams" / "demo" / "landing"


def test_apply_f_declares_a_files_catalog_and_a_streaming_job_the_ui_shows(
        journey: Browser, local_platform: LocalPlatform) -> None:
    b, page = journey, journey.page
    landing = _landing(local_platform)
    FileDrops(landing / "web" / "clicks").drop([event("a", 1, 1), event("b", 2, 2)])
    document = {
        "catalogs": [{"catalog_name": "landing", "catalog_type": "files", "description": "Clicks as JSON lines",
                      "configuration": {"root": str(landing), "tables": {"web.clicks": CLICKS}}}],
        "jobs": [{"name": STREAM_JOB, "kind": "streaming", "sql": (
            f"CREATE TABLE IF NOT EXISTS {SINK} (room STRING, clicks INT);\n"
            f"INSERT INTO {SINK} SELECT room, v * 10 AS clicks FROM STREAM(landing.web.clicks)")}],
    }
    path = local_platform.data / "landing.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    out = local_platform.manage("apply", "-f", str(path), "--team", "demo", "--as", "admin")
    assert "created: landing" in out, out
    assert f"jobs: created {STREAM_JOB}" in out, out

    # a change made beside the UI shows once the page is loaded again (the SPA caches lists it has shown)
    b.goto("/t/demo/catalogs")
    rows = page.get_by_role("table", name="Catalogs").locator("tbody tr")
    expect(rows.filter(has_text="landing")).to_contain_text("Clicks as JSON lines")
    expect(rows.filter(has_text="demo_lake")).to_have_count(1)  # apply without --prune keeps the demo catalog
    b.open_table("landing", "web", "clicks")
    expect(page.get_by_test_id("columns-table")).to_contain_text("room", timeout=60_000)
    b.goto("/t/demo/jobs")
    row = page.get_by_role("row", name=re.compile(f"^{STREAM_JOB}"))
    expect(row).to_contain_text("Streaming")
    b.shot("journey-6-applied")


def test_start_the_streaming_job_see_its_rows_land_and_stop_it(
        journey: Browser, local_platform: LocalPlatform) -> None:
    b, page = journey, journey.page
    _nav(b, "Jobs")
    page.get_by_role("link", name=STREAM_JOB, exact=True).click()
    status = page.get_by_test_id("stream-status")
    actions = page.get_by_role("group", name="Stream actions")
    expect(status).to_contain_text("STOPPED")
    actions.get_by_role("button", name="Start", exact=True).click()
    expect(status).to_contain_text("RUNNING", timeout=SPARK_WAIT)
    sink = local_platform.data / "teams" / "demo" / "warehouse" / "shop" / "room_clicks"

    def sink_rows() -> list[tuple[str, int]]:
        if not (sink / "_delta_log").is_dir():
            return []
        return sorted((r["room"], r["clicks"]) for r in DeltaTable(str(sink)).to_pyarrow_table().to_pylist())

    wait_until(lambda: len(sink_rows()) >= 2, timeout=SPARK_WAIT / 1000, interval=1, what="the first files' rows")
    FileDrops(_landing(local_platform) / "web" / "clicks").drop([event("c", 3, 3)])  # a file landing while it runs
    wait_until(lambda: len(sink_rows()) >= 3, timeout=SPARK_WAIT / 1000, interval=1, what="the new file's row")
    expect(page.get_by_test_id("stream-last-batch")).to_contain_text(re.compile(r"\d+ rows in"), timeout=120_000)
    b.shot("journey-7-running")
    actions.get_by_role("button", name="Stop", exact=True).click()
    expect(status).to_contain_text("STOPPED", timeout=SPARK_WAIT)
    assert sink_rows() == [("a", 10), ("b", 20), ("c", 30)]  # each landed record once
    b.shot("journey-8-stopped")


def test_the_sinks_lineage_graph_and_column_lineage(journey: Browser, local_platform: LocalPlatform) -> None:
    b, page = journey, journey.page
    b.goto(f"/t/demo/lineage?table={SINK}")
    expect(page.get_by_role("heading", name=re.compile(f"Lineage of {SINK}"))).to_be_visible(timeout=60_000)
    graph = page.get_by_test_id("lineage-graph")
    expect(graph.get_by_text(f"job: {STREAM_JOB}")).to_be_visible()  # upstream: the streaming job writes it
    expect(graph.get_by_text("landing.web.clicks")).to_be_visible()  # … from the landing directory
    page.get_by_role("button", name="clicks", exact=True).click()
    column = page.get_by_test_id("column-lineage")
    expect(column).to_contain_text("landing.web.clicks.v")
    expect(column).to_contain_text(STREAM_JOB)
    b.shot("journey-9-sink-lineage")
    clicks = _dataset_id(local_platform, "landing.web.clicks")
    impact = json.dumps(_api_ok(local_platform, f"lineage/datasets/{clicks}/impact/"))
    assert STREAM_JOB in impact and "room_clicks" in impact, impact
    graph.get_by_text("landing.web.clicks").click()  # through to the source's own lineage: the job downstream
    expect(page.get_by_role("heading", name=re.compile("Lineage of landing.web.clicks"))).to_be_visible()
    expect(page.get_by_test_id("lineage-graph").get_by_text(f"job: {STREAM_JOB}")).to_be_visible()
    assert b.console.unexpected() == [], b.console.unexpected()
    assert "database is locked" not in local_platform.log("worker.log")
