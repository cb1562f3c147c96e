"""The catalogs section of a declarative apply: make a team's catalogs match a list of catalog bodies, all or nothing.

The document as a whole (parsing, its jobs and schedules sections, the one transaction) is declarative/'s."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, TypeVar

from django.contrib.auth.models import User
from django.db import transaction

from catalogs.models import Catalog
from catalogs.services.audit import actor_label
from catalogs.services.crud import catalog_differs, catalog_insert, catalog_overwrite, catalog_remove
from catalogs.services.spec import (
    CatalogSpec,
    catalog_spec_build,
    field_paths,
    find_env_refs,
    resolve_env_refs,
)
from core.errors import InvalidInput
from teams.models import Team

logger = logging.getLogger("lakeport.catalogs")

T = TypeVar("T")


@dataclass
class SectionResult:
    """Names created, updated, deleted (prune) and unchanged in one section of a declarative document (its
    catalogs here; declarative/pipelines.py records its jobs and schedules the same way)."""

    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)

    def upsert(self, name: str, current: T | None, wanted: Mapping[str, Any], *, create: Callable[[], object],
               update: Callable[[T], object]) -> None:
        """`create()` when the entry is missing, `update(current)` when a wanted field differs; record which (or
        neither)."""
        if current is None:
            create()
            self.created.append(name)
        elif any(getattr(current, k) != v for k, v in wanted.items()):
            update(current)
            self.updated.append(name)
        else:
            self.unchanged.append(name)

    def sorted(self) -> dict[str, list[str]]:
        """The four lists, each sorted, by name."""
        return {k: sorted(v) for k, v in asdict(self).items()}


def _entry_with_env(entry: dict[str, Any], environ: Mapping[str, str] | None) -> tuple[dict[str, Any], dict[str, Any]]:
    refs = find_env_refs(entry.get("configuration"))
    if not refs:
        return entry, {}
    if environ is None:
        # The server's environment is not the caller's: resolving it here would leak server secrets.
        message = "Environment references like ${VAR} are resolved only by `manage.py apply`; send the value itself."
        return entry, {"configuration": {path: [message] for path, _ in refs}}
    missing = {path: [f"Environment variable {var} is not set."] for path, var in refs if var not in environ}
    if missing:
        return entry, {"configuration": missing}
    return {**entry, "configuration": resolve_env_refs(entry["configuration"], environ)}, {}


def _validate(entries: list[Any], existing: dict[str, Catalog], environ: Mapping[str, str] | None) -> list[CatalogSpec]:
    specs: list[CatalogSpec] = []
    errors: dict[str, Any] = {}
    names: dict[str, str] = {}
    seen: set[str] = set()
    for index, entry in enumerate(entries):
        label = f"catalogs[{index}]"
        if not isinstance(entry, dict):
            errors[label] = {"non_field_errors": ["Expected a catalog object."]}
            continue
        name = entry.get("catalog_name")
        if isinstance(name, str):
            names[label] = name
            if name in seen:
                errors[label] = {"catalog_name": ["This name appears more than once in the document."]}
                continue
            seen.add(name)
        entry, env_errors = _entry_with_env(entry, environ)
        if env_errors:
            errors[label] = env_errors
            continue
        try:
            specs.append(catalog_spec_build(body=entry, stored=existing.get(name) if isinstance(name, str) else None))
        except InvalidInput as exc:
            errors[label] = exc.details
    if errors:
        parts = [f"{label}{f' ({names[label]})' if label in names else ''}: {', '.join(field_paths(detail))}"
                 for label, detail in errors.items()]
        raise InvalidInput(f"Nothing was applied; invalid entries: {'; '.join(parts)}.", errors)
    return specs


def catalogs_apply(
    *,
    team: Team,
    actor: User | None,
    entries: Any,
    prune: bool = False,
    dry_run: bool = False,
    environ: Mapping[str, str] | None = None,
    actor_name: str | None = None,
) -> SectionResult:
    """Make `team`'s catalogs match `entries` (catalog bodies as in the API): create the missing ones, update the
    ones that differ and, with `prune`, delete the ones not listed. All or nothing: one invalid entry raises
    InvalidInput naming the entry and field, and nothing is written. `dry_run` reports the same result without
    writing. An entry that omits a secret keeps the stored one. `${VAR}` references in configurations are
    resolved from `environ` (the CLI passes its environment); without `environ` they are refused.
    """
    if not isinstance(entries, list):
        raise InvalidInput("Expected a list of catalogs (or an object with a 'catalogs' list).",
                           {"catalogs": ["Expected a list of catalog objects."]})
    label = actor_name or actor_label(actor, "system")
    result = SectionResult()
    with transaction.atomic():
        # Lock the team's catalogs so the plan and the writes see the same state.
        existing = {
            c.catalog_name: c
            for c in Catalog.objects.select_for_update(of=("self",)).select_related("team", "user", "created_by")
            .filter(team=team)
        }
        specs = _validate(entries, existing, environ)
        for spec in specs:
            stored = existing.get(spec.name)
            if stored is None:
                result.created.append(spec.name)
                if not dry_run:
                    catalog_insert(team=team, spec=spec, actor=actor, actor_name=label)
            elif (catalog_differs(catalog=stored, spec=spec) if dry_run
                  else catalog_overwrite(catalog=stored, spec=spec, actor=actor, actor_name=label)):
                result.updated.append(spec.name)
            else:
                result.unchanged.append(spec.name)
        if prune:
            listed = {spec.name for spec in specs}
            for name in sorted(set(existing) - listed):
                result.deleted.append(name)
                if not dry_run:
                    catalog_remove(catalog=existing[name], actor=actor, actor_name=label)
    for names in (result.created, result.updated, result.deleted, result.unchanged):
        names.sort()
    # LogRecord has its own `created`: count keys carry a suffix.
    logger.info("catalogs.applied", extra={"team": team.name, "dry_run": dry_run,
                                           "created_count": len(result.created),
                                           "updated_count": len(result.updated),
                                           "deleted_count": len(result.deleted)})
    return result
