"""Celery task of the beat's schedule tick (thin: the service does the work and is safe in many processes)."""

from __future__ import annotations

from celery import shared_task

from schedules.services.tick import schedules_tick

TICK_TASK = "schedules.tick"


@shared_task(name=TICK_TASK, acks_late=True, ignore_result=True)
def tick() -> None:
    """Fire every due schedule tick once (two beats or workers running this at once fire nothing twice)."""
    schedules_tick()
