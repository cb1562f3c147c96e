"""Executing one run inside a Celery worker: take an engine slot, claim, run the script in the team's engine."""

from __future__ import annotations

import logging
from typing import Literal, cast

from django.conf import settings
from django.db import close_old_connections

from jobs.engines import engine_key
from jobs.engines.base import JsonObject, Outcome, RunError, RunListener, StatementEvent, TeamEngine, last_result
from jobs.engines.pool import engine_pool
from jobs.engines.process import EngineError, EngineProcess
from jobs.models import JobRun, RunStatus
from jobs.services.recorder import RunRecorder, statement_entry
from jobs.services.runs import run_claim, run_finish, run_log, run_requeue
from lakeport_engine.errors import SparkRuntimeError
from lakeport_engine.script import StatementStatus
from lakeport_kernel.redaction import redact
from lineage.services import (
    RunLineage,
    lineage_emit_run,
    lineage_run_started,
    lineage_store_run,
    snapshot_for_engine,
)

logger = logging.getLogger("lakeport.jobs")

Deferred = Literal["deferred"]


def run_execute(*, run_id: int, worker: str) -> RunStatus | Deferred | None:
    """Claim run `run_id` for `worker` and execute it in its team's engine to a final state.

    Idempotent: a run that is not QUEUED (claimed by another delivery, cancelled, finished, deleted) is skipped.
    When every engine slot of this worker is busy the run stays QUEUED and "deferred" is returned (the task
    sends itself again later). Returns the final status, or None when nothing ran or the run was taken away.
    """
    close_old_connections()
    queued = JobRun.objects.select_related("team").filter(id=run_id, status=RunStatus.QUEUED).first()
    if queued is None:
        logger.info("run.claim_skipped", extra={"run_id": run_id, "worker": worker})  # a duplicate delivery
        return None
    try:
        key = engine_key(team=queued.team.name, script=queued.sql, engine=queued.engine, run_id=queued.id)
    except SparkRuntimeError as exc:  # e.g. two Hive catalogs in one script: fail the run with the reason
        run = run_claim(run_id=run_id, worker=worker)
        if run is None:
            return None
        return _fail(run, {"statement": exc.statement, "line": None, "column": None, "message": redact(exc.message)})
    with engine_pool().lease(key) as engine:
        if engine is None:
            logger.info("run.waiting_for_engine", extra={"run_id": run_id, "team": queued.team.name})
            return "deferred"
        run = run_claim(run_id=run_id, worker=worker, engine_used=engine.key.kind)
        if run is None:
            return None
        return _execute_claimed(run, engine)


def _execute_claimed(run: JobRun, engine: EngineProcess) -> RunStatus | None:
    recorder = RunRecorder(run)
    recorder.start()
    lineage_run_started(run=run)
    try:
        if not engine.started.is_set():
            run_log(run_id=run.id, messages=[f"Starting the {'isolated' if engine.key.dedicated else 'team'} engine."])
        engine_pool().start(engine)
        recorder.note(lines=[("INFO", f"Engine: {engine.key.kind} (team engine pid {engine.pid}).")])
        outcome = execute_on_engine(engine, run=run, recorder=recorder)
    except EngineError as exc:
        outcome = Outcome(succeeded=False, statements=recorder.statement_list(), error={
            "statement": None, "line": None, "column": None, "message": redact(str(exc))[:2000]})
    except Exception as exc:  # anything the runtime did not turn into a statement error
        logger.exception("run.engine_error", extra={"run_id": run.id})
        outcome = Outcome(succeeded=False, statements=recorder.statement_list(), error={
            "statement": None, "line": None, "column": None,
            "message": redact(f"{type(exc).__name__}: {exc}".splitlines()[0])[:2000]})
    finally:
        unwritten = recorder.stop()
    outcome = recorder.failure(outcome)  # a statement past the team's maximum duration fails the run, naming it
    if outcome.engine_lost and run.attempt <= run.max_retries and not recorder.cancel_seen:
        message = outcome.error["message"] if outcome.error else "The team engine stopped."
        recorder.write(unwritten)  # a re-queued attempt keeps its rows and log
        if run_requeue(run=run, reason=message):
            return RunStatus.QUEUED
    statements = outcome.statements and [statement_entry(s) for s in outcome.statements] or recorder.statement_list()
    progress = dict(recorder.progress)
    progress["statements_done"] = sum(1 for s in statements if s.get("status") == StatementStatus.SUCCEEDED)
    # the run's end supersedes the unwritten statement rows and progress; the rest goes in its transaction
    fields = {k: v for k, v in unwritten.fields.items() if k not in ("statements", "progress")}
    stored: list[RunLineage | None] = []

    def store_lineage(status: RunStatus) -> None:
        # the engine's statement results carry each statement's lineage; stored with the run's end, not after it
        stored.append(lineage_store_run(run=run, status=status, statements=outcome.statements))

    final = run_finish(run=run, succeeded=outcome.succeeded, error=outcome.error, statements=statements,
                       catalogs_used=outcome.catalogs_used, result=outcome.result, progress=progress,
                       fields=fields, log_lines=unwritten.lines, within=store_lineage)
    if final is not None and stored:
        lineage_emit_run(run=run, recorded=stored[0])
    return final


def execute_on_engine(engine: TeamEngine, *, run: JobRun, recorder: RunListener) -> Outcome:
    """Send the run's script to `engine` and wait for its result, relaying events to `recorder`."""
    statements: dict[int, StatementEvent] = {}

    def on_event(event: JsonObject) -> None:
        dispatch_event(event, recorder, statements)

    pending = engine.request({
        "mode": "run", "script": run.sql, "spark_conf": run.spark_conf or {},
        "default_catalog": run.default_catalog or None, "preview_limit": settings.LAKEPORT_RESULT_PREVIEW_ROWS,
        "lineage": settings.LAKEPORT_LINEAGE_CAPTURE, "snapshot": snapshot_for_engine(run=run),
    }, on_event=on_event)
    recorder.on_cancel(lambda: engine.cancel(pending.id))
    pending.done.wait()
    end = pending.result
    ordered = list(end.get("statements") or []) or [statements[i] for i in sorted(statements)]
    return Outcome(succeeded=bool(end.get("succeeded")), error=end.get("error"), statements=ordered,
                   catalogs_used=list(end.get("catalogs_used") or []), result=last_result(ordered),
                   engine=engine.key.kind,
                   cancelled=bool(end.get("cancelled")), engine_lost=bool(end.get("engine_lost")))


def dispatch_event(event: JsonObject, recorder: RunListener, statements: dict[int, StatementEvent]) -> None:
    """Relay one engine event to the run's recorder (statement rows, log, application, progress)."""
    kind = event.get("event")
    if kind == "statement_start":
        recorder.on_statement_start(int(event.get("index", 0)), int(event.get("total", 0)), str(event.get("sql", "")))
    elif kind == "statement_end":
        statement = cast(StatementEvent, event)  # JSON from the engine, in StatementResult.as_dict()'s shape
        statements[int(event.get("index", 0))] = statement
        recorder.on_statement_end(statement)
    elif kind == "log":
        recorder.on_log(str(event.get("message", "")))
    elif kind == "app":
        recorder.set_app(app_id=str(event.get("app_id", "")), ui_url=str(event.get("ui_url") or ""))
    elif kind == "progress":
        recorder.set_progress(**{k: int(v) for k, v in event.items() if k in (
            "stages_done", "stages_total", "tasks_done", "tasks_total")})


def _fail(run: JobRun, error: RunError) -> RunStatus | None:
    return run_finish(run=run, succeeded=False, error=error, statements=[], catalogs_used=[], result=None,
                      progress=dict(run.progress or {}))
