"""Executing one run inside a Celery worker: take an engine slot, claim, run the script in the team's engine."""

from __future__ import annotations

import logging
from typing import Any, Literal, cast

from django.conf import settings
from django.db import close_old_connections

from catalogs.access_history import access_refused
from grants.selectors import access_document
from jobs import hooks
from jobs.engines import engine_key
from jobs.engines.base import Outcome, PreviewResult, RunError, RunListener, StatementEvent, TeamEngine, last_result
from jobs.engines.calls import EngineCall
from jobs.engines.pool import engine_pool
from jobs.engines.process import EngineError, EngineProcess
from jobs.models import JobRun, RunStatus
from jobs.services.recorder import RunRecorder, statement_entry
from jobs.services.runs import run_claim, run_finish, run_log, run_requeue
from lakeport_engine.errors import SparkRuntimeError
from lakeport_engine.protocol import EngineEvent, RunScriptRequest
from lakeport_engine.script import StatementStatus
from lakeport_kernel.redaction import redact

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
    hooks.run_started(run=run)  # lineage: the run's OpenLineage START
    try:
        if not engine.started.is_set():
            run_log(run_id=run.id, messages=[f"Starting the {'isolated' if engine.key.dedicated else 'team'} engine."])
        engine_pool().start(engine)
        recorder.note(lines=[("INFO", f"Engine: {engine.key.kind} (team engine pid {engine.pid}).")])
        outcome = execute_on_engine(engine, run=run, recorder=recorder)
    except EngineError as exc:
        outcome = Outcome(succeeded=False, statements=_recorded(recorder), error={
            "statement": None, "line": None, "column": None, "message": redact(str(exc))[:2000]})
    except Exception as exc:  # anything the runtime did not turn into a statement error
        logger.exception("run.engine_error", extra={"run_id": run.id})
        outcome = Outcome(succeeded=False, statements=_recorded(recorder), error={
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
    statements = [statement_entry(s) for s in outcome.statements] or recorder.statement_list()
    progress = dict(recorder.progress)
    progress["statements_done"] = sum(1 for s in statements if s.get("status") == StatementStatus.SUCCEEDED)
    # the run's end supersedes the unwritten statement rows and progress; the rest goes in its transaction
    fields = {k: v for k, v in unwritten.fields.items() if k not in ("statements", "progress")}
    tokens: list[list[tuple[hooks.RunHook, object]]] = []

    def finishing(status: RunStatus) -> None:
        # the hooks' writes (lineage: each statement's captured lineage) commit with the run's end, not after it
        tokens.append(hooks.run_finishing(run=run, status=status, statements=outcome.statements))

    final = run_finish(run=run, succeeded=outcome.succeeded, error=_plain(outcome.error), statements=statements,
                       catalogs_used=outcome.catalogs_used, result=_plain(outcome.result), progress=progress,
                       fields=fields, log_lines=unwritten.lines, within=finishing)
    if final is not None and tokens:
        hooks.run_finished(run=run, tokens=tokens[0])
    return final


def execute_on_engine(engine: TeamEngine, *, run: JobRun, recorder: RunListener) -> Outcome:
    """Send the run's script to `engine` and wait for its result, relaying events to `recorder`."""
    statements: dict[int, StatementEvent] = {}
    request: RunScriptRequest = {
        "mode": "run", "script": run.sql, "spark_conf": dict(run.spark_conf or {}),
        "default_catalog": run.default_catalog or None, "preview_limit": settings.LAKEPORT_RESULT_PREVIEW_ROWS,
        "lineage": bool(settings.LAKEPORT_LINEAGE_CAPTURE), "snapshot": None,
        # the submitter's privileges now, at run time; a scheduled run (no submitter) acts as the job's owner
        "access": access_document(team=run.team, user=run.submitted_by or run.job.created_by),
    }
    request.update(hooks.request_extras(run=run))  # type: ignore[typeddict-item]  # lineage: the run's snapshot
    with EngineCall(engine, request, on_event=lambda event: dispatch_event(event, recorder, statements)) as call:
        recorder.on_cancel(call.cancel)
        call.wait()
        end = call.result
    error = end.get("error")
    if not end.get("succeeded") and error:  # a refused access goes to the catalog history too
        access_refused(team_id=run.team_id, access=request["access"], message=str(error.get("message") or ""),
                       entry="run")
    ordered = end.get("statements") or [statements[i] for i in sorted(statements)]
    return Outcome(succeeded=end.get("succeeded", False), error=end.get("error"), statements=ordered,
                   catalogs_used=end.get("catalogs_used", []), result=last_result(ordered),
                   engine=engine.key.kind, cancelled=end.get("cancelled", False),
                   engine_lost=end.get("engine_lost", False))


def dispatch_event(event: EngineEvent, recorder: RunListener, statements: dict[int, StatementEvent]) -> None:
    """Relay one (decoded) engine event to the run's recorder (statement rows, log, application, progress)."""
    if event["event"] == "statement_start":
        recorder.on_statement_start(event["index"], event["total"], event["sql"])
    elif event["event"] == "statement_end":
        statements[event.get("index", 0)] = event
        recorder.on_statement_end(event)
    elif event["event"] == "log":
        recorder.on_log(event["message"])
    elif event["event"] == "app":
        recorder.set_app(app_id=event["app_id"], ui_url=event["ui_url"])
    elif event["event"] == "progress":
        counts: dict[str, Any] = {k: v for k, v in event.items() if k not in ("event", "ts")}
        recorder.set_progress(**counts)


def _recorded(recorder: RunRecorder) -> list[StatementEvent]:
    """The statements the recorder heard so far, as the engine sent them."""
    return cast(list[StatementEvent], recorder.statement_list())


def _plain(document: RunError | PreviewResult | None) -> dict[str, Any] | None:
    """A protocol document as the run's JSON field stores it."""
    return None if document is None else dict(document)


def _fail(run: JobRun, error: RunError) -> RunStatus | None:
    return run_finish(run=run, succeeded=False, error=_plain(error), statements=[], catalogs_used=[], result=None,
                      progress=dict(run.progress or {}))
