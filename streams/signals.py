"""Signal handlers of streams: a worker shutting down stops its drivers (and frees their leases); editing the SQL
of a running streaming job restarts its driver on the same checkpoint."""

from __future__ import annotations

from typing import Any

from celery.signals import worker_shutting_down
from django.db import transaction
from django.db.models import F
from django.db.models.signals import pre_save
from django.dispatch import receiver
from django.utils import timezone

from jobs.models import JobKind, SqlJob
from streams.models import Desired, StreamState, StreamStatus
from streams.services.supervisor import SHUTDOWN


@receiver(worker_shutting_down)
def _stop_drivers(**kwargs: Any) -> None:
    SHUTDOWN.set()


@receiver(pre_save, sender=SqlJob)
def _restart_on_edit(sender: type[SqlJob], instance: SqlJob, **kwargs: Any) -> None:
    # A new script restarts the driver on the same checkpoint; when Spark cannot resume it (changed aggregation
    # keys…), the driver fails with Spark's reason, which the stream shows as its last error.
    if instance.pk is None or instance.kind != JobKind.STREAMING:
        return
    before = SqlJob.objects.filter(pk=instance.pk).values("sql", "spark_conf", "default_catalog").first()
    if before is None or before == {"sql": instance.sql, "spark_conf": instance.spark_conf,
                                    "default_catalog": instance.default_catalog}:
        return
    job_id = instance.pk
    transaction.on_commit(lambda: StreamState.objects.filter(
        job_id=job_id, desired=Desired.RUNNING,
        status__in=[StreamStatus.STARTING, StreamStatus.RUNNING, StreamStatus.RESTARTING],
    ).update(restart_seq=F("restart_seq") + 1, updated_at=timezone.now()))
