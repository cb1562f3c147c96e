"""Celery tasks for SQL job runs (thin: they take ids and call services)."""

from __future__ import annotations

from typing import Any

from celery import shared_task

QUEUE = "lakeport"  # routed in config/celery.py (task_routes)


@shared_task(name="jobs.run_execute", acks_late=True, reject_on_worker_lost=True, ignore_result=True,
             bind=True)
def run_execute(self: Any, run_id: int) -> None:
    """Claim run `run_id` and execute it; a run already claimed (a duplicate message) is skipped."""
    from jobs.services.execution import run_execute as execute

    execute(run_id=run_id, worker=self.request.hostname or "worker")


@shared_task(name="jobs.runs_reap", acks_late=True, ignore_result=True)
def runs_reap() -> None:
    """Fail or re-queue runs whose worker died; re-enqueue QUEUED runs whose message was lost."""
    from jobs.services.runs import runs_reap as reap

    reap()
