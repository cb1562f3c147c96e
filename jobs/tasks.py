"""Celery tasks for SQL job runs and editor calls (thin: they take ids and call services).

Services enqueue these by name (`send_task`), so this module may import them at the top.
"""

from __future__ import annotations

import threading
from typing import Any

from celery import Task, shared_task
from django.conf import settings

from jobs.services.execution import run_execute as execute_run
from jobs.services.interactive import interactive_execute
from jobs.services.live_preview import live_preview_execute
from jobs.services.runs import RUN_EXECUTE_TASK, run_defer, run_waiting
from jobs.services.runs import runs_reap as reap_runs
from jobs.services.warmup import engine_warm


@shared_task(name=RUN_EXECUTE_TASK, acks_late=True, reject_on_worker_lost=True, ignore_result=True,
             bind=True)
def run_execute(self: Task, run_id: int) -> None:
    """Claim run `run_id` and execute it; a run already claimed (a duplicate message) is skipped.

    When this worker's engines are all busy, or the run's team has its maximum of runs RUNNING, the run stays
    QUEUED and the task is sent again after a pause: the thread goes on to another team's run instead of waiting.
    """
    status = execute_run(run_id=run_id, worker=self.request.hostname or "worker")
    if status == "deferred":
        run_defer(run_id=run_id, countdown=settings.LAKEPORT_ENGINE_WAIT_SECONDS)
    elif status is None and run_waiting(run_id=run_id):  # the claim was refused: the team is at its limit
        run_defer(run_id=run_id, countdown=settings.LAKEPORT_TEAM_SLOT_WAIT_SECONDS)


@shared_task(name="jobs.sql_interactive", acks_late=False, ignore_result=False, bind=True)
def sql_interactive(self: Task, team_id: int, mode: str, sql: str, limit: int = 0,
                    check_writes: str | None = None, give_up_at: float | None = None,
                    default_catalog: str = "", snapshot: dict[str, Any] | None = None,
                    syntax_while_starting: bool = False, access: dict[str, Any] | None = None) -> dict[str, Any]:
    """Validate or preview `sql` in the team's engine for the web process (which never hosts Spark); given up at
    `give_up_at` (epoch seconds), when the web stops waiting (the message also expires then). `snapshot`: a
    preview's consistent-read switch; `access` is the caller's privileges (docs/access.md), computed by the web
    process."""
    return interactive_execute(team_id=team_id, mode=mode, sql=sql, limit=limit, check_writes=check_writes,
                               give_up_at=give_up_at, default_catalog=default_catalog, snapshot=snapshot,
                               syntax_while_starting=syntax_while_starting,
                               access=access)  # type: ignore[arg-type]


@shared_task(name="jobs.engine_warm", acks_late=False, ignore_result=True)
def engine_warm_task(team_id: int) -> None:
    """Start the team's engine before its first editor statement (jobs/services/warmup.py), in a thread of its own:
    the editor thread that took this task is free at once for the validations that arrive during the start."""
    threading.Thread(target=engine_warm, kwargs={"team_id": team_id}, daemon=True,
                     name=f"lakeport-warm-{team_id}").start()


@shared_task(name="jobs.sql_live_preview", acks_late=False, ignore_result=False)
def sql_live_preview(preview_id: str, team_id: int, sql: str, seconds: float, max_rows: int,
                     default_catalog: str = "", access: dict[str, Any] | None = None) -> dict[str, Any]:
    """A live preview of a streaming statement in the team's engine; rows go to the result backend as they come.
    `access` is the caller's privileges (docs/access.md), computed by the web process."""
    return live_preview_execute(preview_id=preview_id, team_id=team_id, sql=sql, seconds=seconds, max_rows=max_rows,
                                default_catalog=default_catalog, access=access)  # type: ignore[arg-type]


@shared_task(name="jobs.runs_reap", acks_late=True, ignore_result=True)
def runs_reap() -> None:
    """Fail or re-queue runs whose worker died; re-enqueue QUEUED runs whose message was lost."""
    reap_runs()
