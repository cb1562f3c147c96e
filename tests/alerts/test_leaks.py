"""The leak scan covers alerts: a channel's secret is learned from its sealed row, and found if it ever appears in
an alert body or a channel's last error (the scan's own instance here, so the session's scan stays clean)."""

from __future__ import annotations

import pytest

from alerts.models import AlertChannel, AlertDelivery
from alerts.services.channels import channel_create
from teams.models import Team
from tests.support.leakscan import LeakScan

pytestmark = pytest.mark.django_db
SLACK_TOKEN = "T0001/B0002/slackTok3n-leak-9QwE"


def test_the_scan_learns_channel_secrets_and_finds_them_in_alert_bodies_and_errors(team: Team) -> None:
    channel = channel_create(team=team, name="chat", kind="slack", url=f"https://hooks.example.com/services/{SLACK_TOKEN}")
    assert SLACK_TOKEN not in channel.secret  # sealed at rest
    delivery = AlertDelivery.objects.create(channel=channel, kind="test", message={
        "title": f"leaked https://hooks.example.com/services/{SLACK_TOKEN}"})
    AlertChannel.objects.filter(id=channel.id).update(last_error=f"POST https://hooks.example.com/services/{SLACK_TOKEN} refused")
    scan = LeakScan()
    try:
        scan.scan_database("planted")
        where = sorted({f.where for f in scan.findings if SLACK_TOKEN in f.secret})
        assert where == ["alert channel chat: last error", f"alert delivery {delivery.id}"]
    finally:  # the session's own scan runs after this test: the planted leak must be gone by then
        delivery.delete()
        AlertChannel.objects.filter(id=channel.id).update(last_error="")
