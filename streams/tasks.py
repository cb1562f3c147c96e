"""Celery tasks of streams (thin: they take ids and call services; services send them by name)."""

from __future__ import annotations

from celery import Task, shared_task

from streams.services.lifecycle import SUPERVISE_TASK
from streams.services.supervisor import stream_supervise
from streams.services.tick import streams_tick


# Not acks_late: a supervision lasts as long as its stream (hours); Redis would deliver an unacknowledged message
# again after its visibility timeout. A lost worker is covered by the lease and the tick instead.
@shared_task(name=SUPERVISE_TASK, acks_late=False, ignore_result=True, bind=True)
def supervise(self: Task, job_id: int) -> None:
    """Take the stream's lease and supervise its driver; skipped when another worker holds the lease."""
    stream_supervise(job_id=job_id, worker=self.request.hostname or "worker")


@shared_task(name="streams.tick", acks_late=True, ignore_result=True)
def tick() -> None:
    """Resume streams nobody supervises, finish stops, prune old metrics."""
    streams_tick()
