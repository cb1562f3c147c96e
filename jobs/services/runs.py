"""Writes of job runs: submit, cancel, claim, progress, logs, finish, and the reaper that recovers lost runs.

PostgreSQL is the source of truth; every state change is a conditional UPDATE on the expected status, so two
processes can never both move a run (claim twice, finish a re-queued run, cancel a finished one).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import Any, cast

from celery import current_app
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone
from kombu.exceptions import ChannelError

from core.enqueue import task_send
from core.errors import Conflict
from core.queues import RUN_QUEUE
from jobs import hooks
from jobs.engines.base import PreviewResult
from jobs.models import JobKind, JobRun, JobRunLogLine, RunStatus, SqlJob
from jobs.services.jobs import check_script
from jobs.services.limits import team_limits
from jobs.services.parameters import RawValue, script_rendered
from jobs.services.results import result_bounded, storable
from jobs.services.run_waits import run_ended_notify
from jobs.services.timing import run_stale_seconds
from lakeport_kernel.redaction import redact
from teams.models import Team

logger = logging.getLogger("lakeport.jobs")

MAX_LOG_LINE = 8000
LogLine = tuple[str, str]  # (level, message) of a run's log
WORKER_LOST = "worker lost"
JOB_QUEUE = RUN_QUEUE
RUN_EXECUTE_TASK = "jobs.run_execute"


# ---- submit -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Submission:
    """The run a submit produced; `created` is False when an Idempotency-Key matched an earlier submit."""

    run: JobRun
    created: bool


def run_submit(
    *,
    job: SqlJob,
    user: Any,
    idempotency_key: str | None = None,
    enqueue: bool = True,
    parameters: dict[str, RawValue] | None = None,
    logical_date: datetime | None = None,
    time_zone: str = "UTC",
) -> Submission:
    """Queue a run of `job` and enqueue its task after commit; the same `idempotency_key` returns the same run.

    `parameters` override the job's defaults; `${ds}`/`${ts}` come from `logical_date` (a schedule's fire time,
    else now) in `time_zone`. The run keeps the rendered script and the values; a bad one raises ParameterError.

    `enqueue=False` leaves the run QUEUED for the caller to execute (manage.py runjob); the reaper still
    enqueues it if nobody claims it within LAKEPORT_REQUEUE_AFTER_SECONDS.
    """
    if job.kind == JobKind.STREAMING:
        raise Conflict(f"Job '{job.name}' is a streaming job: it is not run by runs/; use stream/start/.")
    if idempotency_key:
        existing = JobRun.objects.filter(job=job, idempotency_key=idempotency_key).first()
        if existing is not None:
            return Submission(run=existing, created=False)
    check_script(job.sql)
    rendered = script_rendered(job.sql, declared=job.parameters or {}, overrides=parameters,
                               logical_date=logical_date or timezone.now(), time_zone=time_zone)
    try:
        with transaction.atomic():
            run = JobRun.objects.create(
                job=job, team_id=job.team_id, idempotency_key=idempotency_key or None,
                submitted_by=user if getattr(user, "is_authenticated", False) else None,
                sql=rendered.sql, parameters=rendered.values, spark_conf=job.spark_conf,
                default_catalog=job.default_catalog, engine=job.engine,
                max_retries=job.max_retries,
            )
            _append_log_at(run_id=run.id, start=0, lines=[("INFO", f"Run {run.id} of job '{job.name}' queued.")])
            if enqueue:
                transaction.on_commit(lambda: run_enqueue(run_id=run.id))
    except IntegrityError:
        # A concurrent submit with the same key won the insert; answer with its run.
        existing = JobRun.objects.filter(job=job, idempotency_key=idempotency_key).first()
        if existing is None:
            raise
        return Submission(run=existing, created=False)
    logger.info("run.submitted", extra={"run_id": run.id, "job_id": job.id})
    run.refresh_from_db()
    return Submission(run=run, created=True)


def run_enqueue(*, run_id: int) -> bool:
    """Send the run's task to the broker; a broker outage is logged and left to the reaper's re-enqueue."""
    JobRun.objects.filter(id=run_id, status=RunStatus.QUEUED).update(enqueued_at=timezone.now())
    # By name: services never import jobs.tasks (which imports the services it runs).
    return task_send(RUN_EXECUTE_TASK, args=[run_id], queue=JOB_QUEUE, logger=logger, event="run.enqueue_failed",
                     extra={"run_id": run_id})


# ---- cancel -------------------------------------------------------------------------------------------
def run_cancel(*, run: JobRun) -> JobRun:
    """Cancel a run: a QUEUED run becomes CANCELLED at once, a RUNNING one is flagged and its worker stops it.

    A finished run raises Conflict (409).
    """
    now = timezone.now()
    with transaction.atomic():
        cancelled = JobRun.objects.filter(id=run.id, status=RunStatus.QUEUED).update(
            status=RunStatus.CANCELLED, cancel_requested=True, finished_at=now)
        if cancelled:
            hooks.run_ended(run=run, status=RunStatus.CANCELLED)
    if cancelled:
        run_log(run_id=run.id, messages=["Cancelled before it started."])
        run_ended_notify(run.id)
    elif JobRun.objects.filter(id=run.id, status=RunStatus.RUNNING).update(cancel_requested=True):
        run_log(run_id=run.id, messages=["Cancel requested; stopping the running statement."])
    else:
        run.refresh_from_db()
        raise Conflict(f"Run {run.id} is already {run.status}; only a queued or running run can be cancelled.")
    logger.info("run.cancel_requested", extra={"run_id": run.id})
    run.refresh_from_db()
    return run


# ---- worker side --------------------------------------------------------------------------------------
def run_claim(*, run_id: int, worker: str, **fields: Any) -> JobRun | None:
    """Move a QUEUED run to RUNNING for `worker` (with `fields`); None if it is gone or someone else already has it.

    One transaction (one commit) for the claim, the read-back and the attempt's log line: it is on the path of
    every run, short ones too. A run whose team already has its maximum of runs RUNNING (`team_limits`) is not
    claimed: it stays QUEUED (`run_waiting`) and its task asks again later (`run_defer`).
    """
    now = timezone.now()
    with transaction.atomic():
        if not _team_has_slot(run_id):
            return None
        claimed = JobRun.objects.filter(id=run_id, status=RunStatus.QUEUED).update(
            status=RunStatus.RUNNING, worker=worker[:255], started_at=now, heartbeat_at=now, finished_at=None,
            attempt=F("attempt") + 1, **fields,
        )
        if not claimed:
            logger.info("run.claim_skipped", extra={"run_id": run_id, "worker": worker})
            return None
        run = JobRun.objects.select_related("job", "team").get(id=run_id)
        _append_log_locked(run_id=run_id, lines=[("INFO", f"Attempt {run.attempt} started on {worker}.")])
    logger.info("run.started", extra={"run_id": run_id, "worker": worker, "attempt": run.attempt})
    return run


def _team_has_slot(run_id: int) -> bool:
    """(In the claim's transaction.) Whether the run's team may start one more run; locks the team's row so two
    workers claiming runs of one team at once count one after the other."""
    team_id = JobRun.objects.filter(id=run_id, status=RunStatus.QUEUED).values_list("team_id", flat=True).first()
    if team_id is None:
        return True  # gone or claimed already: the conditional claim below skips it
    team = Team.objects.select_for_update().filter(id=team_id).values_list("name", flat=True).first()
    limit = team_limits(team or "").max_runs
    running = JobRun.objects.filter(team_id=team_id, status=RunStatus.RUNNING).count()
    if running < limit:
        return True
    logger.info("run.team_at_limit", extra={"run_id": run_id, "team_id": team_id, "running": running,
                                            "limit": limit})
    return False


def run_waiting(*, run_id: int) -> bool:
    """True when run `run_id` is still QUEUED (its claim was refused: its team is at its limit of runs)."""
    return JobRun.objects.filter(id=run_id, status=RunStatus.QUEUED).exists()


def run_defer(*, run_id: int, countdown: float) -> bool:
    """Send the run's task again in `countdown` seconds (it could not start yet); it counts as freshly enqueued,
    so the reaper does not send it a second time meanwhile."""
    JobRun.objects.filter(id=run_id, status=RunStatus.QUEUED).update(enqueued_at=timezone.now())
    return task_send(RUN_EXECUTE_TASK, args=[run_id], queue=JOB_QUEUE, logger=logger, event="run.enqueue_failed",
                     extra={"run_id": run_id}, countdown=countdown)


def run_wake_next(*, team_id: int) -> bool:
    """A run of the team ended: send the team's oldest waiting run now rather than at its next deferral."""
    waiting = (JobRun.objects.filter(team_id=team_id, status=RunStatus.QUEUED)
               .order_by("created_at", "id").values_list("id", flat=True).first())
    if waiting is None:
        return False
    return task_send(RUN_EXECUTE_TASK, args=[waiting], queue=JOB_QUEUE, logger=logger, event="run.enqueue_failed",
                     extra={"run_id": waiting})


def run_requeue(*, run: JobRun, reason: str) -> bool:
    """Put this attempt's run back in the queue (its engine died; the job allows another attempt)."""
    if not JobRun.objects.filter(id=run.id, status=RunStatus.RUNNING, attempt=run.attempt).update(
        status=RunStatus.QUEUED, worker="", heartbeat_at=None
    ):
        return False
    run_log(run_id=run.id, messages=[redact(reason), "Re-queued (retry setting of the job)."])
    transaction.on_commit(lambda: run_enqueue(run_id=run.id))
    return True


def run_update(*, run: JobRun, **fields: Any) -> bool:
    """Write fields of a run this process owns (RUNNING, same attempt); False if it was taken away (reaped)."""
    return bool(JobRun.objects.filter(id=run.id, status=RunStatus.RUNNING, attempt=run.attempt)
                .update(**storable(fields)))


def run_heartbeat(*, run: JobRun, progress: dict[str, int] | None = None) -> tuple[bool, bool]:
    """Record that the run's process is alive (and its progress); returns (still owned, cancel requested)."""
    fields: dict[str, Any] = {"heartbeat_at": timezone.now()}
    if progress is not None:
        fields["progress"] = progress
    owned = run_update(run=run, **fields)
    cancel = JobRun.objects.filter(id=run.id, cancel_requested=True).exists()
    return owned, cancel


def run_finish(
    *,
    run: JobRun,
    succeeded: bool,
    error: dict[str, Any] | None,
    statements: list[dict[str, Any]],
    catalogs_used: list[str],
    result: dict[str, Any] | None,
    progress: dict[str, int],
    fields: Mapping[str, Any] | None = None,
    log_lines: Sequence[LogLine] = (),
    within: Callable[[RunStatus], object] | None = None,
) -> RunStatus | None:
    """Store the outcome of this attempt; a cancel request turns a stopped run into CANCELLED.

    `fields` and `log_lines` are what the run's recorder had not written yet: they go in the same transaction
    (one commit), before the final log line. `within(status)` runs in that transaction too (the run's lineage), so
    whoever sees the run ended also sees what it stored. Returns the final status, or None when the run was no
    longer ours (reaped meanwhile).
    """
    # what any database stores, within the result size limit (jobs/services/results.py)
    bounded = result_bounded(cast(PreviewResult | None, storable(result)))
    stored_result = cast(dict[str, Any] | None, bounded.result)
    statements, fields = storable(statements), storable(dict(fields or {}))
    if bounded.cut:
        log_lines = [*log_lines, ("WARN", bounded.cut)]
    with transaction.atomic():
        cancel = JobRun.objects.filter(id=run.id, cancel_requested=True).exists()
        if succeeded:
            status = RunStatus.SUCCEEDED
        elif cancel:
            status = RunStatus.CANCELLED
            error = {**(error or {}), "message": "Cancelled by a user."}
        else:
            status = RunStatus.FAILED
        if error and error.get("message"):
            error = {**error, "message": redact(str(error["message"]))[:MAX_LOG_LINE]}
        error = storable(error)
        now = timezone.now()
        done = JobRun.objects.filter(id=run.id, status=RunStatus.RUNNING, attempt=run.attempt).update(
            **(fields or {}), status=status, finished_at=now, error=error, statements=statements,
            catalogs_used=catalogs_used, result=stored_result, progress=progress, heartbeat_at=now,
        )
        if not done:
            logger.warning("run.finish_lost", extra={"run_id": run.id, "attempt": run.attempt})
            return None
        if within is not None:
            within(status)
        run.status, run.error, run.finished_at = status, error, now  # what the listeners read
        hooks.run_ended(run=run, status=status)  # alerts: its outbox rows commit with the run's end
        end = f"Run {status}." + (f" {error['message']}" if error and status == RunStatus.FAILED else "")
        _append_log_locked(run_id=run.id, lines=[*log_lines, ("INFO", end)])
        run_ended_notify(run.id)
        transaction.on_commit(lambda: run_wake_next(team_id=run.team_id))  # its slot is free for the next one
    logger.info("run.finished", extra={"run_id": run.id, "status": str(status)})
    return status


# ---- logs ---------------------------------------------------------------------------------------------
def run_log(*, run_id: int, messages: list[str], level: str = "INFO") -> int:
    """Append redacted lines to a run's log; returns the next offset."""
    return run_log_lines(run_id=run_id, lines=[(level, m) for m in messages])


def run_log_lines(*, run_id: int, lines: Sequence[LogLine]) -> int:
    """Append redacted (level, message) lines to a run's log in one transaction; returns the next offset."""
    if not lines:
        return JobRun.objects.filter(id=run_id).values_list("log_lines", flat=True).first() or 0
    for _ in range(5):  # two writers (statement thread, monitor) may race for the same offsets
        try:
            with transaction.atomic():
                return _append_log_locked(run_id=run_id, lines=lines)
        except IntegrityError:
            continue
    return 0


def _append_log_locked(*, run_id: int, lines: Sequence[LogLine]) -> int:
    """Append `lines` after the run's last one (inside a transaction: the run row is locked for the offsets)."""
    start = JobRun.objects.select_for_update().filter(id=run_id).values_list("log_lines", flat=True).first()
    if start is None:
        return 0
    return _append_log_at(run_id=run_id, start=start, lines=lines)


def _append_log_at(*, run_id: int, start: int, lines: Sequence[LogLine]) -> int:
    rows: list[JobRunLogLine] = []
    for level, text in lines:
        for part in str(text).splitlines() or [""]:
            rows.append(JobRunLogLine(run_id=run_id, seq=start + len(rows), level=level[:8],
                                      message=storable(redact(part))[:MAX_LOG_LINE]))
    JobRunLogLine.objects.bulk_create(rows)
    JobRun.objects.filter(id=run_id).update(log_lines=start + len(rows))
    return start + len(rows)


# ---- reaper -------------------------------------------------------------------------------------------
@dataclass
class ReapReport:
    """What one reaper pass did."""

    failed: list[int]
    requeued: list[int]
    cancelled: list[int]
    reenqueued: list[int]


def runs_reap() -> ReapReport:
    """Recover runs whose worker died and runs whose broker message was lost.

    RUNNING runs with a stale heartbeat are re-queued while attempts remain (the job's `max_retries`), else
    FAILED with "worker lost" (CANCELLED if a cancel was pending). QUEUED runs sent longer ago than
    LAKEPORT_REQUEUE_AFTER_SECONDS are sent again; the conditional claim makes duplicates harmless.
    """
    now = timezone.now()
    report = ReapReport(failed=[], requeued=[], cancelled=[], reenqueued=[])
    stale_before = now - timedelta(seconds=run_stale_seconds())
    for run in JobRun.objects.filter(status=RunStatus.RUNNING, heartbeat_at__lt=stale_before).only(
        "id", "attempt", "max_retries", "heartbeat_at", "cancel_requested", "worker", "job_id", "team_id"
    ):
        # The heartbeat in the filter makes this a no-op if the process beat again since we read it.
        same = JobRun.objects.filter(id=run.id, status=RunStatus.RUNNING, attempt=run.attempt,
                                     heartbeat_at=run.heartbeat_at)
        message = f"{WORKER_LOST}: {run.worker or 'the worker'} stopped heartbeating during attempt {run.attempt}."
        if run.cancel_requested:
            with transaction.atomic():
                if same.update(status=RunStatus.CANCELLED, finished_at=now, error={"message": "Cancelled by a user."}):
                    report.cancelled.append(run.id)
                    hooks.run_ended(run=run, status=RunStatus.CANCELLED)
            if run.id in report.cancelled:
                run_log(run_id=run.id, messages=[message, "Run CANCELLED."])
                run_ended_notify(run.id)
        elif run.attempt <= run.max_retries:
            if same.update(status=RunStatus.QUEUED, worker="", heartbeat_at=None):
                report.requeued.append(run.id)
                run_log(run_id=run.id, messages=[message, "Re-queued (retry setting of the job)."])
                transaction.on_commit(partial(run_enqueue, run_id=run.id))
        else:
            error = {"statement": None, "line": None, "column": None, "message": message}
            with transaction.atomic():  # the failure and its alerts' outbox rows commit together
                if same.update(status=RunStatus.FAILED, finished_at=now, error=error):
                    report.failed.append(run.id)
                    run.error = error
                    hooks.run_ended(run=run, status=RunStatus.FAILED)
            if run.id in report.failed:
                run_log(run_id=run.id, messages=[message, "Run FAILED."], level="ERROR")
                run_ended_notify(run.id)
    requeue_before = now - timedelta(seconds=settings.LAKEPORT_REQUEUE_AFTER_SECONDS)
    stale = list(
        JobRun.objects.filter(status=RunStatus.QUEUED)
        .filter(Q(enqueued_at__lt=requeue_before) | Q(enqueued_at__isnull=True, created_at__lt=requeue_before))
        .order_by("created_at", "id").values_list("id", flat=True)
    )
    if stale:
        waiting = broker_backlog()
        if waiting is not None:
            # Every QUEUED run should have a message waiting; only as many as are missing are sent again,
            # so a long queue behind busy workers does not fill up with duplicates.
            missing = JobRun.objects.filter(status=RunStatus.QUEUED).count() - waiting
            stale = stale[: max(0, missing)]
        for run_id in stale:
            run_enqueue(run_id=run_id)
            report.reenqueued.append(run_id)
    if report.failed or report.requeued or report.cancelled or report.reenqueued:
        logger.info("runs.reaped", extra={"failed": report.failed, "requeued": report.requeued,
                                          "cancelled": report.cancelled, "reenqueued": len(report.reenqueued)})
    return report


def broker_backlog() -> int | None:
    """Messages waiting in the job queue of the broker; None when the broker cannot tell (or is down)."""
    try:
        with current_app.connection_for_read() as conn:
            return int(conn.default_channel.queue_declare(queue=JOB_QUEUE, passive=True).message_count)
    except ChannelError:
        return 0  # the queue does not exist (yet, or any more): nothing waits in it
    except Exception as exc:
        logger.warning("runs.backlog_unknown", extra={"error_class": type(exc).__name__})
        return None
