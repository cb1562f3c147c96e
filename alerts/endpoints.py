"""Where alerts may be sent: an http(s) URL that is none of the platform's own services and, when the operator keeps
a list (LAKEPORT_ALERT_ALLOWED_HOSTS), on it — checked when a channel is saved and again before every send (a name
may resolve elsewhere by then). Redirects are never followed (transports.py): a receiver cannot bounce the POST to
an address the check would have refused."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings

from catalogs.types.endpoints import EndpointRefused, check_endpoints
from lakeport_engine.catalog_types.base import Endpoint

ALLOWED_SETTING = "LAKEPORT_ALERT_ALLOWED_HOSTS"


def receiver_refusal(url: str) -> str | None:
    """Why alerts may not be sent to `url`, or None."""
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = -1
    if parts.scheme not in ("http", "https") or not parts.hostname or port == -1:
        return "Expected an http:// or https:// URL."
    endpoint = Endpoint(host=parts.hostname, port=port or (443 if parts.scheme == "https" else 80), kind="http")
    try:
        check_endpoints([endpoint], allowed_hosts=settings.LAKEPORT_ALERT_ALLOWED_HOSTS,
                        allowed_setting=ALLOWED_SETTING, what="alerts")
    except EndpointRefused as exc:
        return str(exc)
    return None
