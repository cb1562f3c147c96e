"""Declarative apply of alert channels and rules, beside jobs and schedules in one document:

    alert_channels: [{name, kind, url, secret, recipients, enabled}]
    alert_rules:    [{name, event, job (a job name; omitted: every job), channels (channel names), minutes, count,
                      enabled}]

Called by pipelines_apply (in its transaction, after jobs, so a rule may name a job of the same document). A
channel's `secret` (and a Slack channel's `url`) may be `${VAR}`, resolved from the caller's environment by
`manage.py apply` only (the API refuses it, as for catalog secrets); an existing channel whose entry omits its secret
keeps it. `prune` deletes only within the sections present.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from alerts.models import AlertChannel, AlertRule, ChannelKind
from alerts.secrets import channel_secret
from alerts.services.channels import channel_create, channel_delete, channel_update
from alerts.services.rules import rule_create, rule_delete, rule_update
from catalogs.services import SectionResult
from core.errors import InvalidInput
from jobs.models import SqlJob
from teams.models import Team

CHANNEL_FIELDS = {"name", "kind", "url", "secret", "recipients", "enabled"}
RULE_FIELDS = {"name", "event", "job", "channels", "minutes", "count", "enabled"}
ENV_REF = re.compile(r"^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$")


def _secret_value(value: Any, field: str, environ: Mapping[str, str] | None) -> Any:
    """`${VAR}` resolved from the caller's environment (CLI only); any other value as given."""
    found = ENV_REF.match(value) if isinstance(value, str) else None
    if found is None:
        return value
    if environ is None:
        raise InvalidInput.of({field: ["Environment references like ${VAR} are resolved only by `manage.py apply`; "
                                       "send the value itself."]})
    if found.group(1) not in environ:
        raise InvalidInput.of({field: [f"Environment variable {found.group(1)} is not set."]})
    return environ[found.group(1)]


def _channel_changed(channel: AlertChannel, wanted: dict[str, Any]) -> bool:
    if channel.kind != wanted["kind"] or channel.enabled != wanted["enabled"]:
        return True
    if "recipients" in wanted and list(channel.recipients) != wanted["recipients"]:
        return True
    secret = wanted.get("url") if wanted["kind"] == ChannelKind.SLACK else wanted.get("secret")
    if wanted["kind"] == ChannelKind.WEBHOOK and "url" in wanted and channel.url != wanted["url"]:
        return True
    return secret is not None and channel_secret(channel) != secret


def apply_channels(team: Team, entries: list[dict[str, Any]], prune: bool, result: SectionResult,
                   environ: Mapping[str, str] | None, fail: Any) -> None:
    """Make the team's channels match `entries` (see the module doc); `fail(label, name, error)` words an error."""
    existing = {c.name: c for c in AlertChannel.objects.select_for_update().filter(team=team)}
    for index, entry in enumerate(entries):
        name = entry["name"]
        try:
            wanted: dict[str, Any] = {"kind": entry.get("kind", ""), "enabled": bool(entry.get("enabled", True))}
            if wanted["kind"] not in ChannelKind.values:
                raise InvalidInput.of({"kind": [f"Use one of {', '.join(ChannelKind.values)}."]})
            for field in ("url", "secret"):
                if field in entry:
                    wanted[field] = str(_secret_value(entry[field], field, environ))
            if "recipients" in entry:
                if not isinstance(entry["recipients"], list):
                    raise InvalidInput.of({"recipients": ["Expected a list of addresses."]})
                wanted["recipients"] = [str(a) for a in entry["recipients"]]
            channel = existing.get(name)
            if channel is None:
                channel_create(team=team, name=name, **wanted)
                result.created.append(name)
            elif _channel_changed(channel, wanted):
                channel_update(channel=channel, data=wanted)
                result.updated.append(name)
            else:
                result.unchanged.append(name)
        except (InvalidInput, TypeError, ValueError) as exc:
            raise fail(f"alert_channels[{index}]", name, exc) from None
    if prune:
        for name in sorted(set(existing) - {e["name"] for e in entries}):
            channel_delete(channel=existing[name])
            result.deleted.append(name)


def apply_rules(team: Team, entries: list[dict[str, Any]], prune: bool, result: SectionResult, fail: Any) -> None:
    """Make the team's rules match `entries` (channels and jobs by name)."""
    existing = {r.name: r for r in AlertRule.objects.select_for_update(of=("self",)).select_related("team")
                .prefetch_related("channels").filter(team=team)}
    channels = dict(AlertChannel.objects.filter(team=team).values_list("name", "id"))
    jobs = dict(SqlJob.objects.filter(team=team).values_list("name", "id"))
    for index, entry in enumerate(entries):
        name = entry["name"]
        try:
            names = entry.get("channels")
            if not isinstance(names, list) or not names:
                raise InvalidInput.of({"channels": ["Name at least one channel of the team."]})
            unknown = [str(n) for n in names if n not in channels]
            if unknown:
                raise InvalidInput.of({"channels": [f"No alert channel named '{n}' in team '{team.name}'."
                                                    for n in unknown]})
            job = entry.get("job")
            if job is not None and job not in jobs:
                raise InvalidInput.of({"job": [f"No job named '{job}' in team '{team.name}'."]})
            wanted = {"event": entry.get("event", ""), "job": jobs[job] if job is not None else None,
                      "channels": sorted(channels[n] for n in names), "minutes": entry.get("minutes"),
                      "count": entry.get("count"), "enabled": bool(entry.get("enabled", True))}
            rule = existing.get(name)
            if rule is None:
                rule_create(team=team, name=name, **wanted)
                result.created.append(name)
            elif (rule.event, rule.job_id, rule.channel_ids, rule.minutes, rule.count, rule.enabled) != (
                    wanted["event"], wanted["job"], wanted["channels"], wanted["minutes"], wanted["count"],
                    wanted["enabled"]):
                rule_update(rule=rule, data=wanted)
                result.updated.append(name)
            else:
                result.unchanged.append(name)
        except (InvalidInput, TypeError, ValueError) as exc:
            raise fail(f"alert_rules[{index}]", name, exc) from None
    if prune:
        for name in sorted(set(existing) - {e["name"] for e in entries}):
            rule_delete(rule=existing[name])
            result.deleted.append(name)
