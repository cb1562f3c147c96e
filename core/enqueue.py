"""Sending a Celery task by name from a service: services never import task modules (docs/architecture.md), and a
broker outage must not fail the request that wrote the work — a periodic sweep sends it again."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from celery import current_app

# A brief broker hiccup is retried in place; a longer outage is left to the caller's sweep (reaper, tick).
SEND_RETRY_POLICY = {"max_retries": 2, "interval_start": 0.2, "interval_step": 0.5}


def task_send(name: str, *, args: list[Any], queue: str, logger: logging.Logger, event: str,
              extra: Mapping[str, Any], countdown: float | None = None) -> bool:
    """Send the task `name` to `queue` (in `countdown` seconds); False, after logging `event` with `extra`, when the
    broker cannot take it."""
    try:
        current_app.send_task(name, args=args, queue=queue, retry=True, retry_policy=SEND_RETRY_POLICY,
                              countdown=countdown)
    except Exception as exc:  # any broker or transport failure: the work row stays and is swept up later
        logger.warning(event, extra={**extra, "error_class": type(exc).__name__})
        return False
    return True
