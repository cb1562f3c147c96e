"""What every engine returns, and how engines reach the catalog store and the runtime."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Outcome:
    """The result of one attempt: the runtime's ScriptResult in plain data, plus Spark application facts."""

    succeeded: bool
    error: dict[str, Any] | None
    statements: list[dict[str, Any]] = field(default_factory=list)
    catalogs_used: list[str] = field(default_factory=list)
    result: dict[str, Any] | None = None
    engine: str = ""
    cancelled: bool = False
    engine_lost: bool = False  # the engine process died under the run: retried while attempts remain


def last_result(statements: list[Any]) -> dict[str, Any] | None:
    """The preview of the last statement that produced rows: `{"columns", "rows", "truncated"}`."""
    for st in reversed(statements):
        columns = st.get("columns") if isinstance(st, dict) else getattr(st, "columns", None)
        if columns is not None and (st.get("status") if isinstance(st, dict) else st.status) == "succeeded":
            rows = st.get("rows") if isinstance(st, dict) else st.rows
            truncated = st.get("truncated") if isinstance(st, dict) else st.truncated
            return {"columns": columns, "rows": rows or [], "truncated": bool(truncated)}
    return None
