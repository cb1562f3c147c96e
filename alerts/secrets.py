"""A channel's secret (a webhook's HMAC key, a Slack URL): sealed at rest with the catalogs' keys, write-only."""

from __future__ import annotations

from alerts.models import AlertChannel
from catalogs.secrets import secret_box


def seal_secret(plain: str) -> str:
    """The stored form of a channel secret ("" for none)."""
    return secret_box().encrypt(plain) if plain else ""


def channel_secret(channel: AlertChannel) -> str:
    """The plain secret (registered for redaction on opening, so no log shows it)."""
    return secret_box().decrypt(channel.secret) if channel.secret else ""
