"""Channels of a team: create, change, delete, and "Send test" (one delivery sent now, its outcome returned)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from django.core.validators import EmailValidator
from django.db import IntegrityError, transaction
from django.utils import timezone

from alerts.endpoints import receiver_refusal
from alerts.messages import message
from alerts.models import AlertChannel, AlertDelivery, ChannelKind, DeliveryKind
from alerts.secrets import seal_secret
from alerts.services.delivery import delivery_send
from core.errors import Conflict, InvalidInput
from teams.models import Team

logger = logging.getLogger("lakeport.alerts")

MIN_SECRET = 16


@dataclass(frozen=True)
class TestResult:
    """What "Send test" did: whether the channel took the message, and why not."""

    ok: bool
    error: str
    delivery: int


def _http_url(value: str, field: str) -> str:
    """`value` when alerts may be sent there (alerts/endpoints.py), else a 400 naming `field`."""
    refusal = receiver_refusal(value)
    if refusal is not None:
        raise InvalidInput.of({field: [refusal]})
    return value


def _checked(kind: str, data: dict[str, Any], current: AlertChannel | None) -> dict[str, Any]:
    """The model fields of a channel of `kind` from the API's `data` (url, secret, recipients)."""
    fields: dict[str, Any] = {}
    url, secret, recipients = data.get("url"), data.get("secret"), data.get("recipients")
    if kind == ChannelKind.WEBHOOK:
        if url is not None:
            fields["url"] = _http_url(str(url), "url")
        elif current is None or current.kind != kind:
            raise InvalidInput.of({"url": ["A webhook channel needs the URL alerts are POSTed to."]})
        if secret is not None:
            if len(str(secret)) < MIN_SECRET:
                raise InvalidInput.of({"secret": [f"Use a signing secret of at least {MIN_SECRET} characters."]})
            fields["secret"] = seal_secret(str(secret))
        elif current is None or current.kind != kind:
            raise InvalidInput.of({"secret": ["A webhook channel needs a signing secret (HMAC-SHA256 key)."]})
        fields["recipients"] = []
    elif kind == ChannelKind.SLACK:
        if url is not None:  # the incoming-webhook URL carries its token: sealed, never shown
            fields["secret"] = seal_secret(_http_url(str(url), "url"))
        elif current is None or current.kind != kind:
            raise InvalidInput.of({"url": ["A Slack channel needs its incoming-webhook URL."]})
        fields.update(url="", recipients=[])
    else:
        if recipients is not None:
            addresses = [str(a).strip() for a in recipients if str(a).strip()]
            for address in addresses:
                try:
                    EmailValidator()(address)
                except Exception:
                    raise InvalidInput.of({"recipients": [f"'{address[:100]}' is not an e-mail address."]}) from None
            if not addresses:
                raise InvalidInput.of({"recipients": ["Name at least one address."]})
            fields["recipients"] = addresses
        elif current is None or current.kind != kind:
            raise InvalidInput.of({"recipients": ["An e-mail channel needs at least one address."]})
        fields.update(url="", secret="")
    return fields


def channel_create(*, team: Team, name: str, kind: str, enabled: bool = True, **data: Any) -> AlertChannel:
    """A new channel of the team (its secret sealed)."""
    fields = _checked(kind, data, None)
    try:
        with transaction.atomic():
            return AlertChannel.objects.create(team=team, name=name, kind=kind, enabled=enabled, **fields)
    except IntegrityError:
        raise Conflict(f"Team '{team.name}' already has an alert channel named '{name}'.") from None


def channel_update(*, channel: AlertChannel, data: dict[str, Any]) -> AlertChannel:
    """Change a channel; an omitted secret is kept (write-only, like catalog secrets)."""
    kind = str(data.get("kind", channel.kind))
    fields = _checked(kind, data, channel)
    for name in ("name", "enabled"):
        if name in data:
            fields[name] = data[name]
    fields.update(kind=kind, updated_at=timezone.now())
    try:
        with transaction.atomic():
            AlertChannel.objects.filter(id=channel.id).update(**fields)
    except IntegrityError:
        raise Conflict(f"Team '{channel.team.name}' already has an alert channel named '{data.get('name')}'.") from None
    channel.refresh_from_db()
    return channel


def channel_delete(*, channel: AlertChannel) -> None:
    """Delete a channel (its deliveries go with it; rules keep their other channels)."""
    channel.delete()


def channel_send_test(*, channel: AlertChannel) -> TestResult:
    """Write a test delivery and send it now; the outcome (the channel's error on failure) is returned."""
    body = message(kind=DeliveryKind.TEST, event="test", team=channel.team.name, rule="(test)",
                   title=f"Test alert from Lakeport to channel '{channel.name}'", error=None, link="")
    delivery = AlertDelivery.objects.create(channel=channel, kind=DeliveryKind.TEST, message=dict(body))
    delivery_send(delivery_id=delivery.id)
    delivery.refresh_from_db()
    ok = delivery.status == "sent"
    logger.info("alerts.test_sent", extra={"channel_id": channel.id, "ok": ok})
    return TestResult(ok=ok, error=delivery.last_error, delivery=delivery.id)
