"""The engine contract: what a worker holds of an engine, what hears a run's events, and what a run comes to.

Django-free (checked strictly by mypy): `EngineProcess` (process.py) is the one engine, `RunRecorder`
(jobs/services/recorder.py) the one listener; services depend on these protocols' shapes. What travels to and
from an engine is declared in lakeport_engine/protocol.py (re-exported here: `RunError`, `StatementEvent`), so a
statement arrives as a dict in one shape (`StatementEvent`), never as the runtime's dataclass.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypedDict

from lakeport_engine.protocol import EngineEvent, EngineRequest, RequestResult, RunError, StatementEvent
from lakeport_engine.script import StatementStatus

EventHandler = Callable[[EngineEvent], None]


class PreviewResult(TypedDict):
    """The rows of the last statement that produced rows."""

    columns: list[dict[str, str]]
    rows: list[list[Any]]
    truncated: bool


class EngineIdentity(Protocol):
    """What names an engine: its team, whether it is a run's own, and a label for logs."""

    @property
    def team(self) -> str: ...

    @property
    def dedicated(self) -> str: ...

    @property
    def kind(self) -> str:
        """`isolated` for a run's own engine, `warm` for the team's shared one."""
        ...

    @property
    def label(self) -> str: ...


class PendingAnswer(Protocol):
    """One request in flight: `done` is set once `result` holds the engine's final message."""

    id: str
    done: threading.Event
    result: RequestResult


class TeamEngine(Protocol):
    """A team's engine process as services use it (jobs/engines/process.py `EngineProcess`)."""

    started: threading.Event

    @property
    def key(self) -> EngineIdentity: ...

    @property
    def pid(self) -> int | None: ...

    def request(self, payload: EngineRequest, *, on_event: EventHandler | None = None) -> PendingAnswer:
        """Send a run/validate/preview request; its events go to `on_event`, its result ends the wait."""
        ...

    def cancel(self, request_id: str) -> None:
        """Cancel a request's running statement; later statements are skipped."""
        ...

    def forget(self, request_id: str) -> None:
        """Drop a request nobody waits for any more."""
        ...


class RunListener(Protocol):
    """Hears one run's engine events (jobs/services/recorder.py `RunRecorder` writes them to the run)."""

    def on_statement_start(self, index: int, total: int, sql: str) -> None:
        """Statement `index` (0-based) of `total` is about to run."""
        ...

    def on_statement_end(self, result: StatementEvent) -> None:
        """A statement finished (succeeded, failed or skipped)."""
        ...

    def on_log(self, message: str) -> None:
        """A log line from the engine."""
        ...

    def set_app(self, *, app_id: str, ui_url: str = "") -> None:
        """The Spark application running the run."""
        ...

    def set_progress(self, **counts: int) -> None:
        """Stage and task counts."""
        ...

    def on_cancel(self, callback: Callable[[], None]) -> None:
        """What to call when the run is cancelled (or taken away from this worker)."""
        ...


@dataclass
class Outcome:
    """The result of one attempt: the engine's statements in plain data, plus Spark application facts."""

    succeeded: bool
    error: RunError | None
    statements: list[StatementEvent] = field(default_factory=list)
    catalogs_used: list[str] = field(default_factory=list)
    result: PreviewResult | None = None
    engine: str = ""
    cancelled: bool = False
    engine_lost: bool = False  # the engine process died under the run: retried while attempts remain


def last_result(statements: Sequence[Mapping[str, Any]]) -> PreviewResult | None:
    """The preview of the last statement that produced rows: `{"columns", "rows", "truncated"}`."""
    for st in reversed(statements):
        columns = st.get("columns")
        if columns is not None and st.get("status") == StatementStatus.SUCCEEDED:
            rows = st.get("rows")
            return {"columns": columns, "rows": rows if isinstance(rows, list) else [],
                    "truncated": bool(st.get("truncated"))}
    return None


__all__ = ["EngineIdentity", "EventHandler", "Outcome", "PendingAnswer", "PreviewResult", "RunError", "RunListener",
           "StatementEvent", "TeamEngine", "last_result"]
