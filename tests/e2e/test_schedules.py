"""Schedules in a real Chromium: the job page's schedule editor previews the next five fire times as you type,
creates a schedule, pauses, changes and deletes it; and a signed-out first visit of `/` logs no console error."""

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

    # change it: the editor opens with its values, previews the new cron, saves only what the form holds
    card.get_by_role("button", name="Edit").click()
    form = page.get_by_role("form", name="Edit schedule morning")
    expect(form.locator(f"#schedule-{schedule.id}-cron")).to_have_value("0 7 * * *")
    form.locator(f"#schedule-{schedule.id}-cron").fill("45 8 * * 1")
    expect(form.get_by_role("list", name="Next fire times of morning (preview)").get_by_role("listitem").first
           ).to_contain_text("08:45")
    form.locator(f"#schedule-{schedule.id}-parameters").fill('{"n": "9"}')
    form.get_by_role("button", name="Save changes").click()
    expect(card).to_contain_text("45 8 * * 1")
    expect(card).to_contain_text("parameters: n = 9")
    schedule.refresh_from_db()
    assert (schedule.cron, schedule.time_zone, schedule.parameters, schedule.enabled) == (
        "45 8 * * 1", "Europe/Berlin", {"n": "9"}, False)
    # a cron that cannot fire is refused in place and changes nothing
    card.get_by_role("button", name="Edit").click()
    form.locator(f"#schedule-{schedule.id}-cron").fill("61 8 * * 1")
    b.console.expect_failed(f"/schedules/{schedule.id}/", 400)
    form.get_by_role("button", name="Save changes").click()
    expect(form.get_by_text("Not saved")).to_be_visible()
    form.get_by_role("button", name="Cancel").click()
    schedule.refresh_from_db()
    assert schedule.cron == "45 8 * * 1"
    # delete it, after a confirmation
    card.get_by_role("button", name="Delete").click()
    card.get_by_role("group", name="Delete schedule morning").get_by_role("button", name="Delete schedule").click()
    expect(card).to_have_count(0)
    expect(page.get_by_text("No schedules yet.")).to_be_visible()
    assert not Schedule.objects.filter(id=schedule.id).exists()
    # a run shows the parameter values it used
    run = run_submit(job=job, user=None, enqueue=False).run
    b.goto(f"/t/acme/runs/{run.id}")
    expect(page.get_by_test_id("run-parameters")).to_contain_text(f"ds = {run.parameters['ds']['value']} (date)")
    assert b.console.unexpected() == [], b.console.unexpected()


def test_run_a_job_now_with_a_parameter_value_over_its_default(browser: Browser, team: Any, make_user: Any) -> None:
    make_user("dora", team, "developer")
    job = SqlJob.objects.create(team=team, name="top orders", sql="SELECT ${n} AS n, ${label} AS label",
                                parameters={"n": {"type": "int", "default": "1"}, "label": {"type": "string"}})
    b, page = browser, browser.page
    b.sign_in("dora")
    b.goto(f"/t/acme/jobs/{job.id}")
    form = page.get_by_role("form", name="Run this job")
    expect(form.locator("#run-param-n")).to_have_value("1")  # the default, ready to change
    form.locator("#run-param-n").fill("ten")
    form.locator("#run-param-label").fill("x' ; DROP TABLE t; --")
    b.console.expect_failed(f"/jobs/{job.id}/runs/", 400)
    form.get_by_role("button", name="Run now").click()
    expect(form.get_by_text("Not started")).to_be_visible()  # an int parameter refuses "ten": no run
    assert not job.runs.exists()

    form.locator("#run-param-n").fill("5")
    form.get_by_role("button", name="Run now").click()
    expect(page).to_have_url(re.compile(r"/t/acme/runs/\d+$"))
    run = job.runs.get()
    assert {k: v["value"] for k, v in run.parameters.items() if k in ("n", "label")} == {
        "n": "5", "label": "x' ; DROP TABLE t; --"}
    expect(page.get_by_test_id("run-parameters")).to_contain_text("n = 5 (int)")
    assert b.console.unexpected() == [], b.console.unexpected()
