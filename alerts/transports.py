"""Sending one alert over one channel: a signed webhook POST, a Slack-compatible POST, an e-mail.

Every call has a deadline (LAKEPORT_ALERT_SEND_TIMEOUT); a failure raises SendFailed with a message scrubbed of
the channel's secret (a Slack URL carries its token) and of every registered secret.
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import json
import socket
from collections.abc import Callable

from django.conf import settings
from django.core.mail import EmailMessage, get_connection

from alerts.endpoints import ReceiverRefused, pin_receiver
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


class _PinnedConnection(http.client.HTTPConnection):
    """An HTTP connection to one checked address, whatever the host name would resolve to now (the Host header,
    and for HTTPS the SNI and certificate check, still use the name)."""

    def __init__(self, host: str, port: int, *, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self._create_connection = _connector(address)


class _PinnedTLSConnection(http.client.HTTPSConnection):
    """The HTTPS form of `_PinnedConnection` (HTTPSConnection wraps what HTTPConnection.connect opened)."""

    def __init__(self, host: str, port: int, *, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self._create_connection = _connector(address)


def _connector(address: str) -> Callable[..., socket.socket]:
    def connect(target: tuple[str, int], timeout: float, source: tuple[str, int] | None = None) -> socket.socket:
        return socket.create_connection((address, target[1]), timeout, source)
    return connect


def _post(url: str, body: bytes, headers: dict[str, str], secret: str) -> None:
    try:  # again now: the name may resolve elsewhere than when the channel was saved
        receiver = pin_receiver(url)
    except ReceiverRefused as exc:
        raise SendFailed(_scrub(f"Not sent: {exc}", secret)) from None
    kind = _PinnedTLSConnection if receiver.https else _PinnedConnection
    failure: BaseException | None = None
    for address in receiver.addresses:  # every one was checked; the first that answers takes the alert
        connection = kind(receiver.host, receiver.port, address=address,
                          timeout=settings.LAKEPORT_ALERT_SEND_TIMEOUT)
        try:
            connection.request("POST", receiver.target, body=body,
                               headers={"Content-Type": "application/json", **headers})
            answer = connection.getresponse()
            answer.read(1024)
        except (OSError, http.client.HTTPException, ValueError) as exc:
            failure = exc
            continue
        finally:
            connection.close()
        if 300 <= answer.status < 400:  # an answer, not a hop: followed, it would go where no check looked
            raise SendFailed(f"The receiver answered HTTP {answer.status} (redirects are not followed).")
        if not 200 <= answer.status < 300:
            raise SendFailed(f"The receiver answered HTTP {answer.status}.")
        return
    reason = getattr(failure, "reason", failure)
    raise SendFailed(_scrub(f"Could not reach the receiver: {type(failure).__name__}: {reason}", secret))


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
