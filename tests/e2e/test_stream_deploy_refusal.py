"""The SQL editor's "Deploy as streaming job" when the server refuses it, in a real Chromium: a developer writes a
script that is not a streaming one (two streaming INSERTs, where a streaming job runs exactly one, last) and deploys
it. The editor stays where it is and shows the server's reason, naming the rule; no job is created (read back
through the API). Then the script with one INSERT deploys, so the refusal was the script's and not the page's.

A real Celery worker answers the editor's validation from the team engine, as it would for a person."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect
from rest_framework.test import APIClient

from tests.e2e.conftest import Browser
from tests.streams.conftest import API, stream_catalogs  # noqa: F401 - the team's `events` and `lake` catalogs
from tests.support.clients import token_client
from tests.support.worker import Worker

pytestmark = [pytest.mark.e2e, pytest.mark.spark, pytest.mark.django_db(transaction=True)]

COUNTS = "INSERT INTO lake.web.counts SELECT room, count(*) AS clicks FROM STREAM(events.default.clicks) GROUP BY room"
TWO_SINKS = f"{COUNTS};\nINSERT INTO lake.web.rooms SELECT room FROM STREAM(events.default.clicks)"


def _job_names(client: APIClient) -> list[str]:
    response = client.get(f"{API}/jobs/")
    assert response.status_code == 200, response.content
    return [job["name"] for job in response.json()["results"]]


@pytest.mark.usefixtures("stream_catalogs")
def test_a_refused_deploy_shows_the_servers_reason_in_the_editor_and_creates_no_job(
    browser: Browser, team: Any, make_user: Any, celery_worker: Worker,
) -> None:
    api = token_client(make_user("dora", team, "developer"))
    b, page = browser, browser.page
    b.sign_in("dora")
    page.get_by_role("navigation", name="Sections").get_by_role("link", name="SQL").click()
    editor = page.locator(".cm-content")
    editor.click()
    page.keyboard.insert_text(TWO_SINKS)
    expect(editor).to_contain_text("INSERT INTO lake.web.rooms")
    page.get_by_label("Job name").fill("room clicks")

    b.console.expect_failed("/jobs/", 400)
    page.get_by_role("button", name="Deploy as streaming job").click()
    alert = page.get_by_role("alert").filter(has_text="Could not deploy the streaming job")
    expect(alert).to_be_visible()
    reason = page.get_by_role("list", name="Why the job was not saved")
    expect(reason).to_contain_text("Not a streaming script")
    expect(reason).to_contain_text("exactly one streaming INSERT")
    expect(reason).to_contain_text("this one has 2")
    expect(reason).to_contain_text("(rule: streaming-script)")
    # the script's problem is not read out as the job name's (its input stays valid and undescribed)
    expect(page.get_by_label("Job name")).to_have_attribute("aria-invalid", "false")
    expect(page.get_by_role("button", name="Deploy as streaming job")).to_be_enabled()  # ready for another try
    expect(page).to_have_url(re.compile(r"/t/acme/sql"))
    b.shot("deploy-refused")
    assert _job_names(api) == []

    # one INSERT deploys: the page itself was not what refused
    editor.click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.insert_text(COUNTS)
    expect(editor).to_have_text(COUNTS)
    b.console.expect_failed("/tables/counts/", 404)  # the job page looks up its sink, never made here
    page.get_by_role("button", name="Deploy as streaming job").click()
    expect(page).to_have_url(re.compile(r"/t/acme/jobs/\d+$"))
    expect(page.get_by_role("heading", name="room clicks")).to_be_visible()
    assert _job_names(api) == ["room clicks"]
    assert b.console.unexpected() == [], b.console.unexpected()
