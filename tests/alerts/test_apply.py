"""`apply -f` / POST …/apply/ with alert channels and rules beside jobs: created, unchanged on a second apply, a
secret kept when omitted, `${VAR}` secrets only from the CLI's environment, pruned within the section, all or nothing;
and the applied rule really alerts."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from rest_framework.test import APIClient

from alerts.models import AlertChannel, AlertRule
from alerts.secrets import channel_secret
from alerts.services.delivery import deliveries_send
from declarative.services import document_apply
from jobs.models import SqlJob
from teams.models import Team
from tests.alerts.conftest import end_run
from tests.support.receivers import WEBHOOK_SECRET, Receiver

pytestmark = pytest.mark.django_db


def document(receiver: Receiver, **changes: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "jobs": [{"name": "nightly", "sql": "SELECT 1"}],
        "alert_channels": [{"name": "ops", "kind": "webhook", "url": receiver.url, "secret": WEBHOOK_SECRET},
                           {"name": "mail", "kind": "email", "recipients": ["oncall@example.com"]}],
        "alert_rules": [{"name": "nightly-failed", "event": "run_failed", "job": "nightly",
                         "channels": ["ops", "mail"]},
                        {"name": "slow", "event": "run_long", "minutes": 45, "channels": ["ops"]}],
    }
    doc.update(changes)
    return doc


def apply(client: APIClient, doc: dict[str, Any], **query: str) -> Any:
    suffix = "?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else ""
    return client.post(f"/api/v1/teams/acme/apply/{suffix}", yaml.safe_dump(doc), content_type="application/yaml")


def test_apply_creates_channels_and_rules_and_the_rule_alerts(admin_client: APIClient, team: Team,
                                                              receiver: Receiver) -> None:
    resp = apply(admin_client, document(receiver))
    assert resp.status_code == 200, resp.content
    body = resp.json()
    assert body["alert_channels"]["created"] == ["mail", "ops"] and body["alert_rules"]["created"] == ["nightly-failed",
                                                                                                        "slow"]
    assert "catalogs" not in str(body.get("created", [])) and WEBHOOK_SECRET not in resp.content.decode()
    rule = AlertRule.objects.get(team=team, name="slow")
    assert (rule.event, rule.minutes, rule.job_id) == ("run_long", 45, None)
    again = apply(admin_client, document(receiver)).json()
    assert again["alert_channels"]["unchanged"] == ["mail", "ops"]
    assert again["alert_rules"]["unchanged"] == ["nightly-failed", "slow"]
    # the secret omitted: kept; the rule really sends, signed with it
    doc = document(receiver)
    del doc["alert_channels"][0]["secret"]
    assert apply(admin_client, doc).json()["alert_channels"]["unchanged"] == ["mail", "ops"]
    end_run(SqlJob.objects.get(team=team, name="nightly"), succeeded=False, message="boom")
    deliveries_send()
    assert len(receiver.received) == 1 and receiver.received[0].signed_with(WEBHOOK_SECRET)


def test_apply_is_all_or_nothing_and_prunes_within_the_section(admin_client: APIClient, team: Team,
                                                               receiver: Receiver) -> None:
    assert apply(admin_client, document(receiver)).status_code == 200
    bad = document(receiver)
    bad["alert_rules"][1]["channels"] = ["no-such-channel"]
    bad["alert_channels"].append({"name": "new", "kind": "email", "recipients": ["x@example.com"]})
    resp = apply(admin_client, bad)
    assert resp.status_code == 400 and "alert_rules[1]" in resp.json()["error"]["message"]
    assert not AlertChannel.objects.filter(team=team, name="new").exists()
    pruned = document(receiver, alert_rules=[{"name": "slow", "event": "run_long", "minutes": 45,
                                              "channels": ["ops"]}])
    body = apply(admin_client, pruned, prune="true").json()
    assert body["alert_rules"]["deleted"] == ["nightly-failed"] and body["alert_channels"]["unchanged"] == ["mail", "ops"]


def test_env_secrets_resolve_from_the_cli_environment_only(admin_client: APIClient, team: Team,
                                                           receiver: Receiver) -> None:
    doc = document(receiver)
    doc["alert_channels"][0]["secret"] = "${OPS_WEBHOOK_SECRET}"
    resp = apply(admin_client, doc)
    assert resp.status_code == 400 and "manage.py apply" in resp.content.decode()
    document_apply(team=team, actor=None, document=doc, environ={"OPS_WEBHOOK_SECRET": WEBHOOK_SECRET})
    assert channel_secret(AlertChannel.objects.get(team=team, name="ops")) == WEBHOOK_SECRET
