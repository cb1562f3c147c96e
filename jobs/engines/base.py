"""The engine contract: what a worker holds of an engine, what hears a run's events, and what a run comes to.

Django-free (checked strictly by mypy): `EngineProcess` (process.py) is the one engine, `RunRecorder`
(jobs/services/recorder.py) the one listener; services depend on these protocols' shapes. Engine messages
are JSON, so a statement arrives as a dict in one shape (`StatementEvent`), never as the runtime's dataclass.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypedDict

from lakeport_engine.script import StatementStatus

JsonObject = dict[str, Any]  # one JSON message on the engine channel
EventHandler = Callable[[JsonObject], None]


class RunError(TypedDict):
    """Why a run or an editor call failed: the 0-based statement and its script-absolute position, if known."""

    statement: int | None
    line: int | None
    column: int | None
    message: str


class StatementSpanEvent(TypedDict):
    """Where a statement is in the script the engine ran (`StatementSpan` in lakeport_engine/sqltext.py): [start, end)
    character offsets without the `;`, and its 1-based first line and column."""

    start: int
    end: int
    line: int
    column: int


class StatementEvent(TypedDict, total=False):
    """A finished statement as the engine sends it (`StatementResult.as_dict()` in lakeport_engine/script.py)."""

    event: str
    index: int
    sql: str
    status: str
    started_at: float | str | None
    elapsed_ms: int | None
    columns: list[dict[str, str]] | None
    rows: list[list[Any]] | int | None
    truncated: bool
    error: str | None
    line: int | None  # a failed statement's: where it failed; any other's: where it starts
    column: int | None
    span: StatementSpanEvent | None


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
    result: JsonObject


class TeamEngine(Protocol):
    """A team's engine process as services use it (jobs/engines/process.py `EngineProcess`)."""

    started: threading.Event

    @property
    def key(self) -> EngineIdentity: ...

    @property
    def pid(self) -> int | None: ...

    def request(self, payload: JsonObject, *, on_event: EventHandler | None = None) -> PendingAnswer:
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
