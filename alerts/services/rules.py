"""Rules of a team: on which event (of which job, or all) which channels get an alert."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from alerts.models import THRESHOLDS, AlertChannel, AlertEvent, AlertRule
from core.errors import Conflict, InvalidInput
from jobs.models import SqlJob
from teams.models import Team


def _channels(team: Team, ids: Sequence[int]) -> list[AlertChannel]:
    channels = list(AlertChannel.objects.filter(team=team, id__in=list(ids)))
    missing = sorted(set(ids) - {c.id for c in channels})
    if missing:
        raise InvalidInput.of({"channels": [f"No alert channel {i} in team '{team.name}'." for i in missing]})
    return channels


def _job(team: Team, job_id: int | None) -> SqlJob | None:
    if job_id is None:
        return None
    job = SqlJob.objects.filter(team=team, id=job_id).first()
    if job is None:
        raise InvalidInput.of({"job": [f"No job {job_id} in team '{team.name}'."]})
    return job


def _thresholds(event: str, minutes: int | None, count: int | None) -> dict[str, int | None]:
    """The rule's thresholds: those its event needs are required (≥ 1), the others are cleared."""
    needed = THRESHOLDS.get(AlertEvent(event), ())
    given = {"minutes": minutes, "count": count}
    missing = {name: [f"A {event} rule needs `{name}` (at least 1)."] for name in needed if not given[name]}
    if missing:
        raise InvalidInput.of(missing)
    return {name: (value if name in needed else None) for name, value in given.items()}


def rule_create(*, team: Team, name: str, event: str, channels: Sequence[int], job: int | None = None,
                enabled: bool = True, minutes: int | None = None, count: int | None = None) -> AlertRule:
    """A new rule of the team."""
    chosen, target = _channels(team, channels), _job(team, job)
    thresholds = _thresholds(event, minutes, count)
    try:
        with transaction.atomic():
            rule = AlertRule.objects.create(team=team, name=name, event=event, job=target, enabled=enabled,
                                            **thresholds)
            rule.channels.set(chosen)
    except IntegrityError:
        raise Conflict(f"Team '{team.name}' already has an alert rule named '{name}'.") from None
    return rule


def rule_update(*, rule: AlertRule, data: dict[str, Any]) -> AlertRule:
    """Change a rule (the fields present in `data`)."""
    try:
        with transaction.atomic():
            for name in ("name", "event", "enabled"):
                if name in data:
                    setattr(rule, name, data[name])
            if "job" in data:
                rule.job = _job(rule.team, data["job"])
            for name, value in _thresholds(rule.event, data.get("minutes", rule.minutes),
                                           data.get("count", rule.count)).items():
                setattr(rule, name, value)
            rule.updated_at = timezone.now()
            rule.save()
            if "channels" in data:
                rule.channels.set(_channels(rule.team, data["channels"]))
    except IntegrityError:
        raise Conflict(f"Team '{rule.team.name}' already has an alert rule named '{data.get('name')}'.") from None
    return rule


def rule_delete(*, rule: AlertRule) -> None:
    """Delete a rule and its incidents."""
    rule.delete()
