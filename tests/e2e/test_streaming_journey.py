"""The streaming journey in a real Chromium, end to end as one developer: sample a Redis stream from the metadata
tree, write a windowed aggregation in the SQL editor by keyboard with completion, preview it (a batch, then live),
deploy it from the editor as a streaming job, start it, watch the metric charts gain points while events are
produced, stop it — and find each closed window counted once in the Delta sink. Screenshots of every step land
in test-artifacts/screenshots/journey-*.

The stream runs for real: a Celery worker (with beat) serves the editor's previews from the team engine and
supervises the Spark driver of the job (fixtures of tests/streams and tests/streaming)."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import Browser
from tests.streaming.support import delta_rows, delta_table
from tests.streams.conftest import (  # noqa: F401 - fixtures shared with the streams tests
    Lake,
    Producer,
    checkpoints,
    events,
    lake,
    produce,
    redis_server,
    redis_stream,
    stream_workers,
)
from tests.support.servers import wait_until
from tests.support.worker import Worker

pytestmark = [pytest.mark.e2e, pytest.mark.spark, pytest.mark.django_db(transaction=True)]

SPARK_WAIT = 600_000  # ms: a safety net for a cold Spark on a shared two-core machine, not a performance claim
COUNTS = pa.schema([("room", pa.string()), ("window_start", pa.timestamp("us", tz="UTC")), ("clicks", pa.int64())])
FIRST_EVENTS = 40


def window_counts(produced: int) -> dict[tuple[str, dt.datetime], int]:
    """Events per (room, 10-second window start) among ids 0…produced-1 (event n happens n seconds after 00:00)."""
    counts: dict[tuple[str, dt.datetime], int] = {}
    for e in events(0, produced):
        start = dt.datetime.fromisoformat(e["ts"]).replace(tzinfo=None)
        start -= dt.timedelta(seconds=start.second % 10)
        counts[(e["room"], start)] = counts.get((e["room"], start), 0) + 1
    return counts


def chart_points(page: Any) -> int:
    return int(page.get_by_test_id("stream-chart-rows").get_attribute("data-points") or 0)


def complete(b: Browser, prefix: str, label: str) -> None:
    """Type `prefix`, wait for the completion popup to offer `label` first and accept it with Enter."""
    b.page.keyboard.type(prefix, delay=15)
    popup = b.page.locator(".cm-tooltip-autocomplete")
    selected = popup.locator("li[aria-selected=true] .cm-completionLabel")
    expect(selected).to_have_text(label, timeout=30_000)
    b.shot(f"journey-completion-{label}")
    expect(selected).to_have_text(label)
    # CodeMirror ignores Enter for 75 ms after the popup (re)opens (its interactionDelay); a person reads first
    b.page.wait_for_timeout(200)
    b.page.keyboard.press("Enter")
    expect(popup).to_be_hidden()
    expect(b.page.locator(".cm-content")).to_contain_text(f".{label}")


def test_developer_samples_writes_previews_deploys_watches_and_stops_a_windowed_stream(
    browser: Browser, team: Any, make_user: Any, lake: Lake,  # noqa: F811
    stream_workers: Callable[..., Worker], settings: Any,  # noqa: F811
) -> None:
    settings.LAKEPORT_LIVE_PREVIEW_SECONDS = 25
    make_user("dora", team, "developer")
    sink = delta_table(lake.warehouse, "db", "counts", COUNTS)
    produce(lake.server, lake.key, events(0, FIRST_EVENTS))
    stream_workers("journey")
    b, page = browser, browser.page
    b.sign_in("dora")

    # ---- sample the stream from the metadata tree ----
    b.open_table("events", "default", lake.key)
    page.get_by_test_id("stream-sample").get_by_role("button", name="Sample").click()
    sample = page.get_by_role("region", name=f"Sample of events.default.{lake.key}").get_by_test_id("result-grid")
    expect(sample.locator("tbody tr")).to_have_count(20, timeout=30_000)
    expect(sample.locator("tbody tr").last).to_contain_text("39")  # the newest record last
    b.shot("journey-1-sample")

    # ---- write the windowed aggregation by keyboard, completing the sink and the stream table ----
    page.get_by_role("link", name="Query in SQL editor").click()
    editor = page.locator(".cm-content")
    expect(editor).to_have_text(f"SELECT * FROM STREAM(events.default.{lake.key})")
    # Typing validates as it goes while the team's engine starts: calls beyond the team's editor limit answer 503
    # and the editor asks again (a "Checking…" the user sees), so the status below still ends valid.
    b.console.expect_failed("/sql/validate/", 503)
    editor.click()
    page.keyboard.press("ControlOrMeta+a")
    complete(b, "INSERT INTO lake.db.cou", "counts")
    complete(b, " SELECT room, window.start, count(*) FROM STREAM(events.default.", lake.key)
    page.keyboard.type(") WATERMARK ts DELAY OF INTERVAL 5 SECONDS GROUP BY room, window(ts, '10 seconds') "
                       "EMIT AFTER WATERMARK", delay=15)
    page.keyboard.press("Escape")  # close a popup the last word may have opened
    expect(editor).to_have_text(
        f"INSERT INTO lake.db.counts SELECT room, window.start, count(*) FROM STREAM(events.default.{lake.key}) "
        "WATERMARK ts DELAY OF INTERVAL 5 SECONDS GROUP BY room, window(ts, '10 seconds') EMIT AFTER WATERMARK")
    expect(page.get_by_test_id("validation-status")).to_have_text("✓ Valid", timeout=SPARK_WAIT)
    b.shot("journey-2-query")

    # ---- preview: a batch over the newest records, 3 rooms × 4 windows; then live until it stops itself ----
    page.get_by_role("button", name="Preview", exact=True).click()
    preview = page.get_by_role("region", name="Preview rows").get_by_test_id("result-grid")
    expect(preview.locator("tbody tr")).to_have_count(12, timeout=SPARK_WAIT)
    expect(preview.locator("thead")).to_contain_text("window_start")
    b.shot("journey-3-preview")
    page.get_by_role("button", name="Live", exact=True).click()
    live = page.get_by_test_id("live-preview")
    expect(live.get_by_role("region", name="Live rows").locator("tbody tr").first).to_be_visible(timeout=SPARK_WAIT)
    b.shot("journey-4-live")
    expect(live.get_by_test_id("live-status")).to_contain_text("stopped after its time limit", timeout=SPARK_WAIT)
    assert delta_rows(sink) == []  # previews never write the sink

    # ---- deploy from the editor: a streaming job, stopped until started ----
    page.get_by_label("Job name").fill("room counts")
    page.get_by_role("button", name="Deploy as streaming job").click()
    expect(page).to_have_url(re.compile(r"/t/acme/jobs/\d+$"))
    expect(page.get_by_role("heading", name="room counts")).to_be_visible()
    status = page.get_by_test_id("stream-status")
    actions = page.get_by_role("group", name="Stream actions")
    expect(status).to_contain_text("STOPPED")
    b.shot("journey-5-deployed")

    # ---- start; events keep coming and the charts and the glance move ----
    actions.get_by_role("button", name="Start", exact=True).click()
    expect(status).to_contain_text("RUNNING", timeout=SPARK_WAIT)
    expect(page.get_by_test_id("stream-chart-rows")).not_to_have_attribute("data-points", "0", timeout=SPARK_WAIT)
    before = chart_points(page)
    first_batch = page.get_by_test_id("stream-last-batch").inner_text()
    first_watermark = page.get_by_test_id("stream-watermark").inner_text()
    producer = Producer(lake, FIRST_EVENTS)
    producer.start()
    try:
        wait_until(lambda: chart_points(page) >= before + 3, timeout=300, what="three more points on the rows/s chart")
        expect(page.get_by_test_id("stream-last-batch")).not_to_have_text(first_batch)
        expect(page.get_by_test_id("stream-watermark")).not_to_have_text(first_watermark)  # event time moves on
        expect(page.get_by_test_id("stream-watermark")).to_contain_text("2026-01-01 00:")
        expect(page.get_by_test_id("stream-last-batch")).to_contain_text(re.compile(r"#\d+ · \d+ rows in"))
        expect(page.get_by_test_id("stream-state-size")).to_contain_text("rows ·")  # a windowed query keeps state
        b.shot("journey-6-running")
    finally:
        produced = producer.finish()
    # closed windows reach the sink once each, with their final counts
    wait_until(lambda: len(delta_rows(sink)) >= 3, timeout=300, what="the first closed windows in the sink")

    # ---- stop (graceful) ----
    actions.get_by_role("button", name="Stop", exact=True).click()
    expect(status).to_contain_text("STOPPED", timeout=SPARK_WAIT)
    expect(page.get_by_test_id("stream-metrics-live")).to_have_text("not running")
    assert chart_points(page) > before  # the chart keeps the history
    b.shot("journey-7-stopped")

    expected = window_counts(produced)
    rows = delta_rows(sink)
    assert len({(room, start) for room, start, _ in rows}) == len(rows), rows  # each window once
    assert all(expected[(room, start.replace(tzinfo=None))] == n for room, start, n in rows), rows
    assert b.console.unexpected() == [], b.console.unexpected()
