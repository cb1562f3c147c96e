"""Celery task of the outbox (thin: services/delivery.py does the work; safe in many processes)."""

from __future__ import annotations

from celery import shared_task

from alerts.services.delivery import deliveries_send
from alerts.services.incidents import DELIVER_TASK


@shared_task(name=DELIVER_TASK, acks_late=True, ignore_result=True)
def deliver() -> None:
    """Send every due alert (after each outbox write, and periodically for retries)."""
    deliveries_send()
