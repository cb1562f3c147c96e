"""Reads of catalogs."""

from __future__ import annotations

from django.http import Http404

from catalogs.models import Catalog
from teams.models import Team


def catalog_get(*, team: Team, name: str) -> Catalog:
    """The team's catalog named `name`; another team's or a missing one raises Http404 (→ 404)."""
    catalog = Catalog.objects.filter(team=team, catalog_name=name).select_related("user").first()
    if catalog is None:
        raise Http404(f"No catalog named '{name}' in team '{team.name}'.")
    return catalog
