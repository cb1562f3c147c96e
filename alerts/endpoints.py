"""Where alerts may be sent: an http(s) URL that is none of the platform's own services and, when the operator keeps
a list (LAKEPORT_ALERT_ALLOWED_HOSTS), on it — checked when a channel is saved and again before every send (a name
may resolve elsewhere by then). A send connects to the very addresses its check judged (`pin_receiver`): a name
that answers the check with one address and the connection with another (DNS rebinding) reaches nothing the check
did not see. Redirects are never followed (transports.py): a receiver cannot bounce the POST elsewhere either."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings

from catalogs.types.endpoints import EndpointRefused, addresses_of, check_endpoints
from lakeport_engine.catalog_types.base import Endpoint

ALLOWED_SETTING = "LAKEPORT_ALERT_ALLOWED_HOSTS"


class ReceiverRefused(ValueError):
    """Alerts may not be sent to this URL now; the message says why."""


@dataclass(frozen=True)
class PinnedReceiver:
    """A receiver URL with the addresses its host resolved to when it was checked: the send connects to these."""

    https: bool
    host: str
    port: int
    target: str  # path and query, as the request line carries them
    addresses: tuple[str, ...]


def _endpoint(url: str) -> tuple[Endpoint, str, bool]:
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = -1
    if parts.scheme not in ("http", "https") or not parts.hostname or port == -1:
        raise ReceiverRefused("Expected an http:// or https:// URL.")
    https = parts.scheme == "https"
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Endpoint(host=parts.hostname, port=port or (443 if https else 80), kind="http"), target, https


def _check(endpoint: Endpoint, addresses: frozenset[str]) -> None:
    try:
        check_endpoints([endpoint], allowed_hosts=settings.LAKEPORT_ALERT_ALLOWED_HOSTS,
                        allowed_setting=ALLOWED_SETTING, what="alerts", resolved={endpoint.host: addresses})
    except EndpointRefused as exc:
        raise ReceiverRefused(str(exc)) from None


def receiver_refusal(url: str) -> str | None:
    """Why alerts may not be sent to `url`, or None (a name with no DNS answer now may still be saved)."""
    try:
        endpoint, _target, _https = _endpoint(url)
        _check(endpoint, addresses_of(endpoint.host))
    except ReceiverRefused as exc:
        return str(exc)
    return None


def pin_receiver(url: str) -> PinnedReceiver:
    """Resolve `url`'s host once, check those addresses, and return them for the send to connect to; raises
    ReceiverRefused when the check refuses or the name has no address."""
    endpoint, target, https = _endpoint(url)
    addresses = addresses_of(endpoint.host)
    if not addresses:
        raise ReceiverRefused(f"{endpoint.host} has no address (DNS gave no answer).")
    _check(endpoint, addresses)
    return PinnedReceiver(https=https, host=endpoint.host, port=endpoint.port, target=target,
                          addresses=tuple(sorted(addresses)))
