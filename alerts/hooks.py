"""Alerts' listeners on jobs (jobs/hooks.py `run_ended`), streams (streams/hooks.py) and schedules
(schedules/hooks.py): called inside the transaction of the state change, they open or resolve incidents, whose
outbox rows commit with that change. A team without an enabled rule costs one indexed read per run end.

A listener never fails the change it observes: its writes are in a savepoint and any error is logged.
"""

from __future__ import annotations

import logging
from datetime import datetime

from django.db import transaction

from alerts.messages import job_link, run_link
from alerts.models import AlertEvent, AlertRule, StreamRestart
from alerts.services.incidents import Happening, incident_open, incident_resolve
from alerts.services.watch import run_long_key
from jobs.models import JobRun, RunStatus, SqlJob
from schedules.models import Schedule, ScheduleFire
from streams.models import StreamStatus

logger = logging.getLogger("lakeport.alerts")


def on_run_ended(run: JobRun, status: str) -> None:
    """A run ended: FAILED opens the job's incident (and its schedule tick's, when no retry is left); SUCCEEDED
    resolves them."""
    try:
        with transaction.atomic():  # a savepoint: even a failed read must not abort the run's end transaction
            if AlertRule.objects.filter(team_id=run.team_id, enabled=True).exists():  # else: nothing to alert on
                _run_ended(run, status)
    except Exception:
        logger.exception("alerts.run_hook_failed", extra={"run_id": run.id})


def _run_ended(run: JobRun, status: str) -> None:
    job = SqlJob.objects.select_related("team").get(id=run.job_id)
    team = job.team.name
    link = run_link(team=team, run_id=run.id)
    # a long run's incident ends with the run, whatever its end
    incident_resolve(happening=Happening(event=AlertEvent.RUN_LONG, team_id=job.team_id, team=team, job_id=job.id,
                                         key=run_long_key(run.id), title=f"run {run.id} ended {status}", error=None,
                                         link=link))
    if status not in (RunStatus.FAILED, RunStatus.SUCCEEDED):
        return
    fire = ScheduleFire.objects.filter(run_id=run.id).select_related("schedule").first()
    job_key = f"job:{job.id}"
    if status == RunStatus.SUCCEEDED:
        done = f"run {run.id} of job '{job.name}' SUCCEEDED"
        incident_resolve(happening=Happening(event=AlertEvent.RUN_FAILED, team_id=job.team_id, team=team,
                                             job_id=job.id, key=job_key, title=done, error=None, link=link))
        if fire is not None:
            for event in (AlertEvent.SCHEDULE_RUN_FAILED, AlertEvent.SCHEDULE_TICK_SKIPPED):
                incident_resolve(happening=Happening(event=event, team_id=job.team_id, team=team, job_id=job.id,
                                                     key="", title=done, error=None, link=link),
                                 key_prefix=f"schedule:{fire.schedule_id}:")
        return
    error = (run.error or {}).get("message") if isinstance(run.error, dict) else None
    incident_open(happening=Happening(
        event=AlertEvent.RUN_FAILED, team_id=job.team_id, team=team, job_id=job.id, key=job_key,
        title=f"Run {run.id} of job '{job.name}' FAILED (team {team})", error=error, link=link))
    if fire is not None and fire.attempts > fire.schedule.max_retries:  # the schedule retries no more
        tick = fire.fire_time.strftime("%Y-%m-%dT%H:%MZ")
        incident_open(happening=Happening(
            event=AlertEvent.SCHEDULE_RUN_FAILED, team_id=job.team_id, team=team, job_id=job.id,
            key=f"schedule:{fire.schedule_id}:tick:{tick}",
            title=f"Schedule '{fire.schedule.name}' tick {tick} failed: run {run.id} of job '{job.name}' FAILED",
            error=error, link=link))


def on_stream_status(job_id: int, status: str, error: str | None, restarted: bool) -> None:
    """A stream changed status: FAILED opens the stream's incident, RUNNING (recovered) resolves it; a restart
    after a failure is recorded for the `stream_restarting` rules (alerts_watch counts them)."""
    if restarted:
        try:
            with transaction.atomic():
                StreamRestart.objects.create(job_id=job_id)
        except Exception:
            logger.exception("alerts.stream_hook_failed", extra={"job_id": job_id})
    if status not in (StreamStatus.FAILED, StreamStatus.RUNNING):
        return
    try:
        with transaction.atomic():
            job = SqlJob.objects.select_related("team").get(id=job_id)
            happening = Happening(
                event=AlertEvent.STREAM_FAILED, team_id=job.team_id, team=job.team.name, job_id=job.id,
                key=f"stream:{job.id}", error=error, link=job_link(team=job.team.name, job_id=job.id),
                title=(f"Stream of job '{job.name}' FAILED (team {job.team.name})" if status == StreamStatus.FAILED
                       else f"stream of job '{job.name}' is RUNNING again"))
            if status == StreamStatus.FAILED:
                incident_open(happening=happening)
            else:
                incident_resolve(happening=happening)
    except Exception:
        logger.exception("alerts.stream_hook_failed", extra={"job_id": job_id})


def on_tick_not_run(schedule: Schedule, fire_time: datetime, outcome: str, message: str) -> None:
    """A schedule's tick was skipped, missed or could not be submitted: one incident per such tick (resolved by the
    schedule's next SUCCEEDED run)."""
    try:
        with transaction.atomic():
            job = SqlJob.objects.select_related("team").get(id=schedule.job_id)
            tick = fire_time.strftime("%Y-%m-%dT%H:%MZ")
            what = {"skipped": "was skipped", "missed": "was missed", "failed": "could not be submitted"}.get(
                outcome, outcome)
            incident_open(happening=Happening(
                event=AlertEvent.SCHEDULE_TICK_SKIPPED, team_id=job.team_id, team=job.team.name, job_id=job.id,
                key=f"schedule:{schedule.id}:{outcome}:{tick}", error=message,
                link=job_link(team=job.team.name, job_id=job.id),
                title=f"Schedule '{schedule.name}' tick {tick} {what} (job '{job.name}', team {job.team.name})"))
    except Exception:
        logger.exception("alerts.tick_hook_failed", extra={"schedule_id": schedule.id})
