"""Reads of alert channels and rules, scoped to one team (another team's → 404)."""

from __future__ import annotations

from django.db.models import QuerySet

from alerts.models import AlertChannel, AlertDelivery, AlertRule
from core.errors import NotFound
from teams.models import Team


def channel_list(*, team: Team) -> QuerySet[AlertChannel]:
    """The team's channels by name."""
    return AlertChannel.objects.filter(team=team).order_by("name")


def channel_get(*, team: Team, channel_id: int) -> AlertChannel:
    """One channel of the team; NotFound otherwise."""
    channel = AlertChannel.objects.filter(team=team, id=channel_id).select_related("team").first()
    if channel is None:
        raise NotFound(f"No alert channel {channel_id} in team '{team.name}'.")
    return channel


def channel_recent_deliveries(*, channel: AlertChannel, limit: int = 10) -> list[AlertDelivery]:
    """The channel's latest deliveries, newest first."""
    return list(AlertDelivery.objects.filter(channel=channel).order_by("-created_at", "-id")[:limit])


def rule_list(*, team: Team) -> QuerySet[AlertRule]:
    """The team's rules by name, with their channels."""
    return AlertRule.objects.filter(team=team).select_related("job").prefetch_related("channels").order_by("name")


def rule_get(*, team: Team, rule_id: int) -> AlertRule:
    """One rule of the team; NotFound otherwise."""
    rule = AlertRule.objects.filter(team=team, id=rule_id).select_related("job", "team").first()
    if rule is None:
        raise NotFound(f"No alert rule {rule_id} in team '{team.name}'.")
    return rule
