"""Celery tasks for SQL job runs and editor calls (thin: they take ids and call services)."""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.conf import settings

QUEUE = "lakeport"  # routed in config/celery.py (task_routes)


@shared_task(name="jobs.run_execute", acks_late=True, reject_on_worker_lost=True, ignore_result=True,
             bind=True)
def run_execute(self: Any, run_id: int) -> None:
    """Claim run `run_id` and execute it; a run already claimed (a duplicate message) is skipped.

    When this worker's engines are all busy the run stays QUEUED and the task is sent again after a pause.
    """
    from jobs.services.execution import run_execute as execute

    if execute(run_id=run_id, worker=self.request.hostname or "worker") == "deferred":
        self.apply_async(args=[run_id], countdown=settings.LAKEPORT_ENGINE_WAIT_SECONDS)


@shared_task(name="jobs.sql_interactive", acks_late=False, ignore_result=False, bind=True)
def sql_interactive(self: Any, team_id: int, mode: str, sql: str, limit: int = 0,
                    check_writes: str | None = None) -> dict[str, Any]:
    """Validate or preview `sql` in the team's engine for the web process (which never hosts Spark)."""
    from jobs.services.interactive import interactive_execute

    return interactive_execute(team_id=team_id, mode=mode, sql=sql, limit=limit, check_writes=check_writes)


@shared_task(name="jobs.runs_reap", acks_late=True, ignore_result=True)
def runs_reap() -> None:
    """Fail or re-queue runs whose worker died; re-enqueue QUEUED runs whose message was lost."""
    from jobs.services.runs import runs_reap as reap

    reap()
