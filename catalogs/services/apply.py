"""Declarative apply: make a team's catalogs match a document, all or nothing."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

import yaml
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from catalogs.models import Catalog
from catalogs.services.audit import actor_label
from catalogs.services.crud import catalog_differs, catalog_insert, catalog_overwrite, catalog_remove
from catalogs.services.spec import (
    CatalogSpec,
    InvalidInput,
    catalog_spec_build,
    field_paths,
    find_env_refs,
    resolve_env_refs,
)
from schedules.services.apply import SectionResult, pipelines_apply
from teams.models import Team

logger = logging.getLogger("lakeport.catalogs")


@dataclass
class ApplyResult(SectionResult):
    """Names of the catalogs an apply created, updated, deleted (prune) and left unchanged; its other sections'."""

    dry_run: bool = False
    jobs: dict[str, list[str]] | None = None  # the same four lists for a document's `jobs` section
    schedules: dict[str, list[str]] | None = None  # …and for its `schedules` section

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}


class _NoAliasLoader(yaml.SafeLoader):
    """Safe YAML without anchors/aliases: a small document must not expand into a huge one."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            raise yaml.composer.ComposerError(None, None, "YAML aliases (*name) are not allowed",
                                              self.peek_event().start_mark)
        return super().compose_node(parent, index)


class DocumentError(ValueError):
    """A declarative document that is not valid YAML/JSON; the message quotes no part of it."""


def load_apply_document(text: str) -> Any:
    """Parse a declarative document (YAML or JSON, which is YAML). Errors give line and column, never content
    (the document may hold secrets)."""
    try:
        return yaml.load(text, Loader=_NoAliasLoader)  # noqa: S506 (a SafeLoader subclass)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        raise DocumentError(f"Invalid YAML{where}: {exc.problem or exc.context or 'syntax error'}.") from None
    except yaml.YAMLError:
        raise DocumentError("Invalid YAML.") from None
    except RecursionError:
        raise DocumentError("Invalid YAML: the document is nested too deeply.") from None


def apply_document_entries(document: Any) -> Any:
    """The catalog list of a declarative document: the document itself when it is a list, else its `catalogs`;
    None for a document of only jobs/schedules (its catalogs are left alone)."""
    if isinstance(document, Mapping) and "catalogs" in document:
        return document["catalogs"]
    if isinstance(document, Mapping) and ("jobs" in document or "schedules" in document):
        return None
    return document


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
    actor: AbstractBaseUser | None,
    entries: Any,
    prune: bool = False,
    dry_run: bool = False,
    environ: Mapping[str, str] | None = None,
    actor_name: str | None = None,
    pipelines: Mapping[str, Any] | None = None,
) -> ApplyResult:
    """Make `team`'s catalogs match `entries` (catalog bodies as in the API): create the missing ones, update the
    ones that differ and, with `prune`, delete the ones not listed. All or nothing: one invalid entry raises
    InvalidInput naming the entry and field, and nothing is written. `dry_run` reports the same result without
    writing. An entry that omits a secret keeps the stored one. `${VAR}` references in configurations are
    resolved from `environ` (the CLI passes its environment); without `environ` they are refused.
    `pipelines` holds the document's `jobs`/`schedules` sections (schedules/services/apply.py), applied in the
    same transaction; `entries=None` with pipelines leaves the catalogs alone.
    """
    if entries is None and pipelines:
        entries, manage_catalogs = [], False
    else:
        manage_catalogs = True
    if not isinstance(entries, list):
        raise InvalidInput("Expected a list of catalogs (or an object with a 'catalogs' list).",
                           {"catalogs": ["Expected a list of catalog objects."]})
    label = actor_name or actor_label(actor, "system")
    result = ApplyResult(dry_run=dry_run)
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
        if prune and manage_catalogs:
            listed = {spec.name for spec in specs}
            for name in sorted(set(existing) - listed):
                result.deleted.append(name)
                if not dry_run:
                    catalog_remove(catalog=existing[name], actor=actor, actor_name=label)
        if pipelines:
            applied = pipelines_apply(team=team, actor=actor, sections=pipelines, prune=prune, dry_run=dry_run)
            result.jobs, result.schedules = applied.get("jobs"), applied.get("schedules")
    for names in (result.created, result.updated, result.deleted, result.unchanged):
        names.sort()
    # LogRecord has its own `created`: count keys carry a suffix.
    logger.info("catalogs.applied", extra={"team": team.name, "dry_run": dry_run,
                                           "created_count": len(result.created),
                                           "updated_count": len(result.updated),
                                           "deleted_count": len(result.deleted)})
    return result
