"""Sending the outbox: each channel's pending deliveries in order, with retries and exponential backoff.

A delivery is claimed with a conditional UPDATE (PENDING and due → SENDING), sent, then marked SENT; a failure
puts it back to PENDING with `next_attempt_at` doubling from LAKEPORT_ALERT_RETRY_SECONDS, until
LAKEPORT_ALERT_MAX_ATTEMPTS, then FAILED. The channel keeps the last error (shown in the API). A channel's deliveries
go out in the order they were written: one that waits for its retry holds back the later ones of its channel.
A worker killed between the send and the SENT update leaves a SENDING row: `deliveries_reclaim` (run at the start
of every pass) puts it back after LAKEPORT_ALERT_CLAIM_SECONDS, so the alert is sent at most once more, never lost.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import F
from django.utils import timezone

from alerts.messages import AlertMessage
from alerts.models import AlertChannel, AlertDelivery, DeliveryStatus
from alerts.transports import SendFailed, send

logger = logging.getLogger("lakeport.alerts")


@dataclass
class DeliveryReport:
    """What one pass did, by delivery id."""

    sent: list[int] = field(default_factory=list)
    retrying: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)
    limited: list[int] = field(default_factory=list)  # channels at their rate limit (by channel id)


def backoff(attempts: int) -> timedelta:
    """The wait after the `attempts`-th failed try: LAKEPORT_ALERT_RETRY_SECONDS doubled each time, capped at 1 h."""
    return timedelta(seconds=min(3600.0, settings.LAKEPORT_ALERT_RETRY_SECONDS * 2 ** max(0, attempts - 1)))


def deliveries_reclaim(*, now: datetime | None = None) -> int:
    """Put back deliveries whose sender died mid-send (SENDING past the claim timeout); how many."""
    now = now or timezone.now()
    stale = now - timedelta(seconds=settings.LAKEPORT_ALERT_CLAIM_SECONDS)
    return AlertDelivery.objects.filter(status=DeliveryStatus.SENDING, claimed_at__lt=stale).update(
        status=DeliveryStatus.PENDING, next_attempt_at=now)


def deliveries_send(*, now: datetime | None = None) -> DeliveryReport:
    """One pass over the outbox: for every channel with work, send its due deliveries in order."""
    report = DeliveryReport()
    deliveries_reclaim(now=now)
    # order_by(): the model's ordering would make DISTINCT list a channel once per delivery (and send it twice)
    channel_ids = (AlertDelivery.objects.filter(status__in=(DeliveryStatus.PENDING, DeliveryStatus.SENDING))
                   .order_by().values_list("channel_id", flat=True).distinct())
    for channel_id in list(channel_ids):
        _send_channel(channel_id, now=now, report=report)
    return report


def _rate_limited(channel_id: int, now: datetime) -> bool:
    """The channel took LAKEPORT_ALERT_CHANNEL_PER_MINUTE alerts in the last minute: the rest wait for a later pass."""
    sent = AlertDelivery.objects.filter(channel_id=channel_id, status=DeliveryStatus.SENT,
                                        sent_at__gt=now - timedelta(minutes=1)).count()
    return sent >= int(settings.LAKEPORT_ALERT_CHANNEL_PER_MINUTE)


def _send_channel(channel_id: int, *, now: datetime | None, report: DeliveryReport) -> None:
    while True:
        if _rate_limited(channel_id, now or timezone.now()):
            report.limited.append(channel_id)
            return
        head = (AlertDelivery.objects.filter(channel_id=channel_id,
                                             status__in=(DeliveryStatus.PENDING, DeliveryStatus.SENDING))
                .order_by("created_at", "id").first())
        if head is None or head.status == DeliveryStatus.SENDING or head.next_attempt_at > (now or timezone.now()):
            return  # nothing left, being sent elsewhere, or waiting for its retry: later ones wait behind it
        outcome = delivery_send(delivery_id=head.id, now=now)
        if outcome == DeliveryStatus.SENT:
            report.sent.append(head.id)
            continue
        if outcome == DeliveryStatus.FAILED:
            report.failed.append(head.id)
            continue
        if outcome == DeliveryStatus.PENDING:
            report.retrying.append(head.id)
        return


def delivery_send(*, delivery_id: int, now: datetime | None = None) -> str | None:
    """Claim and send one due delivery; its new status, or None when another sender had it (or it is not due)."""
    now = now or timezone.now()
    if not AlertDelivery.objects.filter(id=delivery_id, status=DeliveryStatus.PENDING, next_attempt_at__lte=now).update(
            status=DeliveryStatus.SENDING, claimed_at=timezone.now(), attempts=F("attempts") + 1):
        return None
    delivery = AlertDelivery.objects.select_related("channel").get(id=delivery_id)
    channel = delivery.channel
    try:
        if not channel.enabled:
            raise SendFailed("The channel is disabled.")
        send(channel, _body(delivery.message), delivery.id)
    except SendFailed as exc:
        return _failed(delivery, channel, str(exc))
    except Exception as exc:  # a bug or a bad stored row must not stop the outbox; kept as the channel's error
        logger.exception("alerts.send_crashed", extra={"delivery_id": delivery.id})
        return _failed(delivery, channel, f"Unexpected error: {type(exc).__name__}")
    sent_at = timezone.now()
    AlertDelivery.objects.filter(id=delivery.id, status=DeliveryStatus.SENDING).update(
        status=DeliveryStatus.SENT, sent_at=sent_at, last_error="")
    AlertChannel.objects.filter(id=channel.id).update(last_sent_at=sent_at)
    logger.info("alerts.sent", extra={"delivery_id": delivery.id, "channel_id": channel.id, "kind": delivery.kind})
    return DeliveryStatus.SENT


def _failed(delivery: AlertDelivery, channel: AlertChannel, error: str) -> str:
    now = timezone.now()
    final = delivery.attempts >= settings.LAKEPORT_ALERT_MAX_ATTEMPTS
    status = DeliveryStatus.FAILED if final else DeliveryStatus.PENDING
    AlertDelivery.objects.filter(id=delivery.id, status=DeliveryStatus.SENDING).update(
        status=status, last_error=error, next_attempt_at=now + backoff(delivery.attempts))
    AlertChannel.objects.filter(id=channel.id).update(last_error=error, last_error_at=now)
    logger.warning("alerts.send_failed", extra={"delivery_id": delivery.id, "channel_id": channel.id,
                                                "attempts": delivery.attempts, "final": final})
    return status


def _body(stored: object) -> AlertMessage:
    data = stored if isinstance(stored, dict) else {}
    return AlertMessage(kind=str(data.get("kind", "")), event=str(data.get("event", "")),
                        team=str(data.get("team", "")), rule=str(data.get("rule", "")),
                        title=str(data.get("title", "")), text=str(data.get("text", "")),
                        link=str(data.get("link", "")))
