"""Declarative apply of a whole document: its catalogs (catalogs/services/apply.py), then its jobs, schedules,
alert channels and rules, groups, grants, row filters and column masks (declarative/pipelines.py), in one transaction, so the document is
applied all or nothing."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from catalogs.services import SectionResult, catalogs_apply
from declarative.documents import catalog_entries, pipeline_sections
from declarative.pipelines import VIEW_FIELDS, entry_error, pipelines_apply, section_entries
from declarative.views import ViewChange, views_execute, views_plan
from teams.models import Team


@dataclass
class ApplyResult(SectionResult):
    """Names of the catalogs an apply created, updated, deleted (prune) and left unchanged; its other sections'."""

    dry_run: bool = False
    jobs: dict[str, list[str]] | None = None  # the same four lists for a document's `jobs` section
    schedules: dict[str, list[str]] | None = None  # …and for its `schedules` section
    materialized_views: dict[str, list[str]] | None = None  # …and `materialized_views` (prune: views a document made)
    alert_channels: dict[str, list[str]] | None = None  # …its `alert_channels` (declarative/alerting.py)
    alert_rules: dict[str, list[str]] | None = None  # …and its `alert_rules`
    groups: dict[str, list[str]] | None = None  # …its `groups` (declarative/access.py)
    grants: dict[str, list[str]] | None = None  # …and its `grants` (named `SELECT ON x TO GROUP g`)
    row_filters: dict[str, list[str]] | None = None  # …its `row_filters` (named by table)
    column_masks: dict[str, list[str]] | None = None  # …and its `column_masks` (named `table.column`)

    def as_dict(self) -> dict[str, Any]:
        """The API's response body: the sections the document had."""
        return {k: v for k, v in asdict(self).items() if v is not None}


def document_apply(
    *,
    team: Team,
    actor: User | None,
    document: Any,
    prune: bool = False,
    dry_run: bool = False,
    environ: Mapping[str, str] | None = None,
    actor_name: str | None = None,
) -> ApplyResult:
    """Make `team`'s catalogs, jobs and schedules match a parsed document (a list of catalog bodies, or an object
    with `catalogs`, `jobs` and `schedules` lists). A section that is absent is left alone; `prune` deletes only
    within the sections present. All or nothing: an invalid entry raises InvalidInput naming it and its field,
    and nothing is written; `dry_run` reports the same result and writes nothing. `environ` resolves `${VAR}` in
    catalog configurations (the CLI passes its environment; the API none, so they are refused there).
    """
    entries, pipelines = catalog_entries(document), pipeline_sections(document)
    changes: list[ViewChange] = []
    if pipelines and "materialized_views" in pipelines:  # views with a query: created/redefined/pruned by Spark
        changes = views_plan(team=team, prune=prune, fail=entry_error,
                             entries=section_entries(pipelines["materialized_views"], "materialized_views",
                                                     VIEW_FIELDS))
    planned = {c.name: c.action for c in changes}
    if changes:
        # the whole document is validated first, so a bad entry anywhere runs no Spark and changes nothing
        checked = _apply(team=team, actor=actor, entries=entries, pipelines=pipelines, prune=prune, dry_run=True,
                         environ=environ, actor_name=actor_name, planned=planned)
        if dry_run:
            return checked
        views_execute(team=team, actor=actor if getattr(actor, "is_authenticated", False) else None,
                      changes=changes, fail=entry_error)
    return _apply(team=team, actor=actor, entries=entries, pipelines=pipelines, prune=prune, dry_run=dry_run,
                  environ=environ, actor_name=actor_name, planned=planned)


def _apply(*, team: Team, actor: User | None, entries: Any, pipelines: Any, prune: bool, dry_run: bool,
           environ: Mapping[str, str] | None, actor_name: str | None, planned: Mapping[str, str]) -> ApplyResult:
    result = ApplyResult(dry_run=dry_run)
    with transaction.atomic():
        if entries is not None or not pipelines:  # a document of only jobs/schedules leaves the catalogs alone
            catalogs = catalogs_apply(team=team, actor=actor, entries=entries, prune=prune, dry_run=dry_run,
                                      environ=environ, actor_name=actor_name)
            result.created, result.updated = catalogs.created, catalogs.updated
            result.deleted, result.unchanged = catalogs.deleted, catalogs.unchanged
        if pipelines:
            applied = pipelines_apply(team=team, actor=actor, sections=pipelines, prune=prune, dry_run=dry_run,
                                      environ=environ, planned_views=planned,
                                      operator=actor_name if actor is None else None)
            result.jobs, result.schedules = applied.get("jobs"), applied.get("schedules")
            result.materialized_views = applied.get("materialized_views")
            result.alert_channels, result.alert_rules = applied.get("alert_channels"), applied.get("alert_rules")
            result.groups, result.grants = applied.get("groups"), applied.get("grants")
            result.row_filters, result.column_masks = applied.get("row_filters"), applied.get("column_masks")
    return result
