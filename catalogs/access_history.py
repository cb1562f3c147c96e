"""Access in the catalog history (docs/access.md): grants, revokes, row filters and column masks (registered with
grants/hooks.py by catalogs/apps.py), and the accesses the guard refused by rule `access`.

A refusal is recorded as who, when, which privilege on which securable and where (run, preview, validate, live,
stream) — the names the refusal's own message gives, never the statement. Rate-limited so a loop cannot flood the
table: the same refusal (user, privilege, securable, entry point) within `REFUSAL_WINDOW` counts as a repeat on the
first entry (`repeats`; a concurrent repeat may be lost, the count is a lower bound), and beyond
`REFUSALS_PER_WINDOW` distinct entries of one user in a team per window nothing more is written until the window
moves on.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.contrib.auth.models import User
from django.db import DatabaseError
from django.utils import timezone

from catalogs.models import Catalog, CatalogChange, CatalogChangeAction
from grants.models import Grant
from lakeport_engine.access import refused_securables
from lakeport_engine.protocol import AccessDocument

logger = logging.getLogger(__name__)

REFUSAL_WINDOW = timedelta(minutes=1)
REFUSALS_PER_WINDOW = 20
REFUSAL_ENTRIES = ("run", "preview", "validate", "live", "stream")


class CatalogHistoryAccessHook:
    """Writes one history entry per grant or revoke on a catalog of the team (in the change's transaction)."""

    def access_changed(self, *, grant: Grant, action: str, actor: User | None, actor_name: str | None = None) -> None:
        """Record who granted or revoked what on which securable (none for a catalog the team does not have)."""
        catalog = Catalog.objects.filter(team_id=grant.team_id, catalog_name=grant.catalog).first()
        if catalog is None:
            return
        principal = grant.group.name if grant.group is not None else (grant.user.username if grant.user else "")
        CatalogChange.objects.create(
            team_id=grant.team_id, catalog_name=catalog.catalog_name, catalog_type=catalog.catalog_type,
            action=action, actor=actor, actor_name=actor.username if actor else (actor_name or "system"),
            version=catalog.version,
            changes={"privilege": grant.privilege, "securable": grant.securable,
                     "principal_type": "group" if grant.group_id else "user", "principal": principal})

    def policy_changed(self, *, team_id: int, table: str, column: str | None, change: str,
                       actor: User | None, actor_name: str | None = None) -> None:
        """Record who added, changed or removed a row filter or column mask (not its expression: members who may
        not see it read the history)."""
        catalog = Catalog.objects.filter(team_id=team_id, catalog_name=table.split(".")[0]).first()
        if catalog is None:
            return
        changes = {"table": table, "change": change, **({"column": column} if column else {})}
        CatalogChange.objects.create(
            team_id=team_id, catalog_name=catalog.catalog_name, catalog_type=catalog.catalog_type,
            action="column_mask" if column else "row_filter", actor=actor,
            actor_name=actor.username if actor else (actor_name or "system"), version=catalog.version,
            changes=changes)


def access_refused(*, team_id: int, access: AccessDocument | None, message: str, entry: str) -> int:
    """Record in the catalog history each `access` refusal `message` names, for the caller of `access` (the
    request's AccessDocument) at `entry` (one of REFUSAL_ENTRIES); the number of entries written or counted.

    Never raises: the audit must not turn a refusal into a different error (a failure is logged)."""
    found = refused_securables(message)
    if not found or access is None or not access.get("user"):
        return 0
    try:
        return _record(team_id=team_id, username=access["user"], found=found, entry=entry)
    except DatabaseError:
        logger.exception("access.refusal_not_recorded", extra={"team_id": team_id, "entry": entry})
        return 0


def _record(*, team_id: int, username: str, found: list[tuple[str, str, str]], entry: str) -> int:
    now = timezone.now()
    recent = CatalogChange.objects.filter(team_id=team_id, action=CatalogChangeAction.REFUSE, actor_name=username,
                                          time__gte=now - REFUSAL_WINDOW)
    user = User.objects.filter(username=username).first()
    written = 0
    for privilege, level, securable in dict.fromkeys(found):
        catalog = Catalog.objects.filter(team_id=team_id, catalog_name=securable.split(".")[0]).first()
        if catalog is None:
            continue  # a securable of no catalog of the team has no history (as for grants)
        changes = {"privilege": privilege, "level": level, "securable": securable, "entry": entry}
        # compared here, not with a JSON `contains` lookup: SQLite (the README's default) has none, and the window's
        # entries of one user are few (at most REFUSALS_PER_WINDOW)
        same = next((c for c in recent.filter(catalog_name=catalog.catalog_name).order_by("time")
                     if all(c.changes.get(k) == v for k, v in changes.items())), None)
        if same is not None:
            same.changes = {**same.changes, "repeats": int(same.changes.get("repeats", 1)) + 1}
            same.save(update_fields=["changes"])
        elif recent.count() >= REFUSALS_PER_WINDOW:
            logger.info("access.refusals_capped", extra={"team_id": team_id, "user": username})
            continue
        else:
            CatalogChange.objects.create(
                team_id=team_id, catalog_name=catalog.catalog_name, catalog_type=catalog.catalog_type,
                action=CatalogChangeAction.REFUSE, actor=user, actor_name=username, version=catalog.version,
                changes=changes, time=now)
        written += 1
    return written
