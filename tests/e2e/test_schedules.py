"""Schedules in a real Chromium: the job page's schedule editor previews the next five fire times as you type,
creates a schedule and pauses it; and a signed-out first visit of `/` logs no console error."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from jobs.models import SqlJob
from jobs.services.runs import run_submit
from schedules.models import Schedule
from tests.e2e.conftest import Browser

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_signed_out_first_visit_logs_no_console_error(browser: Browser) -> None:
    b, page = browser, browser.page
    b.goto("/")
    expect(page).to_have_url(re.compile(r"/login\?next=%2F$"))
    expect(page.get_by_label("Username")).to_be_visible()
    page.wait_for_load_state("networkidle")
    assert b.console.errors == [], b.console.errors  # not even an expected 401


def test_create_a_schedule_see_its_next_fire_times_and_pause_it(browser: Browser, team: Any,
                                                                make_user: Any) -> None:
    make_user("dora", team, "developer")
    job = SqlJob.objects.create(team=team, name="daily orders", sql="SELECT ${ds} AS day, ${n} AS n",
                                parameters={"n": {"type": "int", "default": "1"}})
    b, page = browser, browser.page
    b.sign_in("dora")
    page.get_by_role("navigation", name="Sections").get_by_role("link", name="Jobs").click()
    page.get_by_role("link", name="daily orders").click()
    expect(page).to_have_url(re.compile(rf"/t/acme/jobs/{job.id}$"))

    page.locator("#schedule-tz").fill("Europe/Berlin")
    page.locator("#schedule-cron").fill("15 6 * * 1-5")
    preview = page.get_by_role("list", name="Next fire times (preview)")
    expect(preview.get_by_role("listitem")).to_have_count(5)
    expect(preview.get_by_role("listitem").first).to_contain_text(re.compile(r"06:15 \(UTC\+0[12]:00\)"))
    page.locator("#schedule-cron").fill("15 6 * *")  # half-typed: the reason shows, no failed request
    expect(page.get_by_test_id("schedule-preview-error")).to_contain_text("use 5")
    page.locator("#schedule-cron").fill("0 7 * * *")
    expect(preview.get_by_role("listitem").first).to_contain_text("07:00")
    page.locator("#schedule-name").fill("morning")
    page.locator("#schedule-parameters").fill('{"n": "7"}')
    page.get_by_role("button", name="Create schedule").click()

    card = page.get_by_role("region", name="Schedule morning")
    expect(card.get_by_test_id("schedule-state")).to_have_text("Active")
    expect(card).to_contain_text("parameters: n = 7")
    expect(card.get_by_role("list", name="Next fire times of morning").get_by_role("listitem")).to_have_count(5)
    b.shot("job-schedules")
    card.get_by_role("button", name="Pause").click()
    expect(card.get_by_test_id("schedule-state")).to_have_text("Paused")
    expect(card.get_by_role("button", name="Resume")).to_be_visible()
    schedule = Schedule.objects.get(team=team, name="morning")
    assert (schedule.cron, schedule.time_zone, schedule.enabled, schedule.next_fire_at, schedule.parameters) == (
        "0 7 * * *", "Europe/Berlin", False, None, {"n": "7"})
    # a run shows the parameter values it used
    run = run_submit(job=job, user=None, enqueue=False).run
    b.goto(f"/t/acme/runs/{run.id}")
    expect(page.get_by_test_id("run-parameters")).to_contain_text(f"ds = {run.parameters['ds']['value']} (date)")
    assert b.console.unexpected() == [], b.console.unexpected()
