"""Grants, revokes, row filters and column masks in the catalog history (docs/access.md): registered with grants/hooks.py by catalogs/apps.py."""

from __future__ import annotations

from django.contrib.auth.models import User

from catalogs.models import Catalog, CatalogChange
from grants.models import Grant


class CatalogHistoryAccessHook:
    """Writes one history entry per grant or revoke on a catalog of the team (in the change's transaction)."""

    def access_changed(self, *, grant: Grant, action: str, actor: User | None) -> None:
        """Record who granted or revoked what on which securable (none for a catalog the team does not have)."""
        catalog = Catalog.objects.filter(team_id=grant.team_id, catalog_name=grant.catalog).first()
        if catalog is None:
            return
        principal = grant.group.name if grant.group is not None else (grant.user.username if grant.user else "")
        CatalogChange.objects.create(
            team_id=grant.team_id, catalog_name=catalog.catalog_name, catalog_type=catalog.catalog_type,
            action=action, actor=actor, actor_name=actor.username if actor else "system", version=catalog.version,
            changes={"privilege": grant.privilege, "securable": grant.securable,
                     "principal_type": "group" if grant.group_id else "user", "principal": principal})

    def policy_changed(self, *, team_id: int, table: str, column: str | None, change: str,
                       actor: User | None) -> None:
        """Record who added, changed or removed a row filter or column mask (not its expression: members who may
        not see it read the history)."""
        catalog = Catalog.objects.filter(team_id=team_id, catalog_name=table.split(".")[0]).first()
        if catalog is None:
            return
        changes = {"table": table, "change": change, **({"column": column} if column else {})}
        CatalogChange.objects.create(
            team_id=team_id, catalog_name=catalog.catalog_name, catalog_type=catalog.catalog_type,
            action="column_mask" if column else "row_filter", actor=actor,
            actor_name=actor.username if actor else "system", version=catalog.version, changes=changes)
