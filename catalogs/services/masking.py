"""Masking a team's catalog secrets in what leaves the platform: opening them registers them for redaction."""

from __future__ import annotations

import logging

from catalogs.models import Catalog
from catalogs.secrets import stored_plain

logger = logging.getLogger("lakeport.catalogs")


def team_secrets_register(*, team_id: int) -> None:
    """Open every catalog secret of the team once in this process, so `lakeport_kernel.redaction` masks them in
    anything built from now on (an event sent before an engine asked for a catalog, a proxied Spark UI page)."""
    for stored in Catalog.objects.filter(team_id=team_id).values_list("configuration", flat=True):
        try:
            stored_plain(stored)
        except Exception as exc:  # noqa: BLE001 - an unreadable row masks nothing; what is being built still goes
            logger.warning("catalogs.secrets_unreadable", extra={"error_class": type(exc).__name__})
