"""What a run keeps of its data: values any database stores, and a result no larger than the operator allows.

Two hazards come from the rows and messages a user's SQL produces. PostgreSQL stores no NUL character (`text` and
`jsonb` refuse U+0000) and no database driver encodes a lone surrogate (U+D800–U+DFFF) to UTF-8, so one such
character in a cell or an error message failed the run's final write, and the worker task with it. `storable()`
writes them as the six characters `\\u0000` / `\\udXXX` (shown escaped: documented in docs/jobs.md); every other
character, control characters included, is kept as it is, on PostgreSQL and SQLite alike.

A result is bounded by `LAKEPORT_RESULT_MAX_BYTES` (its JSON size): rows are kept while they fit; a row that does
not fit has its long cells cut, the result is flagged `truncated` and the run's log says why. The run still
SUCCEEDS: the statement ran, only the copy the platform keeps is shorter (as Databricks and Hue truncate results).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TypeVar

from django.conf import settings

from jobs.engines.base import PreviewResult

T = TypeVar("T")
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
ELLIPSIS = "…"
# Bytes kept of a row that does not fit whole: less than this and the row is dropped instead.
MIN_CUT_ROW_BYTES = 64


def storable(value: T) -> T:
    """`value` (JSON-ready data or text) with NUL and lone surrogates written as `\\uXXXX` text, so it stores."""
    if isinstance(value, str):
        return _escaped(value)  # type: ignore[return-value]
    if isinstance(value, list):
        return [storable(v) for v in value]  # type: ignore[return-value]
    if isinstance(value, tuple):
        return tuple(storable(v) for v in value)  # type: ignore[return-value]
    if isinstance(value, dict):
        return {storable(k): storable(v) for k, v in value.items()}  # type: ignore[return-value]
    return value


def _escaped(text: str) -> str:
    if _UNSTORABLE.search(text) is None:
        return text
    return _UNSTORABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def json_size(value: object) -> int:
    """Bytes of `value` as the API sends it (compact JSON, UTF-8)."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str).encode("utf-8",
                                                                                            "surrogatepass"))


@dataclass(frozen=True)
class BoundedResult:
    """A result cut to the size limit: the result, and the reason it was cut ("" when it was kept whole)."""

    result: PreviewResult | None
    cut: str = ""


def result_max_bytes() -> int:
    """The operator's limit on a kept result (`LAKEPORT_RESULT_MAX_BYTES`)."""
    return int(settings.LAKEPORT_RESULT_MAX_BYTES)


def result_bounded(result: PreviewResult | None, *, max_bytes: int | None = None) -> BoundedResult:
    """`result` with its rows cut to `max_bytes` of JSON (default: the setting), flagged `truncated` when cut."""
    if result is None:
        return BoundedResult(None)
    limit = result_max_bytes() if max_bytes is None else max_bytes
    rows = result.get("rows") or []
    budget = limit - json_size({**result, "rows": []})
    kept: list[list[object]] = []
    used = 0
    for row in rows:
        size = json_size(row) + 1  # the comma between rows
        if used + size <= budget:
            kept.append(row)
            used += size
            continue
        cut_row = _cut_row(row, budget - used)
        if cut_row is not None:
            kept.append(cut_row)
        bounded: PreviewResult = {"columns": result.get("columns") or [], "rows": kept, "truncated": True}
        reason = (f"The result was cut to {len(kept)} of {len(rows)} row(s){' (the last one shortened)' if cut_row else ''}"
                  f": the platform keeps at most {limit} bytes of a result (LAKEPORT_RESULT_MAX_BYTES).")
        return BoundedResult(bounded, reason)
    return BoundedResult(result)


def _cut_row(row: list[object], room: int) -> list[object] | None:
    """`row` with every long cell shortened so the row takes about `room` bytes; None when too little room is left."""
    if room < MIN_CUT_ROW_BYTES or not row:
        return None
    share = max(8, (room - 4 * len(row)) // len(row))
    cells: list[object] = []
    for cell in row:
        if json_size(cell) <= share:
            cells.append(cell)
            continue
        text = cell if isinstance(cell, str) else json.dumps(cell, ensure_ascii=False, default=str)
        head = text.encode("utf-8", "surrogatepass")[: max(0, share - 8)].decode("utf-8", "ignore")
        cells.append(head + ELLIPSIS)
    return cells if json_size(cells) <= room else None
