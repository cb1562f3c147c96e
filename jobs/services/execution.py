"""Executing one run inside a Celery worker: claim, pick an engine, run the script, store the outcome."""

from __future__ import annotations

import logging

from django.db import close_old_connections

from jobs.engines.base import Outcome
from jobs.models import JobRun, RunStatus
from jobs.services.runs import run_claim, run_finish, run_log, run_update
from jobs.spark.errors import SparkRuntimeError
from jobs.spark.redaction import redact

logger = logging.getLogger("lakeport.jobs")


def run_execute(*, run_id: int, worker: str) -> RunStatus | None:
    """Claim run `run_id` for `worker` and execute it to a final state.

    Idempotent: a run that is not QUEUED (already claimed by another delivery, cancelled, finished, deleted) is
    skipped. Returns the final status, or None when nothing ran or the run was taken away meanwhile.
    """
    from jobs.engines import engine_for
    from jobs.engines.recorder import RunRecorder

    close_old_connections()
    run = run_claim(run_id=run_id, worker=worker)
    if run is None:
        return None
    recorder = RunRecorder(run)
    recorder.start()
    try:
        script = script_for(run)
        engine = engine_for(run=run, script=script)
        run_update(run=run, engine_used=engine.name)
        run_log(run_id=run.id, messages=[f"Engine: {engine.name}."])
        outcome = engine.execute(run=run, recorder=recorder, script=script)
    except SparkRuntimeError as exc:  # e.g. two Hive catalogs in one script, an unbindable catalog
        outcome = Outcome(succeeded=False, statements=recorder.statement_list(), error={
            "statement": exc.statement, "line": None, "column": None, "message": redact(exc.message)})
    except Exception as exc:  # anything the runtime did not turn into a statement error
        logger.exception("run.engine_error", extra={"run_id": run.id})
        outcome = Outcome(succeeded=False, statements=recorder.statement_list(), error={
            "statement": None, "line": None, "column": None,
            "message": redact(f"{type(exc).__name__}: {exc}".splitlines()[0])[:2000]})
    finally:
        recorder.stop()
    statements = outcome.statements and [_stored(s) for s in outcome.statements] or recorder.statement_list()
    progress = dict(recorder.progress)
    progress["statements_done"] = sum(1 for s in statements if s.get("status") == "succeeded")
    return run_finish(run=run, succeeded=outcome.succeeded, error=outcome.error, statements=statements,
                      catalogs_used=outcome.catalogs_used, result=outcome.result, progress=progress)


def script_for(run: JobRun) -> str:
    """The script as submitted (engines apply the job's default catalog themselves)."""
    return run.sql


def _stored(statement: dict) -> dict:
    from jobs.engines.recorder import statement_entry

    return statement_entry(statement)
