"""The streams tick (celery beat, every LAKEPORT_STREAM_TICK_SECONDS): resume streams nobody supervises, finish
stops nobody carries out, prune old metrics.

A stream wanted running whose lease is free or expired (its worker died, or the platform was stopped) gets its
supervise task again, at most once per lease period; the conditional lease take makes duplicates harmless.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from streams.models import ACTIVE_STATUSES, Desired, StreamState, StreamStatus
from streams.services.lifecycle import stream_enqueue
from streams.services.metrics import metrics_prune

logger = logging.getLogger("lakeport.streams")


@dataclass
class TickReport:
    """What one tick did."""

    resumed: list[int] = field(default_factory=list)
    stopped: list[int] = field(default_factory=list)
    pruned: int = 0


def streams_tick() -> TickReport:
    """Resume unsupervised streams that should run, stop unsupervised ones that should not, prune metrics."""
    now = timezone.now()
    report = TickReport()
    lease = timedelta(seconds=settings.LAKEPORT_STREAM_LEASE_SECONDS)
    unsupervised = Q(lease_owner="") | Q(lease_expires_at__lt=now) | Q(lease_expires_at__isnull=True)
    not_recently_sent = Q(enqueued_at__isnull=True) | Q(enqueued_at__lt=now - lease)
    # Only streams still on their way: a FAILED one keeps desired=running (what its user asked) but stays failed
    for job_id in (StreamState.objects.filter(unsupervised, not_recently_sent, desired=Desired.RUNNING,
                                              status__in=ACTIVE_STATUSES)
                   .values_list("job_id", flat=True)):
        stream_enqueue(job_id=job_id)
        report.resumed.append(job_id)
    for state in StreamState.objects.filter(unsupervised, desired=Desired.STOPPED, status__in=ACTIVE_STATUSES):
        # the lease in the filter: a supervisor that took it since we read it finishes the stop itself
        if StreamState.objects.filter(unsupervised, job_id=state.job_id, desired=Desired.STOPPED,
                                      status__in=ACTIVE_STATUSES).update(status=StreamStatus.STOPPED,
                                                                         lease_owner="", updated_at=now):
            report.stopped.append(state.job_id)
    report.pruned = metrics_prune(now=now)
    if report.resumed or report.stopped:
        logger.info("streams.tick", extra={"resumed": report.resumed, "stopped": report.stopped,
                                           "pruned": report.pruned})
    return report
