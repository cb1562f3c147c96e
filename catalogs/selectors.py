"""Reads of catalogs: one catalog, filtered lists, the audit trail and the catalog types' form schemas."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Count, F, Q, QuerySet, Window

from catalogs.models import Catalog, CatalogChange
from catalogs.types import CATALOG_TYPES
from core.errors import NotFound
from grants.selectors import access_policy
from lakeport_engine.access import BROWSE, AccessPolicy
from teams.models import Team


def catalog_get(*, team: Team, name: str) -> Catalog:
    """The team's catalog named `name`; another team's or a missing one raises NotFound (→ 404)."""
    catalog = Catalog.objects.filter(team=team, catalog_name=name).select_related("user").first()
    if catalog is None:
        raise NotFound(f"No catalog named '{name}' in team '{team.name}'.")
    return catalog


def catalog_browsable(*, team: Team, name: str, user: User | AnonymousUser, database: str | None = None,
                      table: str | None = None) -> tuple[Catalog, AccessPolicy]:
    """The team's catalog `name` if the caller may BROWSE it (and `database`, `table` below it), with their
    privileges to filter lists by (docs/access.md). What they may not browse is a 404 worded as for a missing
    object, so the browser never tells a hidden table from one that does not exist."""
    catalog = catalog_get(team=team, name=name)
    policy = access_policy(team=team, user=user)
    target = tuple(p for p in (name, database, table) if p is not None)
    if not policy.allows(BROWSE, target):
        if len(target) == 1:
            raise NotFound(f"No catalog named '{name}' in team '{team.name}'.")
        raise NotFound(f"No {'table' if table is not None else 'database'} '{'.'.join(target[1:])}' in catalog "
                       f"'{name}'.")
    return catalog, policy


def catalog_hidden(*, team: Team, user: User | AnonymousUser) -> list[str]:
    """The governed catalogs the caller may not BROWSE (docs/access.md): left out of the catalog list."""
    policy = access_policy(team=team, user=user)
    return sorted(c for c in policy.governed if not policy.allows(BROWSE, (c,)))


def catalog_list(
    *, team: Team, catalog_type: str | None = None, name_prefix: str | None = None, search: str | None = None,
    hidden: Sequence[str] = (),
) -> QuerySet[Catalog]:
    """The team's catalogs by name (without `hidden` ones), with the users who created and last changed them joined
    in (one query per page however large the page)."""
    qs = Catalog.objects.filter(team=team).select_related("user", "created_by").order_by("catalog_name")
    if hidden:
        qs = qs.exclude(catalog_name__in=hidden)
    if catalog_type:
        qs = qs.filter(catalog_type=catalog_type)
    if name_prefix:
        qs = qs.filter(catalog_name__startswith=name_prefix)
    if search:
        qs = qs.filter(Q(catalog_name__icontains=search) | Q(description__icontains=search))
    return qs


# A listing row: the API body's columns, with the two user names joined in.
CATALOG_ROW_FIELDS = ("catalog_name", "catalog_type", "description", "configuration", "version", "create_time",
                      "update_time")


def catalog_rows(
    *,
    team: Team,
    offset: int,
    limit: int,
    catalog_type: str | None = None,
    name_prefix: str | None = None,
    search: str | None = None,
    hidden: Sequence[str] = (),
) -> tuple[list[dict[str, Any]], int]:
    """One page of the team's catalogs as plain rows, and the total, in one query.

    Rows are dicts (`CATALOG_ROW_FIELDS` + `created_by_name`, `updated_by_name`): a 1,000-row page costs JSON
    work, not 3,000 model instances. The total rides along as `COUNT(*) OVER ()`; only an empty page past the
    first needs a separate COUNT.
    """
    qs = catalog_list(team=team, catalog_type=catalog_type, name_prefix=name_prefix, search=search, hidden=hidden)
    rows = list(
        qs.values(*CATALOG_ROW_FIELDS, created_by_name=F("created_by__username"), updated_by_name=F("user__username"))
        .annotate(total_count=Window(Count("id")))[offset : offset + limit]
    )
    if rows:
        return rows, rows[0]["total_count"]
    return rows, (qs.count() if offset else 0)


def catalog_history(*, team: Team, name: str) -> QuerySet[CatalogChange]:
    """The audit trail of the catalog `name`, newest first; it outlives the catalog. NotFound when the name has
    neither a catalog nor any history in `team`."""
    qs = CatalogChange.objects.filter(team=team, catalog_name=name).order_by("-time", "-id")
    if not qs.exists() and not Catalog.objects.filter(team=team, catalog_name=name).exists():
        raise NotFound(f"No catalog named '{name}' in team '{team.name}'.")
    return qs


@lru_cache(maxsize=4)
def _type_schemas(keys: tuple[str, ...]) -> tuple[dict[str, Any], ...]:
    types = []
    for key in keys:
        catalog_type = CATALOG_TYPES[key]
        schema = catalog_type.config_model.model_json_schema(by_alias=True)
        types.append({"key": key, "display_name": catalog_type.display_name, "schema": schema})
    return tuple(types)


def catalog_types_list() -> list[dict[str, Any]]:
    """Every catalog type: key, display name and the JSON Schema of its configuration (hyphenated property
    names; secret fields carry `"secret": true` and `"writeOnly": true`) for the UI to render forms."""
    return copy.deepcopy(list(_type_schemas(tuple(CATALOG_TYPES))))  # keyed: a type registered later shows
