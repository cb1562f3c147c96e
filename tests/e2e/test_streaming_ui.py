"""Streaming jobs in a real Chromium: a developer creates a streaming job over a Redis Streams catalog from the
New job form (a batch statement is refused with the server's reason under the SQL), starts it, watches the metric charts gain points while events are produced, stops it and resets its
checkpoint through the confirmation; a viewer sees the same page without any action button.

The stream runs for real: a Celery worker (with beat) supervises a Spark driver reading a password-protected
Redis and writing a Delta table (fixtures of tests/streams and tests/streaming)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import PHONE, Browser
from tests.streams.conftest import (  # noqa: F401 - fixtures shared with the streams tests
    Lake,
    Producer,
    checkpoints,
    events,
    lake,
    produce,
    redis_server,
    redis_stream,
    sink_ids,
    stream_workers,
)
from tests.support.servers import wait_until
from tests.support.worker import Worker

pytestmark = [pytest.mark.e2e, pytest.mark.spark, pytest.mark.django_db(transaction=True)]

STREAM_TIMEOUT = 300_000  # ms: a cold Spark driver on a shared two-core machine


def _points(page: Any) -> int:
    return int(page.get_by_test_id("stream-chart-rows").get_attribute("data-points") or 0)


def test_developer_runs_a_streaming_job_and_watches_it_and_a_viewer_only_reads(
    browser: Browser, team: Any, make_user: Any, lake: Lake,  # noqa: F811
    stream_workers: Callable[..., Worker],  # noqa: F811
) -> None:
    make_user("dora", team, "developer")
    make_user("vic", team, "viewer")
    sink = lake.sink("ui_out")
    produce(lake.server, lake.key, events(0, 40))
    stream_workers("ui")
    b, page = browser, browser.page

    # ---- the developer creates the job with the kind selector ----
    b.sign_in("dora")
    page.get_by_role("navigation", name="Sections").get_by_role("link", name="Jobs").click()
    page.get_by_role("link", name="New job").click()
    page.get_by_label("Name").fill("room copy")
    page.get_by_role("radio", name=re.compile("^Streaming")).check()
    expect(page.locator("#job-sql-hint")).to_contain_text("FROM STREAM")
    # a batch statement is not a streaming script: the server's reason shows under the SQL
    page.get_by_label("SQL").fill("SELECT 1")
    b.console.expect_failed("/jobs/", 400)
    page.get_by_role("button", name="Create job").click()
    expect(page.locator("#job-sql-errors")).to_contain_text("Not a streaming script")
    expect(page.get_by_label("SQL")).to_have_attribute("aria-invalid", "true")
    page.get_by_label("SQL").fill(lake.script("ui_out"))
    b.shot("job-new-streaming")
    page.get_by_role("button", name="Create job").click()
    expect(page).to_have_url(re.compile(r"/t/acme/jobs/\d+$"))

    panel = page.get_by_test_id("stream-panel")
    status = page.get_by_test_id("stream-status")
    actions = page.get_by_role("group", name="Stream actions")

    def button(name: str) -> Any:
        return actions.get_by_role("button", name=name, exact=True)

    expect(status).to_contain_text("STOPPED")
    expect(button("Start")).to_be_enabled()
    expect(button("Stop")).to_be_disabled()
    expect(button("Restart")).to_be_disabled()
    expect(page.get_by_role("heading", name="Schedules")).to_have_count(0)  # a stream has none
    expect(panel).to_contain_text("generation 1")

    # ---- start: STARTING → RUNNING, the first 40 events land in the sink ----
    button("Start").click()
    expect(status).to_contain_text(re.compile("STARTING|RUNNING"))
    expect(button("Start")).to_be_disabled()
    expect(status).to_contain_text("RUNNING", timeout=STREAM_TIMEOUT)
    expect(button("Stop")).to_be_enabled()
    expect(button("Reset…")).to_be_disabled()
    wait_until(lambda: sink_ids(sink) == list(range(40)), timeout=300, what="the first 40 events in the sink")
    expect(page.get_by_test_id("stream-metrics-live")).to_have_text("live, every 2 s")

    # ---- events keep coming: the charts gain points and the glance shows the latest batch ----
    expect(page.get_by_test_id("stream-chart-rows")).not_to_have_attribute("data-points", "0", timeout=STREAM_TIMEOUT)
    before = _points(page)
    producer = Producer(lake, 40)
    producer.start()
    try:
        wait_until(lambda: _points(page) >= before + 3, timeout=300, what="three more points on the rows/s chart")
        for chart in ("duration", "state", "lag"):
            assert int(page.get_by_test_id(f"stream-chart-{chart}").get_attribute("data-points") or 0) > 0
        expect(page.get_by_test_id("stream-last-batch")).to_contain_text(re.compile(r"#\d+ · \d+ rows in"))
        expect(page.get_by_test_id("stream-lag")).to_contain_text(re.compile(r"records|unknown"))
        expect(page.get_by_test_id("stream-throughput")).to_contain_text("rows/s")
        b.shot("streaming-job-running")
        page.set_viewport_size(PHONE)
        b.shot("streaming-job-running")
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        page.set_viewport_size({"width": 1280, "height": 800})
    finally:
        produced = producer.finish()
    wait_until(lambda: sink_ids(sink) == list(range(produced)), timeout=300,
               what=f"all {produced} events in the sink, once each")

    # ---- stop (graceful) ----
    button("Stop").click()
    expect(status).to_contain_text(re.compile("STOPPING|STOPPED"))
    expect(status).to_contain_text("STOPPED", timeout=STREAM_TIMEOUT)
    expect(button("Start")).to_be_enabled()
    expect(page.get_by_test_id("stream-metrics-live")).to_have_text("not running")
    assert _points(page) > 0  # the chart keeps the history

    # ---- reset asks first: cancel keeps the checkpoint, confirming discards it ----
    button("Reset…").click()
    dialog = page.get_by_role("dialog", name="Reset the stream?")
    expect(dialog).to_contain_text("checkpoint (generation 1) is discarded")
    expect(dialog).to_contain_text("starts over from the beginning of its sources")
    b.shot("streaming-job-reset-dialog")
    dialog.get_by_role("button", name="Cancel").click()
    expect(dialog).to_be_hidden()
    expect(panel).to_contain_text("generation 1")
    button("Reset…").click()
    dialog.get_by_role("button", name="Discard checkpoint").click()
    expect(panel).to_contain_text("generation 2")
    expect(status).to_contain_text("STOPPED")
    assert b.console.unexpected() == [], b.console.unexpected()
    job_url = page.url

    # ---- the history says who did what, newest first ----
    history = page.get_by_test_id("stream-history")
    history.locator("summary").click()
    rows = history.get_by_role("table", name="Stream history").locator("tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.nth(0)).to_contain_text("reset")
    expect(rows.nth(0)).to_contain_text("dora")
    expect(rows.nth(0)).to_contain_text("checkpoint generation 1 → 2")
    expect(rows.nth(1)).to_contain_text("stopped")
    expect(rows.nth(2)).to_contain_text("started")

    # ---- a viewer reads everything and is offered nothing ----
    page.get_by_role("button", name="Sign out").click()
    b.sign_in("vic")
    page.get_by_role("navigation", name="Sections").get_by_role("link", name="Jobs").click()
    expect(page.get_by_role("link", name="room copy")).to_be_visible()
    expect(page.get_by_role("link", name="New job")).to_have_count(0)
    page.goto(job_url)
    expect(page.get_by_test_id("stream-status")).to_contain_text("STOPPED")
    expect(page.get_by_role("figure", name="Rows per second")).to_be_visible()
    expect(page.get_by_role("group", name="Stream actions")).to_have_count(0)
    page.get_by_test_id("stream-history").locator("summary").click()  # viewers read the history too
    expect(page.get_by_role("table", name="Stream history").locator("tbody tr")).to_have_count(3)
    for name in ("Start", "Stop", "Restart", "Reset…"):
        expect(page.get_by_role("button", name=name, exact=True)).to_have_count(0)
    b.shot("streaming-job-viewer")
    assert b.console.unexpected() == [], b.console.unexpected()
