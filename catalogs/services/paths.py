"""What a catalog may reach: its local paths lie under the team's roots and never overlap another team's catalogs
(the SQL guard's catalog side, issue 13), and its servers are never the platform's own (issue 28).

The same checks run when a catalog is saved, when a configuration is tested and when an engine binds it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from catalogs.models import Catalog
from catalogs.services.spec import CatalogSpec, invalid
from catalogs.types.endpoints import EndpointRefused, catalog_endpoints, check_endpoints
from catalogs.types.paths import check_team_path, local_path_types, local_paths, overlaps
from lakeport_engine.catalog_types import DEFINITIONS
from teams.models import Team


def catalog_reach_errors(*, team: Team | str, catalog_type: str, plain: dict[str, Any],
                         endpoints: bool = True) -> dict[str, list[str]]:
    """`{field: [message]}` for every local path or (with `endpoints`) server of a configuration the team (a Team
    or its name) may not use; empty when it may use them all."""
    errors = _path_errors(team_name=team if isinstance(team, str) else team.name, catalog_type=catalog_type,
                          plain=plain)
    for endpoint in catalog_endpoints(catalog_type, plain) if endpoints else []:
        try:
            check_endpoints([endpoint])
        except EndpointRefused as exc:
            errors.setdefault(_endpoint_field(catalog_type), []).append(str(exc))
            break
    return errors


def catalog_reach_check(*, team: Team, catalog_type: str, plain: dict[str, Any]) -> None:
    """Raise InvalidInput (400) naming the field and the rule when the configuration reaches what it may not."""
    errors = catalog_reach_errors(team=team, catalog_type=catalog_type, plain=plain)
    if errors:
        raise invalid({"configuration": errors})


def catalog_bind_refusal(*, team: str, name: str, catalog_type: str, plain: dict[str, Any]) -> str | None:
    """Why an engine of team `team` must not bind its catalog `name` now (None: it may), checked by the platform
    when it hands the configuration over: the DNS answer of a host may have changed since the save."""
    errors = catalog_reach_errors(team=team, catalog_type=catalog_type, plain=plain)
    if not errors:
        return None
    field, messages = next(iter(errors.items()))
    return f"Catalog '{name}' is refused: its {field} {messages[0]}"


def catalog_paths_check(*, team: Team, spec: CatalogSpec) -> None:
    """Raise InvalidInput (400) when `spec` leaves the team's roots, meets another team's paths or a platform
    service (the name is kept for callers; it checks servers too)."""
    catalog_reach_check(team=team, catalog_type=spec.catalog_type, plain=spec.config.to_plain())


def _endpoint_field(catalog_type: str) -> str:
    definition = DEFINITIONS.get(catalog_type)
    return definition.endpoint_field if definition is not None else "non_field_errors"


def _path_errors(*, team_name: str, catalog_type: str, plain: dict[str, Any]) -> dict[str, list[str]]:
    paths = local_paths(catalog_type, plain)
    errors: dict[str, list[str]] = {}
    root = plain.get("root") if catalog_type == "files" else None
    if isinstance(root, str) and str(paths.get("root")) != os.path.normpath(root):
        # files catalogs are read without following symlinks (lakeport_engine/confined.py): say so on save already
        errors["root"] = ["must not be or pass through a symbolic link (rule: no-symlinks)."]
    for key, path in paths.items():
        try:
            check_team_path(path, team_name)
        except ValueError as exc:
            errors[key] = [str(exc)]
    if paths and not errors:
        theirs = _other_teams_paths(team_name)
        for key, path in paths.items():
            if any(overlaps(path, p) for p in theirs):
                # one team's warehouse inside another's is a read of the other's data
                errors[key] = ["overlaps a data directory of another team's catalog."]
    return errors


def _catalog_rows(**filters: Any) -> list[tuple[str, dict[str, Any]]]:
    rows = Catalog.objects.filter(catalog_type__in=local_path_types(), **filters)
    found = []
    for row in rows.only("catalog_type", "configuration").iterator():
        stored = json.loads(row.configuration) if isinstance(row.configuration, str) else row.configuration
        found.append((row.catalog_type, stored or {}))
    return found


def _other_teams_paths(team_name: str) -> list[Path]:
    rows = Catalog.objects.exclude(team__name=team_name).filter(catalog_type__in=local_path_types())
    paths: list[Path] = []
    for row in rows.only("catalog_type", "configuration").iterator():
        stored = json.loads(row.configuration) if isinstance(row.configuration, str) else row.configuration
        paths.extend(local_paths(row.catalog_type, stored or {}).values())
    return paths


def location_refusals(*, team: str, locations: list[str]) -> dict[str, str]:
    """`{location: reason}` for the table locations (URIs or paths, as a Hive metastore returns them) that team
    `team` may not read or write: the rule of a catalog's local paths (the team's roots, no other team's catalog
    paths, not the platform's data); a location on another file system only under a warehouse of the team's own
    catalogs. An engine asks this before a statement on its Hive catalog runs (lakeport_engine/locations.py)."""
    refused: dict[str, str] = {}
    theirs: list[Path] | None = None
    own_remote: list[str] | None = None
    for location in locations:
        parts = urlsplit(location)
        if parts.scheme in ("", "file"):
            path = Path(os.path.realpath(parts.path or location))
            try:
                check_team_path(path, team)
            except ValueError as exc:
                refused[location] = str(exc).rstrip(".")
                continue
            theirs = _other_teams_paths(team) if theirs is None else theirs
            if any(overlaps(path, p) for p in theirs):
                refused[location] = "it overlaps a data directory of another team's catalog"
        else:
            if own_remote is None:
                own_remote = [str(c.get("warehouse")).rstrip("/")
                              for _, c in _catalog_rows(team__name=team) if "://" in str(c.get("warehouse") or "")]
            base = location.rstrip("/")
            if not any(base == w or base.startswith(w + "/") for w in own_remote):
                refused[location] = "it is not on this machine nor under a warehouse of this team's catalogs"
    return refused
