"""One call of a team engine: send a request, hear its (decoded, typed) events, wait for its result, cancel it.

Every service that talks to an engine (a run, an editor call, a live preview, a stream's driver) goes through
`EngineCall` on an engine it leased from the worker's `EnginePool` (jobs/engines/pool.py): the request is one of
lakeport_engine/protocol.py's, the events are decoded once by the engine's reader thread, and the call is forgotten
by the engine when the block ends, whoever stopped waiting. Django-free (checked strictly by mypy).
"""

from __future__ import annotations

from types import TracebackType

from jobs.engines.base import EventHandler, PendingAnswer, TeamEngine
from lakeport_engine.protocol import EngineRequest, RequestResult


class EngineCall:
    """A request in flight on `engine`; use as a context manager (the engine forgets it at the end)."""

    def __init__(self, engine: TeamEngine, request: EngineRequest, *, on_event: EventHandler | None = None) -> None:
        self.engine = engine
        self.request = request
        self._pending: PendingAnswer = engine.request(request, on_event=on_event)

    @property
    def id(self) -> str:
        """The request's id on the channel."""
        return self._pending.id

    @property
    def done(self) -> bool:
        """True once the engine's result (or the news that the engine died) has come."""
        return self._pending.done.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the result (at most `timeout` seconds); True when it has come."""
        return self._pending.done.wait(timeout)

    @property
    def result(self) -> RequestResult:
        """The engine's result (empty until `done`)."""
        return self._pending.result

    def cancel(self) -> None:
        """Stop the request: its running statement, a live preview now, a stream after the batch in flight."""
        self.engine.cancel(self._pending.id)

    def __enter__(self) -> EngineCall:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.engine.forget(self._pending.id)


def call_engine(engine: TeamEngine, request: EngineRequest, *, on_event: EventHandler | None = None) -> RequestResult:
    """Send `request` to `engine` and wait for its result (events to `on_event`)."""
    with EngineCall(engine, request, on_event=on_event) as call:
        call.wait()
        return call.result
