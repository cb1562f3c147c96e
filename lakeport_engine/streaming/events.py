"""Per-micro-batch events of a streaming query, as JSON-ready dicts (the runner prints them as JSON lines).

A `StreamingQueryListener` hears Spark's progress after every batch; `batch_event` keeps what an operator reads:
rows in and out and their rates, duration, watermark, state size, and each source's offsets and lag.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

from pyspark.sql.streaming.listener import StreamingQueryListener

Event = dict[str, Any]


def batch_event(progress: dict[str, Any], rows_written: int | None = None) -> Event:
    """The `batch` event of one StreamingQueryProgress (as its JSON dict); `rows_written` from batch sinks."""
    duration_ms = int(progress.get("batchDuration") or (progress.get("durationMs") or {}).get("triggerExecution") or 0)
    sink_rows = (progress.get("sink") or {}).get("numOutputRows")
    output_rows = rows_written if rows_written is not None else (sink_rows if (sink_rows or 0) >= 0 else None)
    states = progress.get("stateOperators") or []
    return {
        "event": "batch",
        "query_id": progress.get("id"),
        "run_id": progress.get("runId"),
        "batch_id": progress.get("batchId"),
        "timestamp": progress.get("timestamp"),
        "input_rows": progress.get("numInputRows", 0),
        "input_rows_per_second": _rate(progress.get("inputRowsPerSecond")),
        "processed_rows_per_second": _rate(progress.get("processedRowsPerSecond")),
        "output_rows": output_rows,
        "output_rows_per_second": (round(output_rows * 1000 / duration_ms, 1)
                                   if output_rows is not None and duration_ms > 0 else None),
        "duration_ms": duration_ms,
        "watermark": (progress.get("eventTime") or {}).get("watermark"),
        "state_rows": sum(int(s.get("numRowsTotal") or 0) for s in states) if states else None,
        "state_memory_bytes": sum(int(s.get("memoryUsedBytes") or 0) for s in states) if states else None,
        "late_rows_dropped": sum(int(s.get("numRowsDroppedByWatermark") or 0) for s in states) if states else None,
        "sources": [_source(s) for s in progress.get("sources") or []],
    }


def _source(source: dict[str, Any]) -> dict[str, Any]:
    end, latest = _offset(source.get("endOffset")), _offset(source.get("latestOffset"))
    return {
        "description": source.get("description"),
        "start_offset": _offset(source.get("startOffset")),
        "end_offset": end,
        "latest_offset": latest,
        "input_rows": source.get("numInputRows", 0),
        "lag": _lag(end, latest, source.get("metrics") or {}),
    }


def _offset(value: Any) -> Any:
    """Spark reports offsets as JSON text or objects; both become JSON values."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _lag(end: Any, latest: Any, metrics: dict[str, Any]) -> int | None:
    """Records between the batch's end offset and the latest one: a source's own metric, else numeric offsets."""
    for name, value in metrics.items():
        if "lag" in name.lower() or "behind" in name.lower():
            try:
                return int(float(value))
            except (TypeError, ValueError):
                break
    if isinstance(end, (int, float)) and isinstance(latest, (int, float)):
        return int(latest - end)
    if isinstance(end, dict) and isinstance(latest, dict) and isinstance(end.get("n"), int) \
            and isinstance(latest.get("n"), int):  # an entry count beside a non-numeric position (Redis Streams)
        return max(0, int(latest["n"]) - int(end["n"]))
    if isinstance(end, dict) and isinstance(latest, dict):
        pairs = [(end.get(k), v) for k, v in latest.items()]
        if pairs and all(isinstance(a, (int, float)) and isinstance(b, (int, float)) for a, b in pairs):
            return int(sum(b - a for a, b in pairs))
    return None


def _rate(value: Any) -> float | None:
    return round(float(value), 1) if isinstance(value, (int, float)) else None


class BatchEvents(StreamingQueryListener):
    """Sends a `batch` event for each progress Spark reports (one query per runner), and notes its end."""

    def __init__(self, send: Callable[[Event], None], rows_written: Callable[[int], int | None] | None = None) -> None:
        self.send = send
        self.rows_written = rows_written
        self.batches = 0
        self.last: Event | None = None
        self.terminated = threading.Event()
        self.error: str | None = None

    def onQueryStarted(self, event: Any) -> None:  # noqa: N802 - Spark's listener API
        pass

    def onQueryProgress(self, event: Any) -> None:  # noqa: N802
        progress = json.loads(event.progress.json)
        batch_id = progress.get("batchId")
        written = self.rows_written(batch_id) if self.rows_written is not None and batch_id is not None else None
        self.last = batch_event(progress, written)
        self.batches += 1
        self.send(self.last)

    def onQueryIdle(self, event: Any) -> None:  # noqa: N802
        pass

    def onQueryTerminated(self, event: Any) -> None:  # noqa: N802
        self.error = event.exception
        self.terminated.set()


__all__ = ["BatchEvents", "Event", "batch_event"]
