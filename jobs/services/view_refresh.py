"""A materialized view's refresh as a platform run: one SQL job per view (`refresh <cat>.<db>.<view>`, script
`REFRESH MATERIALIZED VIEW …`), so a refresh has a run's log, lineage and retries, and the job's runs are the
view's refresh history (docs/materialized-views.md)."""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction
from rest_framework.exceptions import NotFound

from catalogs.models import MaterializedView
from jobs.models import SqlJob
from jobs.services.runs import Submission, run_submit
from teams.models import Team

REFRESH_RETRIES = 1  # a refresh killed mid-way is completed by the next one (its commit is atomic)


def view_get(*, team: Team, catalog: str, database: str, name: str) -> MaterializedView:
    """The team's view; another team's or a missing one is NotFound (404)."""
    row = MaterializedView.objects.select_related("catalog").filter(
        catalog__team=team, catalog__catalog_name=catalog, database=database, name=name).first()
    if row is None:
        raise NotFound(f"No materialized view '{catalog}.{database}.{name}' in team '{team.name}'.")
    return row


def view_refresh_job(*, view: MaterializedView, full: bool = False) -> SqlJob:
    """The view's refresh job (created on first use; FULL refreshes have their own)."""
    qualified = f"`{view.catalog.catalog_name}`.`{view.database}`.`{view.name}`"
    suffix = " full" if full else ""
    name = f"refresh {view.catalog.catalog_name}.{view.database}.{view.name}{suffix}"[:200]
    sql = f"REFRESH MATERIALIZED VIEW {qualified}{' FULL' if full else ''}"
    try:
        with transaction.atomic():
            job, _ = SqlJob.objects.get_or_create(team_id=view.catalog.team_id, name=name,
                                                  defaults={"sql": sql, "max_retries": REFRESH_RETRIES})
    except IntegrityError:  # a concurrent first refresh created it
        job = SqlJob.objects.get(team_id=view.catalog.team_id, name=name)
    if job.sql != sql:  # a job of that name edited by hand refreshes this view again
        job.sql = sql
        job.save(update_fields=["sql"])
    return job


def view_refresh_submit(*, view: MaterializedView, user: Any, full: bool = False) -> Submission:
    """Queue a run refreshing the view."""
    return run_submit(job=view_refresh_job(view=view, full=full), user=user)


def view_refresh_jobs(*, view: MaterializedView) -> list[int]:
    """Ids of the view's refresh jobs (incremental and FULL), for its refresh history."""
    prefix = f"refresh {view.catalog.catalog_name}.{view.database}.{view.name}"
    return list(SqlJob.objects.filter(team_id=view.catalog.team_id, name__in=[prefix, f"{prefix} full"])
                .values_list("id", flat=True))


def view_refresh_job_names(*, team_id: int) -> set[str]:
    """The names of the refresh jobs of the team's views (kept by the platform: `apply --prune` leaves them)."""
    names: set[str] = set()
    for catalog, database, name in MaterializedView.objects.filter(catalog__team_id=team_id).values_list(
            "catalog__catalog_name", "database", "name"):
        names |= {f"refresh {catalog}.{database}.{name}", f"refresh {catalog}.{database}.{name} full"}
    return names
