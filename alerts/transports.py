"""Sending one alert over one channel: a signed webhook POST, a Slack-compatible POST, an e-mail.

Every call has a deadline (LAKEPORT_ALERT_SEND_TIMEOUT); a failure raises SendFailed with a message scrubbed of
the channel's secret (a Slack URL carries its token) and of every registered secret.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import urllib.error
import urllib.request
from collections.abc import Callable

from django.conf import settings
from django.core.mail import EmailMessage, get_connection

from alerts.endpoints import receiver_refusal
from alerts.messages import AlertMessage, plain_text
from alerts.models import AlertChannel, ChannelKind
from alerts.secrets import channel_secret
from lakeport_kernel.redaction import redact

SIGNATURE_HEADER = "X-Lakeport-Signature"
DELIVERY_HEADER = "X-Lakeport-Delivery"


class SendFailed(Exception):
    """A channel did not take the alert: why, without any secret."""


def signature(secret: str, body: bytes) -> str:
    """The webhook's signature header value: `sha256=` and the hex HMAC-SHA256 of the exact body bytes."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A receiver's redirect is an answer, not a hop: followed, it would send the alert where no check looked."""

    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirects)


def _post(url: str, body: bytes, headers: dict[str, str], secret: str) -> None:
    refusal = receiver_refusal(url)  # again now: the name may resolve elsewhere than when the channel was saved
    if refusal is not None:
        raise SendFailed(_scrub(f"Not sent: {refusal}", secret))
    request = urllib.request.Request(url, data=body, method="POST",
                                     headers={"Content-Type": "application/json", **headers})
    try:
        with _OPENER.open(request, timeout=settings.LAKEPORT_ALERT_SEND_TIMEOUT) as answer:
            answer.read(1024)
    except urllib.error.HTTPError as exc:
        moved = " (redirects are not followed)" if 300 <= exc.code < 400 else ""
        raise SendFailed(f"The receiver answered HTTP {exc.code}{moved}.") from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise SendFailed(_scrub(f"Could not reach the receiver: {type(exc).__name__}: {reason}", secret)) from None


def _scrub(text: str, secret: str) -> str:
    return redact(text.replace(secret, "***") if secret else text)[:1000]


def send_webhook(channel: AlertChannel, body: AlertMessage, delivery_id: int) -> None:
    """POST the JSON body with its HMAC signature (and the delivery id, for a receiver's own deduplication)."""
    secret = channel_secret(channel)
    data = json.dumps({**body, "delivery": delivery_id}, sort_keys=True).encode()
    _post(channel.url, data, {SIGNATURE_HEADER: signature(secret, data), DELIVERY_HEADER: str(delivery_id)}, secret)


def send_slack(channel: AlertChannel, body: AlertMessage, delivery_id: int) -> None:
    """POST `{"text": …}` to the incoming-webhook URL (the channel's sealed secret)."""
    url = channel_secret(channel)
    _post(url, json.dumps({"text": plain_text(body)}).encode(), {}, url)


def send_email(channel: AlertChannel, body: AlertMessage, delivery_id: int) -> None:
    """One e-mail to the channel's recipients through Django's e-mail backend (EMAIL_* settings)."""
    try:
        with get_connection(timeout=settings.LAKEPORT_ALERT_SEND_TIMEOUT) as connection:
            EmailMessage(subject=f"[Lakeport] {body['title']}"[:250], body=plain_text(body),
                         from_email=settings.DEFAULT_FROM_EMAIL, to=list(channel.recipients),
                         connection=connection).send()
    except Exception as exc:  # any SMTP or socket failure
        raise SendFailed(_scrub(f"The mail server refused or could not be reached: {type(exc).__name__}: {exc}",
                                settings.EMAIL_HOST_PASSWORD)) from None


SENDERS: dict[str, Callable[[AlertChannel, AlertMessage, int], None]] = {
    ChannelKind.WEBHOOK: send_webhook,
    ChannelKind.SLACK: send_slack,
    ChannelKind.EMAIL: send_email,
}


def send(channel: AlertChannel, body: AlertMessage, delivery_id: int) -> None:
    """Send `body` over `channel`; SendFailed when it was not taken."""
    SENDERS[channel.kind](channel, body, delivery_id)
