"""The Alerts page in a real Chromium (issue 36): a team admin adds a signed webhook channel, sends a test alert that
a real receiver on 127.0.0.1 gets with a valid signature, sees the last error when the receiver is down, and adds a
rule on that channel; the secret is never shown again; a viewer sees channels and rules without a form or a button."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from alerts.models import AlertChannel, AlertRule
from tests.e2e.conftest import Browser
from tests.support.receivers import WEBHOOK_SECRET, Receiver, free_port

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    found = Receiver(port=free_port())
    found.start()
    yield found
    found.stop()


def test_an_admin_adds_a_channel_sends_a_test_and_adds_a_rule(browser: Browser, team: Any, make_user: Any,
                                                              receiver: Receiver) -> None:
    make_user("ada", team, "admin")
    make_user("vic", team, "viewer")
    b, page = browser, browser.page
    b.sign_in("ada")
    page.get_by_role("navigation", name="Sections").get_by_role("link", name="Alerts").click()
    expect(page).to_have_url(re.compile(r"/t/acme/alerts$"))

    form = page.get_by_role("form", name="Add a channel")
    form.get_by_label("Name").fill("on-call")
    form.get_by_label("Kind").select_option("webhook")
    form.get_by_label("URL").fill(receiver.url)
    form.get_by_label("Signing secret (write-only)").fill(WEBHOOK_SECRET)
    form.get_by_role("button", name="Add channel").click()
    channels = page.get_by_role("table", name="Alert channels")
    row = channels.get_by_role("row").filter(has_text="on-call")
    expect(row).to_contain_text("never")
    expect(page.locator("body")).not_to_contain_text(WEBHOOK_SECRET)  # write-only

    row.get_by_role("button", name="Send test").click()
    expect(page.get_by_role("status")).to_have_text("Test alert sent.")
    assert len(receiver.received) == 1 and receiver.received[0].signed_with(WEBHOOK_SECRET)
    expect(row).not_to_contain_text("never")  # the channel's last send

    receiver.stop()  # down: the test says why, and the channel shows its last error
    row.get_by_role("button", name="Send test").click()
    expect(page.get_by_role("status")).to_contain_text("Test alert not sent")
    expect(row.locator(".error")).not_to_be_empty()

    rules = page.get_by_role("form", name="Add a rule")
    rules.get_by_label("Name").fill("nightly failures")
    rules.get_by_label("When").select_option("run_failed")
    rules.get_by_label("on-call").check()
    rules.get_by_role("button", name="Add rule").click()
    expect(page.get_by_role("table", name="Alert rules").get_by_role("row").filter(has_text="nightly failures")) \
        .to_contain_text("every job")
    channel = AlertChannel.objects.get(team=team, name="on-call")
    assert list(AlertRule.objects.get(team=team, name="nightly failures").channels.all()) == [channel]
    b.shot("alerts")

    page.context.clear_cookies()  # signed out
    b.sign_in("vic")
    b.goto("/t/acme/alerts")
    expect(page.get_by_role("table", name="Alert channels")).to_contain_text("on-call")
    expect(page.get_by_role("table", name="Alert rules")).to_contain_text("nightly failures")
    expect(page.get_by_role("form", name="Add a channel")).to_have_count(0)
    expect(page.get_by_role("button", name="Send test")).to_have_count(0)
