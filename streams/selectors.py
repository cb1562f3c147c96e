"""Reads of streams: the state a user sees (with the latest batch and the falling-behind flag) and metrics by
time range. Scoped by the job, which callers fetch for their team (another team's job → 404)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.conf import settings

from jobs.models import SqlJob
from streams.models import StreamMetric, StreamState

MAX_POINTS = 2000


def metric_out(metric: StreamMetric) -> dict[str, Any]:
    """One batch as the API shows it."""
    return {
        "batch_id": metric.batch_id, "ts": metric.ts, "input_rows": metric.input_rows,
        "input_rows_per_second": metric.input_rows_per_second,
        "processed_rows_per_second": metric.processed_rows_per_second, "output_rows": metric.output_rows,
        "output_rows_per_second": metric.output_rows_per_second, "duration_ms": metric.duration_ms,
        "watermark": metric.watermark, "state_rows": metric.state_rows,
        "state_memory_bytes": metric.state_memory_bytes, "lag": metric.lag,
    }


def metrics_range(*, job: SqlJob, since: datetime | None = None, until: datetime | None = None,
                  limit: int = MAX_POINTS) -> list[StreamMetric]:
    """The job's batches in [since, until], oldest first; the newest `limit` of them when there are more."""
    qs = StreamMetric.objects.filter(job=job)
    if since is not None:
        qs = qs.filter(ts__gte=since)
    if until is not None:
        qs = qs.filter(ts__lte=until)
    newest = list(qs.order_by("-ts", "-id")[:limit])
    return newest[::-1]


def falling_behind(*, job: SqlJob, batches: int | None = None) -> bool:
    """True when the source lag grew at each of the last N batches (LAKEPORT_STREAM_FALLING_BEHIND_BATCHES)."""
    n = batches or settings.LAKEPORT_STREAM_FALLING_BEHIND_BATCHES
    lags = list(StreamMetric.objects.filter(job=job, lag__isnull=False).order_by("-ts", "-id")
                .values_list("lag", flat=True)[: n + 1])
    if len(lags) < n + 1:
        return False
    lags.reverse()
    return all(later > earlier for earlier, later in zip(lags, lags[1:], strict=False))


def stream_out(state: StreamState) -> dict[str, Any]:
    """The StreamState body of the API."""
    latest = StreamMetric.objects.filter(job_id=state.job_id).order_by("-ts", "-id").first()
    return {
        "status": state.status, "desired": state.desired, "restarts": state.restarts,
        "last_error": state.last_error, "query_id": state.query_id, "started_at": state.started_at,
        "heartbeat_at": state.heartbeat_at, "checkpoint_generation": state.checkpoint_generation,
        "latest": metric_out(latest) if latest is not None else None,
        "falling_behind": falling_behind(job=state.job),
    }
