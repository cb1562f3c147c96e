"""Users' stream actions: start, stop, restart, reset. Every transition is a conditional UPDATE on the expected
status, so a second start is a 409 and a stop never races a supervisor's own writes; the supervise task is sent
by name after commit (services never import tasks). A start or restart first checks the statement as its driver
would run it (streams/services/statement.py): one that cannot start is a 400 and nothing changes.

The API, `manage.py stream` and `manage.py runjob` all act through `stream_act` and follow a stream with
`stream_await`."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from core.enqueue import task_send
from core.errors import Conflict, InvalidInput
from core.queues import STREAM_QUEUE
from jobs.models import JobKind, SqlJob
from streams.models import (
    IDLE_STATUSES,
    Desired,
    StreamAction,
    StreamAudit,
    StreamState,
    StreamStatus,
)
from streams.services.statement import stream_statement_check

logger = logging.getLogger("lakeport.streams")

SUPERVISE_TASK = "streams.supervise"


def stream_state(job: SqlJob) -> StreamState:
    """The job's stream state (created STOPPED on first use); a batch job is a 409."""
    if job.kind != JobKind.STREAMING:
        raise Conflict(f"Job '{job.name}' is a batch job; it runs with runs/, not stream/.")
    state, _ = StreamState.objects.get_or_create(job=job)
    return state


def _refused(job: SqlJob, action: str, wanted: str) -> Conflict:
    status = StreamState.objects.filter(job=job).values_list("status", flat=True).first()
    return Conflict(f"Cannot {action} the stream of job '{job.name}': it is {status}; {wanted}.")


def _audit(job: SqlJob, action: str, actor: Any, actor_name: str | None,
           details: dict[str, Any] | None = None) -> None:
    user = actor if getattr(actor, "is_authenticated", False) else None
    name = user.get_username() if user is not None else (actor_name or "platform")
    StreamAudit.objects.create(team_id=job.team_id, job=job, job_name=job.name, action=action, actor=user,
                               actor_name=name, details=details or {})
    logger.info("stream.action", extra={"job_id": job.id, "action": action, "actor": name})


def stream_enqueue(*, job_id: int) -> bool:
    """Send the job's supervise task; a broker outage is logged and left to the tick, which sends it again."""
    StreamState.objects.filter(job_id=job_id).update(enqueued_at=timezone.now())
    return task_send(SUPERVISE_TASK, args=[job_id], queue=STREAM_QUEUE, logger=logger, event="stream.enqueue_failed",
                     extra={"job_id": job_id})


@transaction.atomic
def stream_start(*, job: SqlJob, user: Any, action: str = StreamAction.START,
                 actor_name: str | None = None) -> StreamState:
    """STOPPED | FAILED → STARTING, desired running, and a supervisor is sent; any other status is a 409.

    The audit entry names `user`, or `actor_name` when no user acts (a shell: `cli:<OS user>`), as every action's
    does.
    """
    stream_state(job)
    now = timezone.now()
    moved = StreamState.objects.filter(job=job, status__in=IDLE_STATUSES).update(
        status=StreamStatus.STARTING, desired=Desired.RUNNING, restarts=0, last_error=None, started_at=None,
        enqueued_at=now, updated_at=now)
    if not moved:
        raise _refused(job, "start", "stop it first, or use restart")
    stream_statement_check(job=job)  # a refusal rolls the transition back: the stream stays as it was
    _audit(job, action, user, actor_name)
    transaction.on_commit(lambda: stream_enqueue(job_id=job.id))
    return StreamState.objects.get(job=job)


@transaction.atomic
def stream_stop(*, job: SqlJob, user: Any, actor_name: str | None = None) -> StreamState:
    """Ask the stream to stop gracefully (the batch in flight finishes); STOPPED or FAILED is a 409.

    A stream nobody supervises (its task not picked up yet, or its worker gone) is STOPPED at once.
    """
    stream_state(job)
    now = timezone.now()
    moved = StreamState.objects.filter(
        job=job, status__in=[StreamStatus.STARTING, StreamStatus.RUNNING, StreamStatus.RESTARTING,
                             StreamStatus.STOPPING],
    ).update(status=StreamStatus.STOPPING, desired=Desired.STOPPED, updated_at=now)
    if not moved:
        raise _refused(job, "stop", "it is not running")
    StreamState.objects.filter(job=job, status=StreamStatus.STOPPING).filter(
        Q(lease_owner="") | Q(lease_expires_at__lt=now)).update(status=StreamStatus.STOPPED, lease_owner="",
                                                                updated_at=now)
    _audit(job, StreamAction.STOP, user, actor_name)
    return StreamState.objects.get(job=job)


@transaction.atomic
def stream_restart(*, job: SqlJob, user: Any, actor_name: str | None = None) -> StreamState:
    """Restart the driver on the same checkpoint; a STOPPED or FAILED stream is started. STOPPING is a 409."""
    state = stream_state(job)
    if state.status in IDLE_STATUSES:
        try:
            return stream_start(job=job, user=user, action=StreamAction.RESTART, actor_name=actor_name)
        except Conflict:
            pass  # it was started concurrently: restart it below
    moved = StreamState.objects.filter(
        job=job, desired=Desired.RUNNING,
        status__in=[StreamStatus.STARTING, StreamStatus.RUNNING, StreamStatus.RESTARTING],
    ).update(restart_seq=F("restart_seq") + 1, updated_at=timezone.now())
    if not moved:
        raise _refused(job, "restart", "wait until it has stopped, then start it")
    stream_statement_check(job=job)  # a running driver is not replaced by one that cannot start
    _audit(job, StreamAction.RESTART, user, actor_name)
    return StreamState.objects.get(job=job)


@transaction.atomic
def stream_reset(*, job: SqlJob, user: Any, confirm: bool, actor_name: str | None = None) -> StreamState:
    """A new checkpoint generation: the next start reads every source from its beginning (audit-logged).

    Only a STOPPED or FAILED stream; without `confirm` nothing happens (400).
    """
    if not confirm:
        raise InvalidInput.of({"confirm": ["Send {\"confirm\": true}: a reset replays every source from its "
                                           "beginning into the sink."]})
    state = stream_state(job)
    moved = StreamState.objects.filter(job=job, status__in=IDLE_STATUSES,
                                       checkpoint_generation=state.checkpoint_generation).update(
        checkpoint_generation=F("checkpoint_generation") + 1, query_id=None, restarts=0, updated_at=timezone.now())
    if not moved:
        raise _refused(job, "reset", "stop it first")
    _audit(job, StreamAction.RESET, user, actor_name, {"checkpoint_generation": {
        "from": state.checkpoint_generation, "to": state.checkpoint_generation + 1}})
    return StreamState.objects.get(job=job)


# ---- one entry point for every caller, and following a stream until it settles --------------------------------
ACTIONS: dict[str, Callable[..., StreamState]] = {
    StreamAction.START: stream_start,
    StreamAction.STOP: stream_stop,
    StreamAction.RESTART: stream_restart,
}


def stream_act(*, job: SqlJob, user: Any, action: str, confirm: bool = False,
               actor_name: str | None = None) -> StreamState:
    """Carry out `action` (start, stop, restart, reset; `status` changes nothing) on the job's stream, audited as
    `user` or, when no user acts, as `actor_name`."""
    if action == StreamAction.RESET:
        return stream_reset(job=job, user=user, confirm=confirm, actor_name=actor_name)
    if action == "status":
        return stream_state(job)
    try:
        act = ACTIONS[action]
    except KeyError:
        raise InvalidInput.of({"action": [f"Unknown stream action '{action}'; use one of: status, "
                                          f"{', '.join([*ACTIONS, StreamAction.RESET])}."]}) from None
    return act(job=job, user=user, actor_name=actor_name)


# What an action waits for: the statuses it ends in when it worked, and the ones that say it did not.
SETTLED: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    StreamAction.START: (frozenset({StreamStatus.RUNNING}), frozenset({StreamStatus.FAILED, StreamStatus.STOPPED})),
    StreamAction.STOP: (frozenset({StreamStatus.STOPPED}), frozenset({StreamStatus.FAILED})),
}


@dataclass(frozen=True)
class StreamOutcome:
    """Where a stream stood when `stream_await` returned: `settled` when it reached an end status of the action,
    `ok` when that status is the one asked for."""

    state: StreamState
    settled: bool
    ok: bool


def stream_await(*, job: SqlJob, action: str, timeout: float, poll: float = 0.5,
                 on_change: Callable[[StreamState], None] | None = None) -> StreamOutcome:
    """Follow the stream after a start or a stop until it settles (RUNNING, or STOPPED for a stop; FAILED is a
    failure) or `timeout` seconds pass; `on_change` sees every new (status, restarts) on the way."""
    wanted, failed = SETTLED[action]
    deadline = time.monotonic() + timeout
    seen: tuple[str, int] | None = None
    while True:
        state = StreamState.objects.get(job=job)
        if on_change is not None and (state.status, state.restarts) != seen:
            on_change(state)
        seen = (state.status, state.restarts)
        if state.status in wanted or state.status in failed:
            return StreamOutcome(state, settled=True, ok=state.status in wanted)
        if time.monotonic() >= deadline:
            return StreamOutcome(state, settled=False, ok=False)
        time.sleep(poll)
