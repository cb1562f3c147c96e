"""Signal handlers of streams: a worker shutting down stops its drivers (and frees their leases); editing the SQL
of a running streaming job restarts its driver on the same checkpoint; a job whose stream is active keeps its
kind and cannot be deleted until the stream is stopped."""

from __future__ import annotations

from typing import Any

from celery.signals import worker_shutting_down
from django.db import transaction
from django.db.models import F
from django.db.models.signals import pre_delete, pre_save
from django.dispatch import receiver
from django.utils import timezone

from core.errors import Conflict, InvalidInput
from jobs.models import JobKind, SqlJob
from streams.models import ACTIVE_STATUSES, Desired, StreamState, StreamStatus
from streams.services.supervisor import SHUTDOWN

RESTARTED_BY = ("sql", "spark_conf", "default_catalog", "parameters")


@receiver(worker_shutting_down)
def _stop_drivers(**kwargs: Any) -> None:
    SHUTDOWN.set()


def _active(job_id: int) -> bool:
    return StreamState.objects.filter(job_id=job_id, status__in=ACTIVE_STATUSES).exists()


@receiver(pre_save, sender=SqlJob)
def _on_job_edit(sender: type[SqlJob], instance: SqlJob, **kwargs: Any) -> None:
    if instance.pk is None:
        return
    before = SqlJob.objects.filter(pk=instance.pk).values("kind", *RESTARTED_BY).first()
    if before is None or before["kind"] != JobKind.STREAMING:
        return
    if instance.kind != JobKind.STREAMING:
        if _active(instance.pk):
            raise InvalidInput.of({"kind": ["The job's stream is running; stop it before changing the kind."]})
        return
    if all(before[name] == getattr(instance, name) for name in RESTARTED_BY):
        return
    # A new script restarts the driver on the same checkpoint; when Spark cannot resume it (changed aggregation
    # keys…), the stream is FAILED at once with Spark's reason and the way out (reset), without retries.
    job_id = instance.pk
    transaction.on_commit(lambda: StreamState.objects.filter(
        job_id=job_id, desired=Desired.RUNNING,
        status__in=[StreamStatus.STARTING, StreamStatus.RUNNING, StreamStatus.RESTARTING],
    ).update(restart_seq=F("restart_seq") + 1, updated_at=timezone.now()))


@receiver(pre_delete, sender=SqlJob)
def _on_job_delete(sender: type[SqlJob], instance: SqlJob, **kwargs: Any) -> None:
    if instance.kind == JobKind.STREAMING and _active(instance.pk):
        raise Conflict(f"The stream of job '{instance.name}' is running; stop it before deleting the job.")
