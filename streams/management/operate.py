"""A stream operated from a shell, shared by `manage.py stream` and `manage.py runjob`: act through the lifecycle
services (as the API does, audited as the `--as` user or `cli:<OS user>`), follow the stream until it settles when asked, print the API's
stream body, and turn a refusal, a FAILED stream or a timeout into a CommandError (a non-zero exit)."""

from __future__ import annotations

import json

from django.core.management.base import CommandError, OutputWrapper

from core.errors import DomainError
from jobs.models import SqlJob
from streams.apis import stream_body
from streams.models import StreamState, StreamStatus
from streams.services.lifecycle import SETTLED, stream_act, stream_await
from teams.management.actor import CliActor


def operate_stream(*, job: SqlJob, action: str, actor: CliActor, out: OutputWrapper, err: OutputWrapper,
                   wait: bool = False, timeout: float = 300.0, confirm: bool = False) -> StreamState:
    """Carry out `action` on the job's stream as `actor` and print its state; with `wait` (start, stop), follow it
    first."""
    try:
        state = stream_act(job=job, user=actor.user, action=action, confirm=confirm, actor_name=actor.name)
    except DomainError as exc:  # a batch job, a transition its status does not allow, a statement that cannot start
        raise CommandError(exc.summary()) from None
    if not wait or action not in SETTLED:
        out.write(json.dumps(stream_body(state), indent=2))
        return state
    where = f"stream of job '{job.name}' in team '{job.team.name}'"

    def progress(seen: StreamState) -> None:
        restarts = f" (restart {seen.restarts})" if seen.restarts else ""
        error = f": {seen.last_error}" if seen.last_error and seen.status == StreamStatus.RESTARTING else ""
        err.write(f"{where}: {seen.status}{restarts}{error}")

    outcome = stream_await(job=job, action=action, timeout=timeout, on_change=progress)
    out.write(json.dumps(stream_body(outcome.state), indent=2))
    status = outcome.state.status
    if not outcome.settled:
        raise CommandError(f"The {where} is still {status} after {timeout:g} s; it keeps going: follow it with "
                           f"`manage.py stream status --team {job.team.name} --job '{job.name}'`.")
    if not outcome.ok:
        reason = f": {outcome.state.last_error}" if outcome.state.last_error else " (stopped meanwhile)"
        raise CommandError(f"The {where} is {status}{reason}")
    return outcome.state
