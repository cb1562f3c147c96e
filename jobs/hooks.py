"""Run-lifecycle hooks: how an app above `jobs` (lineage) takes part in a run without `jobs` importing it.

An app registers a `RunHook` (and, for the run-submission body, a `SubmissionHook`) in its `AppConfig.ready()`;
jobs calls every registered hook at fixed points of a run (docs/architecture.md, "Run hooks"):

- `run_started(run)`: the run was claimed and its engine is about to start;
- `request_extras(run)`: fields the hook adds to the engine's run request (lineage: the run's Delta snapshot);
- `run_finishing(run, status, statements)`: inside the transaction that ends the run, so what it writes commits
  with the run's end (a client that sees the run ended sees it too); what it returns is handed back to
- `run_finished(run, token)`: after that commit (slow work: an OpenLineage transport).

A hook observes: jobs logs and ignores its failure, except `run_finishing`, which must guard its own writes with a
savepoint (a failure there would otherwise roll the run's end back).

A run-end listener (`register_run_end_listener`; alerts) is told `run_ended(run, status)` inside the transaction that
stores any run's final status: a worker's `run_finish`, the reaper failing a lost run, a cancel before start. Like
`run_finishing` it must guard its own writes with a savepoint.

A `SubmissionHook` owns one optional field of a run submission (`POST .../runs/`): `validate` refuses bad input
with SubmissionRefused (a 400 naming the field) before the run exists; `store` saves it in the transaction that
creates the run, before the run's task is sent.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol, TypedDict

from lakeport_engine.protocol import SnapshotDocument, StatementEvent

if TYPE_CHECKING:
    from jobs.models import JobRun

logger = logging.getLogger("lakeport.jobs")


class RequestExtras(TypedDict, total=False):
    """Fields a hook adds to a run's engine request."""

    snapshot: SnapshotDocument | None


class RunHook(Protocol):
    """Takes part in every run's lifecycle (see the module docstring for when each method is called)."""

    def run_started(self, *, run: JobRun) -> None: ...

    def request_extras(self, *, run: JobRun) -> RequestExtras: ...

    def run_finishing(self, *, run: JobRun, status: str, statements: Sequence[StatementEvent]) -> object: ...

    def run_finished(self, *, run: JobRun, token: object) -> None: ...


class SubmissionRefused(Exception):
    """A run submission's field that cannot be honoured: the field (dotted path) and why."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


class SubmissionHook(Protocol):
    """Owns the optional field `field` of a run submission."""

    field: str

    def validate(self, *, team_id: int, data: object) -> object | None:
        """The field's value checked (None: nothing to store); SubmissionRefused when it is bad."""
        ...

    def store(self, *, run: JobRun, validated: object) -> None:
        """Save the validated value for `run`, in the transaction that creates it."""
        ...


RunEndListener = Callable[["JobRun", str], None]

_lock = threading.Lock()
_run_hooks: list[RunHook] = []
_submission_hooks: list[SubmissionHook] = []
_run_end_listeners: list[RunEndListener] = []


def register_run_end_listener(listener: RunEndListener) -> None:
    """Call `listener(run, status)` in the transaction of every run's end (idempotent)."""
    with _lock:
        if listener not in _run_end_listeners:
            _run_end_listeners.append(listener)


def run_ended(*, run: JobRun, status: str) -> None:
    """(Inside the transaction that stored the final `status` of `run`.) Tell every run-end listener."""
    with _lock:
        listeners = list(_run_end_listeners)
    for listener in listeners:
        listener(run, status)


def register_run_hook(hook: RunHook) -> None:
    """Add `hook` to every run from now on (idempotent: an app's ready() may run twice in tests)."""
    with _lock:
        if all(type(h) is not type(hook) for h in _run_hooks):
            _run_hooks.append(hook)


def register_submission_hook(hook: SubmissionHook) -> None:
    """Let `hook` own its field of run submissions (idempotent per field)."""
    with _lock:
        if all(h.field != hook.field for h in _submission_hooks):
            _submission_hooks.append(hook)


def run_hooks() -> list[RunHook]:
    """The registered run hooks, in registration order."""
    with _lock:
        return list(_run_hooks)


def submission_hooks() -> list[SubmissionHook]:
    """The registered submission hooks, in registration order."""
    with _lock:
        return list(_submission_hooks)


def run_started(*, run: JobRun) -> None:
    """Tell every hook the run started (a hook's failure is logged, never the run's)."""
    for hook in run_hooks():
        try:
            hook.run_started(run=run)
        except Exception:
            logger.exception("run.hook_failed", extra={"run_id": run.id, "hook": type(hook).__name__})


def request_extras(*, run: JobRun) -> RequestExtras:
    """What the hooks add to the run's engine request."""
    extras: RequestExtras = {}
    for hook in run_hooks():
        extras.update(hook.request_extras(run=run))
    return extras


def run_finishing(*, run: JobRun, status: str, statements: Sequence[StatementEvent]) -> list[tuple[RunHook, object]]:
    """Inside the transaction ending the run: each hook's writes; the tokens for `run_finished`."""
    return [(hook, hook.run_finishing(run=run, status=status, statements=statements)) for hook in run_hooks()]


def run_finished(*, run: JobRun, tokens: list[tuple[RunHook, object]]) -> None:
    """After the run's end is committed: each hook's after-commit work (failures logged)."""
    for hook, token in tokens:
        try:
            hook.run_finished(run=run, token=token)
        except Exception:
            logger.exception("run.hook_failed", extra={"run_id": run.id, "hook": type(hook).__name__})


def submission_validate(*, team_id: int, body: dict[str, object]) -> list[tuple[SubmissionHook, object]]:
    """Each hook's field of a submission body, validated (SubmissionRefused for a bad one)."""
    found = []
    for hook in submission_hooks():
        value = hook.validate(team_id=team_id, data=body.get(hook.field))
        if value is not None:
            found.append((hook, value))
    return found


def submission_store(*, run: JobRun, validated: list[tuple[SubmissionHook, object]]) -> None:
    """Save what `submission_validate` accepted for the new `run` (in its creating transaction)."""
    for hook, value in validated:
        hook.store(run=run, validated=value)
