"""Live preview of a streaming statement: a short streaming query in the team's engine, its rows polled by the
editor.

The web never hosts Spark: `live_preview_start` sends the Celery task `jobs.sql_live_preview`, whose worker holds a
lease on the team's engine while the engine runs the query into a row-collecting `foreachBatch` (never the sink,
lakeport_engine/streaming/interactive.py). The worker publishes the rows it hears as the task's PROGRESS state in the
result backend, where `live_preview_get` reads them; `live_preview_stop` leaves a stop mark there that the worker
turns into a `cancel` of the engine request. The query stops by itself after LAKEPORT_LIVE_PREVIEW_SECONDS or
LAKEPORT_LIVE_PREVIEW_ROWS, and its scratch checkpoint is removed.
"""

from __future__ import annotations

import threading
import time
import uuid
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from celery import current_app, states
from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User

from catalogs.access_history import access_refused
from core.errors import NotFound
from core.queues import EDITOR_QUEUE
from grants.selectors import access_document
from jobs.engines import engine_key
from jobs.engines.calls import EngineCall
from jobs.engines.pool import engine_pool
from jobs.engines.process import EngineError
from jobs.services.interactive import SETUP_KEYWORDS, editor_refusal, editor_statements, first_keyword
from jobs.services.jobs import check_default_catalog
from lakeport_engine.errors import SparkRuntimeError
from lakeport_engine.protocol import AccessDocument, EngineEvent, LivePreviewRequest
from lakeport_engine.streaming.statement import is_streaming
from lakeport_kernel.redaction import redact
from teams.models import Team


class LivePreviewStatus(StrEnum):
    """STARTING until a worker runs it, RUNNING while rows come, then STOPPED or FAILED."""

    STARTING = "STARTING"
    RUNNING = "RUNNING"
    STOPPED = "STOPPED"
    FAILED = "FAILED"


class LivePreviewStop(StrEnum):
    """Why a live preview stopped: its time or row limit, a stop asked for, or a failure (the engine says which)."""

    SECONDS = "seconds"
    ROWS = "rows"
    CANCELLED = "cancelled"
    FAILED = "failed"


@dataclass(frozen=True)
class LivePreviewState:
    """A live preview as the editor polls it: its status, the rows so far (as the worker published them), why it
    stopped, its error, and the limits it stops by itself at. LivePreviewOutput writes it (the rows whole)."""

    id: str
    status: str
    columns: list[dict[str, str]]
    rows: list[list[Any]]
    stopped: str | None
    error: dict[str, Any] | None
    seconds: float
    max_rows: int


STOP_POLL_SECONDS = 0.5
# Beyond the engine's own deadline: engine start and planning, then the batch in flight when it stops.
GRACE_SECONDS = 60.0


def _error(message: str) -> dict[str, Any]:
    """A failure with no position in the script."""
    return {"statement": None, "line": None, "column": None, "message": message}


def _owner_key(preview_id: str) -> str:
    return f"lakeport-live-owner-{preview_id}"


def _stop_key(preview_id: str) -> str:
    return f"lakeport-live-stop-{preview_id}"


def live_preview_start(*, team: Team, sql: str, default_catalog: str = "",
                       user: User | AnonymousUser | None = None) -> LivePreviewState:
    """Start a live preview of the script's streaming statement (after optional USE/SET); its first state.
    Unqualified names resolve in `default_catalog` (a catalog of the team), as in a run."""
    check_default_catalog(team=team, name=default_catalog)
    statements = editor_statements(sql)
    if not statements or not is_streaming(statements[-1].sql):
        raise editor_refusal("Live preview runs a streaming query: end the script with a statement that reads "
                      "FROM STREAM(<catalog>.<db>.<stream>).")
    for st in statements[:-1]:
        if first_keyword(st.sql) not in SETUP_KEYWORDS:
            raise editor_refusal(f"Live preview runs one streaming query (after optional USE/SET); statement {st.index + 1} "
                          f"at line {st.line} is '{first_keyword(st.sql).upper()}'.")
    preview_id = uuid.uuid4().hex
    backend = current_app.backend
    backend.set(_owner_key(preview_id), f"{team.id}:{time.time():.3f}")  # owner, and when it was asked for
    kwargs: dict[str, Any] = {
        "preview_id": preview_id, "team_id": team.id, "sql": sql,
        "seconds": float(settings.LAKEPORT_LIVE_PREVIEW_SECONDS), "max_rows": int(settings.LAKEPORT_LIVE_PREVIEW_ROWS)}
    if default_catalog:  # only when set: a worker of the previous release takes the call unchanged
        kwargs["default_catalog"] = default_catalog
    access = access_document(team=team, user=user)  # the caller's privileges (docs/access.md)
    # else the role defaults and no row filter or mask: the same as sending nothing
    if access.get("rows") or (not access["admin"] and access["governed"]):
        kwargs["access"] = access
    current_app.send_task("jobs.sql_live_preview", queue=EDITOR_QUEUE, task_id=preview_id, kwargs=kwargs)
    return _state(preview_id, {"status": LivePreviewStatus.STARTING})


def live_preview_get(*, team: Team, preview_id: str) -> LivePreviewState:
    """The preview's status, columns and rows so far; 404 for an unknown id or another team's preview."""
    asked_at = _check_owner(team, preview_id)
    meta = current_app.backend.get_task_meta(preview_id)
    status = meta.get("status")
    if status == "PROGRESS" or status == states.SUCCESS:
        return _state(preview_id, dict(meta.get("result") or {}))
    if status in states.PROPAGATE_STATES:
        return _state(preview_id, {"status": LivePreviewStatus.FAILED,
                                   "error": _error("The live preview's worker failed.")})
    if time.time() - asked_at > settings.LAKEPORT_INTERACTIVE_TIMEOUT_SECONDS:  # no worker took it
        return _state(preview_id, {"status": LivePreviewStatus.FAILED,
                                   "error": _error("No worker started the live preview in time; try again.")})
    return _state(preview_id, {"status": LivePreviewStatus.STARTING})


def live_preview_stop(*, team: Team, preview_id: str) -> LivePreviewState:
    """Ask the preview to stop now (it also stops by itself); its state."""
    _check_owner(team, preview_id)
    current_app.backend.set(_stop_key(preview_id), "1")
    return live_preview_get(team=team, preview_id=preview_id)


def _check_owner(team: Team, preview_id: str) -> float:
    """When the team's preview `preview_id` was asked for; 404 for an unknown id or another team's."""
    owner = current_app.backend.get(_owner_key(preview_id)) if preview_id.isalnum() else None
    text = owner.decode() if isinstance(owner, bytes) else str(owner or "")
    team_id, _, asked_at = text.partition(":")
    if owner is None or team_id != str(team.id):
        raise NotFound(f"No live preview '{preview_id}' in team '{team.name}'.")
    return float(asked_at or 0)


def _state(preview_id: str, data: dict[str, Any]) -> LivePreviewState:
    """The preview's state from what the worker published (`data`, plain JSON) and this server's limits."""
    return LivePreviewState(id=preview_id, status=data.get("status", LivePreviewStatus.STARTING),
                            columns=data.get("columns") or [], rows=data.get("rows") or [],
                            stopped=data.get("stopped"), error=data.get("error"),
                            seconds=float(settings.LAKEPORT_LIVE_PREVIEW_SECONDS),
                            max_rows=int(settings.LAKEPORT_LIVE_PREVIEW_ROWS))


def live_preview_execute(*, preview_id: str, team_id: int, sql: str, seconds: float, max_rows: int,
                         default_catalog: str = "", access: AccessDocument | None = None) -> dict[str, Any]:
    """Worker side: run the live query in the team's engine, publishing its rows as they come (plain data)."""
    backend = current_app.backend
    team = Team.objects.get(id=team_id)
    state: dict[str, Any] = {"status": LivePreviewStatus.RUNNING, "columns": [], "rows": [], "stopped": None,
                             "error": None}
    lock = threading.Lock()

    def publish() -> None:
        with lock:
            snapshot = {**state, "rows": list(state["rows"])}
        backend.store_result(preview_id, snapshot, "PROGRESS")

    def failed(message: str) -> dict[str, Any]:
        return {**state, "status": LivePreviewStatus.FAILED, "error": _error(redact(message))}

    def on_event(event: EngineEvent) -> None:
        if event["event"] != "live_rows":
            return
        with lock:
            state["columns"] = event["columns"] or state["columns"]
            state["rows"] += event["rows"][: max(0, max_rows - len(state["rows"]))]
        publish()

    try:
        key = engine_key(team=team.name, script=sql)
    except SparkRuntimeError as exc:
        return failed(exc.message)
    publish()
    pool = engine_pool()
    with pool.lease(key) as engine:
        if engine is None:
            return failed("Every engine of the workers is busy; try again in a moment.")
        try:
            pool.start(engine)
        except EngineError as exc:
            return failed(str(exc))
        request: LivePreviewRequest = {"mode": "live", "script": sql, "live_seconds": seconds, "live_rows": max_rows,
                                       "default_catalog": default_catalog or None, "access": access}
        deadline = time.monotonic() + seconds + GRACE_SECONDS
        cancelled = False
        with EngineCall(engine, request, on_event=on_event) as call:
            while not call.wait(STOP_POLL_SECONDS):
                if not cancelled and (backend.get(_stop_key(preview_id)) is not None or time.monotonic() > deadline):
                    call.cancel()
                    cancelled = True
            answer = call.result
    with lock:
        state["columns"] = answer.get("columns") or state["columns"]
        state["stopped"] = answer.get("stopped") or (LivePreviewStop.CANCELLED if cancelled else None)
        error = answer.get("error")
        if error:
            state["status"] = LivePreviewStatus.FAILED
            state["error"] = {**error, "message": redact(error["message"])}
            access_refused(team_id=team.id, access=access, message=str(error["message"]), entry="live")
        else:
            state["status"] = LivePreviewStatus.STOPPED
        return {**state, "rows": list(state["rows"])}


__all__ = ["LivePreviewState", "live_preview_execute", "live_preview_get", "live_preview_start", "live_preview_stop"]

