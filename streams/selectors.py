"""Reads of streams: the state a user sees (with the latest batch and the falling-behind flag) and metrics by
time range. Scoped by the job, which callers fetch for their team (another team's job → 404)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db.models import QuerySet

from jobs.models import SqlJob
from streams.models import StreamAudit, StreamMetric, StreamState
from teams.models import Team

MAX_POINTS = 2000


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
    lags = [lag for lag in StreamMetric.objects.filter(job=job, lag__isnull=False).order_by("-ts", "-id")
            .values_list("lag", flat=True)[: n + 1] if lag is not None]
    if len(lags) < n + 1:
        return False
    lags.reverse()
    return all(later > earlier for earlier, later in zip(lags, lags[1:], strict=False))


@dataclass(frozen=True)
class StreamView:
    """A stream as users see it (streams.apis.StreamStateOutput): its state, newest batch and falling-behind flag."""

    state: StreamState
    latest: StreamMetric | None
    falling_behind: bool


def stream_view(state: StreamState) -> StreamView:
    """The state with its newest batch (None before the first) and whether the source lag keeps growing."""
    latest = StreamMetric.objects.filter(job_id=state.job_id).order_by("-ts", "-id").first()
    return StreamView(state=state, latest=latest, falling_behind=falling_behind(job=state.job))


def stream_audit_list(*, team: Team, job_name: str) -> QuerySet[StreamAudit]:
    """Who did what to the stream of the job `job_name`, newest first; it outlives the job. `actor_name` is the user
    (API, or a shell's `--as`), or `cli:<OS user>` for a shell that named none."""
    return StreamAudit.objects.filter(team=team, job_name=job_name).order_by("-ts", "-id")
