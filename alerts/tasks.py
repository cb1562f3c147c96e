"""Celery task of the outbox (thin: services/delivery.py does the work; safe in many processes)."""

from __future__ import annotations

from celery import shared_task

from alerts.services.delivery import deliveries_send
from alerts.services.incidents import DELIVER_TASK
from alerts.services.watch import alerts_watch


@shared_task(name=DELIVER_TASK, acks_late=True, ignore_result=True)
def deliver() -> None:
    """Check the duration and rate rules, then send every due alert (sent after each outbox write, and by beat
    periodically for retries and those rules)."""
    alerts_watch()
    deliveries_send()
