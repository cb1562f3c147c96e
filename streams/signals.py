"""Signal handlers of streams: a worker shutting down stops its drivers (and frees their leases). The rules on job
edits and deletes are the streaming kind's policy (streams/services/kind_rules.py), which the job services call."""

from __future__ import annotations

from typing import Any

from celery.signals import worker_shutting_down
from django.dispatch import receiver

from streams.services.supervisor import SHUTDOWN


@receiver(worker_shutting_down)
def _stop_drivers(**kwargs: Any) -> None:
    SHUTDOWN.set()
