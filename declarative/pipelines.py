"""Declarative apply of jobs and schedules ("pipelines as code"), declared beside catalogs in one document:

    catalogs: [...]
    jobs:      [{name, sql, parameters, spark_conf, default_catalog, engine, max_retries}]
    schedules: [{name, job (a job name), cron, time_zone, enabled, catchup, concurrency, max_retries,
                 retry_backoff_seconds, parameters}]
    materialized_views: [{name (catalog.database.view), refresh (manual | on_commit | schedule), cron, time_zone}]
    alert_channels: [...], alert_rules: [...]   (declarative/alerting.py)
    groups: [...], grants: [...], row_filters: [...], column_masks: [...]   (declarative/access.py)

A `materialized_views` entry sets how a view is refreshed (as ALTER MATERIALIZED VIEW); one with a `query` also
declares the view itself — created, redefined or (prune) dropped by runs of the team's engine before the rest is
applied (declarative/views.py). An unknown view without a query is refused. Prune of `jobs`/`schedules` leaves the
views' refresh jobs and schedules, which the views own.

Called by document_apply (declarative/services.py) inside its transaction, so the whole document is all or
nothing. A section that is absent is left alone; `prune` deletes only within the sections the document has. `dry_run` applies in a
savepoint and rolls it back, so it reports exactly what would change, validation included.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from catalogs.models import MaterializedView
from catalogs.services import SectionResult
from catalogs.services.materialized_views import view_refresh_set
from core.errors import Conflict, InvalidInput
from declarative.access import GROUP_FIELDS, apply_column_masks, apply_grants, apply_groups, apply_row_filters
from declarative.alerting import CHANNEL_FIELDS, RULE_FIELDS, apply_channels, apply_rules
from declarative.views import APPLY_JOB as APPLY_VIEWS_JOB
from jobs.models import Engine, JobKind, SqlJob
from jobs.services.jobs import clean_spark_conf, job_create, job_delete, job_update
from jobs.services.parameters import ParameterError, clean_declarations
from jobs.services.view_refresh import view_refresh_job_names
from lakeport_engine.matviews import REFRESH_MODES, ViewStoreError
from schedules.cron import ScheduleSpecError, check_cron, zone
from schedules.models import CatchUp, Concurrency, Schedule
from schedules.services.schedules import schedule_create, schedule_delete, schedule_update
from teams.models import Team

JOB_FIELDS = {"name", "kind", "sql", "parameters", "spark_conf", "default_catalog", "engine", "max_retries"}
SCHEDULE_FIELDS = {"name", "job", "cron", "time_zone", "enabled", "catchup", "concurrency", "max_retries",
                   "retry_backoff_seconds", "parameters"}
VIEW_FIELDS = {"name", "refresh", "cron", "time_zone", "query", "partitioned_by"}


def entry_error(label: str, name: str | None, error: Exception) -> InvalidInput:
    """The 400 for a bad entry of a section: `label` (`jobs[2]`) and name, the field and the rule."""
    details: Any
    if isinstance(error, (ParameterError, ScheduleSpecError)):
        details, message = {error.field: [error.message]}, error.message
    elif isinstance(error, InvalidInput):
        details, message = error.details, error.summary()
    else:
        details, message = {"non_field_errors": [str(error)]}, str(error)
    where = f"{label} ({name})" if name else label
    return InvalidInput(f"Nothing was applied; invalid entry {where}: {message}", {label: details})


def section_entries(section: Any, label: str, allowed: set[str]) -> list[dict[str, Any]]:
    """A section's entries, each an object with a unique `name` and only `allowed` fields (else a 400)."""
    if not isinstance(section, list):
        raise InvalidInput(f"'{label}' must be a list.", {label: ["Expected a list."]})
    seen: set[str] = set()
    for index, entry in enumerate(section):
        where = f"{label}[{index}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) or not entry["name"]:
            raise InvalidInput(f"{where} needs a 'name'.", {where: {"name": ["This field is required."]}})
        unknown = sorted(set(entry) - allowed)
        if unknown:
            raise InvalidInput(f"{where} ({entry['name']}) has unknown fields: {', '.join(unknown)}.",
                               {where: {k: ["Unknown field."] for k in unknown}})
        if entry["name"] in seen:
            raise InvalidInput(f"{where}: '{entry['name']}' appears more than once.",
                               {where: {"name": ["This name appears more than once in the document."]}})
        seen.add(entry["name"])
    return section


def _job_wanted(entry: dict[str, Any]) -> dict[str, Any]:
    return {"sql": entry.get("sql", ""), "parameters": clean_declarations(entry.get("parameters")),
            "spark_conf": clean_spark_conf(entry.get("spark_conf")),
            "default_catalog": entry.get("default_catalog", ""), "engine": entry.get("engine", Engine.DEFAULT),
            "max_retries": entry.get("max_retries", 0), "kind": entry.get("kind", JobKind.BATCH)}


def _job_update(job: SqlJob, data: dict[str, Any]) -> SqlJob:
    return job_update(job=job, data=data)


def _schedule_update(schedule: Schedule, data: dict[str, Any]) -> Schedule:
    return schedule_update(schedule=schedule, data=data)


def _apply_jobs(team: Team, actor: User | None, entries: list[dict[str, Any]], prune: bool,
                result: SectionResult) -> None:
    existing = {j.name: j for j in SqlJob.objects.select_for_update().filter(team=team)}
    for index, entry in enumerate(entries):
        name = entry["name"]
        try:
            wanted = _job_wanted(entry)
            if wanted["engine"] not in Engine.values:
                raise InvalidInput.of({"engine": [f"Use one of {', '.join(Engine.values)}."]})
            if wanted["kind"] not in JobKind.values:
                raise InvalidInput.of({"kind": [f"Use one of {', '.join(JobKind.values)}."]})
            job = existing.get(name)
            result.upsert(name, job, wanted, create=partial(job_create, team=team, user=actor, name=name, **wanted),
                          update=partial(_job_update, data=wanted))
        except (InvalidInput, TypeError) as exc:
            raise entry_error(f"jobs[{index}]", name, exc) from None
    if prune:
        # the views' own jobs stay (their refresh jobs, and the job that applies documents' views)
        listed = {e["name"] for e in entries} | view_refresh_job_names(team_id=team.id) | {APPLY_VIEWS_JOB}
        for name in sorted(set(existing) - listed):
            try:
                job_delete(job=existing[name])
            except Conflict as exc:
                raise InvalidInput(f"Nothing was applied; job '{name}' would be pruned but {exc.message}",
                                   {"jobs": {name: [exc.message]}}) from None
            result.deleted.append(name)


def _apply_schedules(team: Team, actor: User | None, entries: list[dict[str, Any]], prune: bool,
                     result: SectionResult) -> None:
    existing = {s.name: s for s in Schedule.objects.select_for_update(of=("self",)).select_related("job")
                .filter(team=team, materialized_view__isnull=True)}  # a view's schedule is its SCHEDULE CRON's
    jobs = {j.name: j for j in SqlJob.objects.filter(team=team)}
    for index, entry in enumerate(entries):
        name = entry["name"]
        label = f"schedules[{index}]"
        try:
            job = jobs.get(entry.get("job", ""))
            if job is None:
                raise InvalidInput.of({"job": [f"No job named '{entry.get('job')}' in team '{team.name}'."]})
            wanted = {"job": job, "cron": str(entry.get("cron", "")).strip(), "time_zone": entry.get("time_zone", "UTC"),
                      "enabled": bool(entry.get("enabled", True)), "catchup": entry.get("catchup", CatchUp.SKIP),
                      "concurrency": entry.get("concurrency", Concurrency.SKIP),
                      "max_retries": int(entry.get("max_retries", 0)),
                      "retry_backoff_seconds": int(entry.get("retry_backoff_seconds", 60)),
                      "parameters": entry.get("parameters") or {}}
            schedule = existing.get(name)
            result.upsert(name, schedule, wanted,
                          create=partial(schedule_create, team=team, user=actor, name=name, **wanted),
                          update=partial(_schedule_update, data=wanted))
        except (InvalidInput, TypeError, ValueError) as exc:
            raise entry_error(label, name, exc) from None
    if prune:
        listed = {e["name"] for e in entries}
        for name in sorted(set(existing) - listed):
            schedule_delete(schedule=existing[name])
            result.deleted.append(name)


def _view_wanted(entry: dict[str, Any]) -> dict[str, str]:
    refresh = entry.get("refresh", "manual")
    if refresh not in REFRESH_MODES:
        raise InvalidInput.of({"refresh": [f"Use one of {', '.join(REFRESH_MODES)}."]})
    cron, time_zone = str(entry.get("cron") or "").strip(), str(entry.get("time_zone") or "")
    if refresh != "schedule" and (cron or time_zone):
        raise InvalidInput.of({"cron": ["Only a view refreshed on a schedule (refresh: schedule) has a cron."]})
    if refresh == "schedule":
        if not cron:
            raise InvalidInput.of({"cron": ["A view refreshed on a schedule needs a cron."]})
        check_cron(cron)
        zone(time_zone or "UTC")
    return {"refresh_mode": refresh, "schedule_cron": cron, "schedule_timezone": time_zone}


def _set_view(view: MaterializedView, data: dict[str, str]) -> None:
    try:
        view_refresh_set(view=view, **data)
    except ViewStoreError as exc:
        raise InvalidInput.of({"cron": [str(exc)]}) from None


def _apply_views(team: Team, entries: list[dict[str, Any]], result: SectionResult,
                 planned: Mapping[str, str]) -> None:
    views = {f"{v.catalog.catalog_name}.{v.database}.{v.name}": v for v in
             MaterializedView.objects.select_for_update(of=("self",)).select_related("catalog")
             .filter(catalog__team=team)}
    for index, entry in enumerate(entries):
        name = entry["name"]
        try:
            view = views.get(name)
            wanted = _view_wanted(entry)
            if name in planned:  # created or redefined by the document's Spark part (declarative/views.py)
                if view is not None and planned[name] == "replace":
                    result.updated.append(name)
                else:
                    result.created.append(name)
                continue
            if view is None:
                raise InvalidInput.of({"name": [
                    f"No materialized view '{name}' in team '{team.name}'; give its query to create it, or create "
                    "it with CREATE MATERIALIZED VIEW."]})
            result.upsert(name, view, wanted, create=lambda: None, update=partial(_set_view, data=wanted))
        except (InvalidInput, TypeError, ValueError) as exc:
            raise entry_error(f"materialized_views[{index}]", name, exc) from None
    result.deleted.extend(sorted(n for n, action in planned.items() if action == "drop"))


def pipelines_apply(*, team: Team, actor: User | None, sections: Mapping[str, Any], prune: bool = False,
                    dry_run: bool = False, environ: Mapping[str, str] | None = None,
                    planned_views: Mapping[str, str] | None = None,
                    operator: str | None = None) -> dict[str, dict[str, list[str]]]:
    """Make `team`'s jobs and schedules match the document's `jobs`/`schedules` sections (see the module doc).
    `planned_views` (view → create | replace | drop) are the views the document's Spark part makes or drops;
    `operator` names the shell's operator when there is no `actor` (grants and revokes are recorded by it).

    Raises InvalidInput naming the entry and field; the caller's transaction then writes nothing.
    """
    results: dict[str, SectionResult] = {}
    with transaction.atomic():
        actor = actor if getattr(actor, "is_authenticated", False) else None
        if "jobs" in sections:
            results["jobs"] = SectionResult()
            _apply_jobs(team, actor, section_entries(sections["jobs"], "jobs", JOB_FIELDS), prune, results["jobs"])
        if "schedules" in sections:
            results["schedules"] = SectionResult()
            _apply_schedules(team, actor, section_entries(sections["schedules"], "schedules", SCHEDULE_FIELDS), prune,
                             results["schedules"])
        if "materialized_views" in sections:
            results["materialized_views"] = SectionResult()
            _apply_views(team, section_entries(sections["materialized_views"], "materialized_views", VIEW_FIELDS),
                         results["materialized_views"], planned_views or {})
        if "alert_channels" in sections:  # declarative/alerting.py; before the rules that name them
            results["alert_channels"] = SectionResult()
            apply_channels(team, section_entries(sections["alert_channels"], "alert_channels", CHANNEL_FIELDS), prune,
                           results["alert_channels"], environ, entry_error)
        if "alert_rules" in sections:
            results["alert_rules"] = SectionResult()
            apply_rules(team, section_entries(sections["alert_rules"], "alert_rules", RULE_FIELDS), prune,
                        results["alert_rules"], entry_error)
        if "groups" in sections:  # declarative/access.py; before the grants that name them
            results["groups"] = SectionResult()
            apply_groups(team, section_entries(sections["groups"], "groups", GROUP_FIELDS), prune, results["groups"],
                         actor, operator, entry_error)
        if "grants" in sections:
            results["grants"] = SectionResult()
            apply_grants(team, sections["grants"], prune, results["grants"], actor, operator, entry_error)
        if "row_filters" in sections:  # after grants: the same MANAGE rule, through the row policy services
            results["row_filters"] = SectionResult()
            apply_row_filters(team, sections["row_filters"], prune, results["row_filters"], actor, operator,
                              entry_error)
        if "column_masks" in sections:
            results["column_masks"] = SectionResult()
            apply_column_masks(team, sections["column_masks"], prune, results["column_masks"], actor, operator,
                               entry_error)
        if dry_run:
            transaction.set_rollback(True)  # report, then undo: the savepoint keeps the outer transaction
    return {name: r.sorted() for name, r in results.items()}
