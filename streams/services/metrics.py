"""Per-batch metrics from the runtime's `batch` events (lakeport_engine/streaming/events.py), and their pruning."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from streams.models import StreamMetric

PRUNE_CHUNK = 5000


def batch_lag(event: Mapping[str, Any]) -> int | None:
    """Records the sources hold beyond the batch: the sum of each source's lag, None when none is known."""
    lags = [s.get("lag") for s in event.get("sources") or [] if isinstance(s.get("lag"), (int, float))]
    return int(sum(lags)) if lags else None


def _time(value: Any) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    parsed = parse_datetime(value)
    if parsed is not None and timezone.is_naive(parsed):
        parsed = parsed.replace(tzinfo=UTC)
    return parsed


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, (int, float)) else None


def metric_record(*, job_id: int, generation: int, event: Mapping[str, Any]) -> StreamMetric:
    """Store one `batch` event; `ts` is Spark's trigger time of the batch (now if Spark did not say)."""
    return StreamMetric.objects.create(
        job_id=job_id, generation=generation, query_id=str(event.get("query_id") or "")[:64],
        batch_id=int(event.get("batch_id") or 0), ts=_time(event.get("timestamp")) or timezone.now(),
        input_rows=_int(event.get("input_rows")) or 0,
        input_rows_per_second=event.get("input_rows_per_second"),
        processed_rows_per_second=event.get("processed_rows_per_second"),
        output_rows=_int(event.get("output_rows")), output_rows_per_second=event.get("output_rows_per_second"),
        duration_ms=_int(event.get("duration_ms")) or 0, watermark=_time(event.get("watermark")),
        state_rows=_int(event.get("state_rows")), state_memory_bytes=_int(event.get("state_memory_bytes")),
        lag=batch_lag(event),
    )


def metrics_prune(*, now: datetime | None = None) -> int:
    """Delete metrics older than LAKEPORT_STREAM_METRICS_RETENTION_HOURS (in chunks); the number deleted."""
    before = (now or timezone.now()) - timedelta(hours=settings.LAKEPORT_STREAM_METRICS_RETENTION_HOURS)
    deleted = 0
    while True:
        ids = list(StreamMetric.objects.filter(ts__lt=before).values_list("id", flat=True)[:PRUNE_CHUNK])
        if not ids:
            return deleted
        deleted += StreamMetric.objects.filter(id__in=ids).delete()[0]
