"""What refreshes a materialized view by itself (docs/materialized-views.md): its `SCHEDULE CRON`, kept as a
schedule of the view's refresh job while the view is saved with it, and `REFRESH ON COMMIT`, a refresh run queued
after a run that committed to one of its sources — debounced per view: at most one queued refresh, and a commit
while one runs asks for exactly one more after it."""

from __future__ import annotations

import logging

from django.db import transaction

from catalogs.models import MaterializedView, MaterializedViewRefresh
from core.errors import InvalidInput
from jobs.models import JobRun, RunStatus, SqlJob
from jobs.services.runs import run_submit
from jobs.services.view_refresh import view_refresh_job
from lakeport_engine.matviews import ViewStoreError
from lineage.models import DatasetAlias, Direction, RunEdge
from schedules.models import Schedule
from schedules.services.schedules import schedule_create, schedule_update

logger = logging.getLogger("lakeport.schedules")


def _qualified(view: MaterializedView) -> str:
    return f"{view.catalog.catalog_name}.{view.database}.{view.name}"


# ---- SCHEDULE CRON ---------------------------------------------------------------------------------------
def view_schedule_sync(*, view: MaterializedView) -> Schedule | None:
    """Make the view's schedule match its definition: created for `SCHEDULE CRON`, updated when the cron or time
    zone changed, deleted for manual/on-commit refresh. A cron the schedules refuse (e.g. firing more often than
    the team may) is a ViewStoreError, so the statement fails and the definition is not saved."""
    existing = Schedule.objects.filter(materialized_view=view).first()
    if view.refresh_mode != MaterializedViewRefresh.SCHEDULE or not view.schedule_cron:
        if existing is not None:
            existing.delete()
        return None
    time_zone = view.schedule_timezone or "UTC"
    if existing is not None and (existing.cron, existing.time_zone) == (view.schedule_cron, time_zone):
        return existing  # a refresh saving its new sources: nothing about the schedule changed
    job = view_refresh_job(view=view)
    try:
        if existing is not None:
            return schedule_update(schedule=existing, data={"cron": view.schedule_cron, "time_zone": time_zone,
                                                            "job": job})
        schedule = schedule_create(team=view.catalog.team, user=None, job=job, name=f"refresh {_qualified(view)}"[:200],
                                   cron=view.schedule_cron, time_zone=time_zone)
    except InvalidInput as exc:
        raise ViewStoreError(f"SCHEDULE CRON '{view.schedule_cron}' of {_qualified(view)}: "
                             + "; ".join(exc.messages())) from None
    Schedule.objects.filter(pk=schedule.pk).update(materialized_view=view)
    logger.info("schedules.view_schedule", extra={"view": _qualified(view), "schedule_id": schedule.id})
    return schedule


def view_next_refresh(*, view: MaterializedView) -> dict[str, object]:
    """The view's schedule (id) and its next tick, for the API (nulls when it has none or is paused)."""
    schedule = Schedule.objects.filter(materialized_view=view).first()
    return {"schedule_id": schedule.id if schedule else None,
            "next_refresh": schedule.next_fire_at if schedule else None}


# ---- REFRESH ON COMMIT -----------------------------------------------------------------------------------
def view_refresh_request(*, view: MaterializedView) -> str:
    """Ask for one refresh of `view`, debounced: `queued` when a refresh is already waiting to start (it will
    read the new commit), `again` when one is running (it may have read its sources already: one more follows
    it), else `submitted` (a new refresh run)."""
    with transaction.atomic():
        row = MaterializedView.objects.select_for_update().select_related("catalog").get(pk=view.pk)
        job = view_refresh_job(view=row)
        active = set(JobRun.objects.filter(job=job, status__in=(RunStatus.QUEUED, RunStatus.RUNNING))
                     .values_list("status", flat=True))
        if RunStatus.QUEUED in active:
            return "queued"
        if RunStatus.RUNNING in active:
            MaterializedView.objects.filter(pk=row.pk).update(refresh_again=True)
            return "again"
        MaterializedView.objects.filter(pk=row.pk).update(refresh_again=False)
        run = run_submit(job=job, user=None).run
    logger.info("schedules.view_refresh_on_commit", extra={"view": _qualified(row), "run_id": run.id})
    return "submitted"


def _own_view(job: SqlJob, views: list[MaterializedView]) -> MaterializedView | None:
    """The view `job` refreshes (its refresh job, incremental or FULL), if it is one."""
    for view in views:
        if job.name in (f"refresh {_qualified(view)}", f"refresh {_qualified(view)} full"):
            return view
    return None


def views_after_run(*, run: JobRun) -> list[tuple[str, str]]:
    """After a run ended: refresh the team's `ON COMMIT` views whose sources the run committed to (a version the
    view does not reflect yet) — never the view the run refreshed itself — and, if the run refreshed a view asked
    to refresh once more, that view. Returns (view, outcome) pairs."""
    job = run.job
    views = list(MaterializedView.objects.select_related("catalog").filter(catalog__team_id=job.team_id))
    if not views:
        return []
    committed: dict[str, int] = {}
    edges = RunEdge.objects.filter(run=run, direction=Direction.OUT, version__isnull=False)
    versions: dict[int, int] = {}
    for dataset_id, version in edges.values_list("dataset_id", "version"):
        versions[dataset_id] = max(versions.get(dataset_id, -1), int(version or 0))
    for dataset_id, name in DatasetAlias.objects.filter(team_id=job.team_id, dataset_id__in=versions) \
            .values_list("dataset_id", "name"):
        committed[name] = max(committed.get(name, -1), versions[dataset_id])
    own = _own_view(job, views)
    outcomes: list[tuple[str, str]] = []
    for view in views:
        if view == own or view.refresh_mode != MaterializedViewRefresh.ON_COMMIT:
            continue
        if any(int((view.sources or {}).get(name, -1)) < version for name, version in committed.items()
               if name in (view.sources or {})):
            outcomes.append((_qualified(view), view_refresh_request(view=view)))
    if own is not None and MaterializedView.objects.filter(pk=own.pk, refresh_again=True).exists():
        outcomes.append((_qualified(own), view_refresh_request(view=own)))
    return outcomes
