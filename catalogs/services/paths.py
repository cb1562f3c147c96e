"""Data paths belong to one team: a catalog's local paths lie under the team's roots and never overlap another
team's catalogs (the SQL guard's catalog side, issue 13)."""

from __future__ import annotations

import json

from catalogs.models import Catalog
from catalogs.services.spec import CatalogSpec, invalid
from catalogs.types.paths import LOCAL_PATH_FIELDS, check_team_path, local_paths, overlaps
from teams.models import Team


def catalog_paths_check(*, team: Team, spec: CatalogSpec) -> None:
    """Raise InvalidInput (400) when a local path of `spec` leaves the team's roots or meets another team's paths."""
    paths = local_paths(spec.catalog_type, spec.config.to_plain())
    if not paths:
        return
    errors: dict[str, list[str]] = {}
    for key, path in paths.items():
        try:
            check_team_path(path, team.name)
        except ValueError as exc:
            errors[key] = [str(exc)]
    if not errors:
        others = Catalog.objects.exclude(team=team).filter(catalog_type__in=list(LOCAL_PATH_FIELDS))
        for other in others.only("catalog_type", "configuration").iterator():
            stored = json.loads(other.configuration) if isinstance(other.configuration, str) else other.configuration
            theirs = local_paths(other.catalog_type, stored or {}).values()
            for key, path in paths.items():
                if any(overlaps(path, p) for p in theirs):
                    # one team's warehouse inside another's is a read of the other's data
                    errors[key] = ["overlaps a data directory of another team's catalog."]
    if errors:
        raise invalid({"configuration": errors})
