"""Worker heartbeats: each Celery worker writes a row every few seconds while it runs.

A heartbeat in the database works with every broker (the filesystem transport of `make run` has no
remote control for `celery inspect ping`), and the run reaper uses the same rows to find dead workers.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from datetime import timedelta
from typing import Any

from celery.signals import worker_ready, worker_shutdown
from django.conf import settings
from django.db import close_old_connections, connection
from django.utils import timezone

logger = logging.getLogger("lakeport.worker")
_stop = threading.Event()


def beat(hostname: str, started_at: Any) -> None:
    """Record that `hostname` is alive now."""
    from jobs.engines.pool import engines_by_team
    from jobs.models import WorkerHeartbeat

    WorkerHeartbeat.objects.update_or_create(
        hostname=hostname, defaults={"pid": os.getpid(), "started_at": started_at, "last_seen": timezone.now(),
                                     "engines": engines_by_team()}  # /metrics: engines alive per team, their RSS
    )


def live_workers(max_age_seconds: int | None = None) -> list[Any]:
    """Workers whose last heartbeat is younger than three beat intervals."""
    from jobs.models import WorkerHeartbeat

    age = max_age_seconds or 3 * settings.LAKEPORT_WORKER_HEARTBEAT_SECONDS
    return list(WorkerHeartbeat.objects.filter(last_seen__gte=timezone.now() - timedelta(seconds=age)))


def _loop(hostname: str) -> None:
    started_at = timezone.now()
    interval = settings.LAKEPORT_WORKER_HEARTBEAT_SECONDS
    first = True
    while not _stop.is_set():
        try:
            close_old_connections()
            beat(hostname, started_at)
            if first:
                # A (re)started worker recovers lost runs at once instead of waiting for beat's next reaper pass.
                from jobs.services.runs import runs_reap

                first = False
                runs_reap()
        except Exception as exc:  # the database may be down for a while; keep beating
            logger.warning("worker.heartbeat_failed", extra={"error_class": type(exc).__name__})
        finally:
            connection.close()
        _stop.wait(interval)


@worker_ready.connect
def _start_heartbeat(sender: Any = None, **kwargs: Any) -> None:
    hostname = getattr(sender, "hostname", None) or f"worker@{os.uname().nodename}:{os.getpid()}"
    _stop.clear()
    threading.Thread(target=_loop, args=(hostname,), name="lakeport-heartbeat", daemon=True).start()
    logger.info("worker.ready", extra={"hostname": hostname})


@worker_shutdown.connect
def _stop_heartbeat(sender: Any = None, **kwargs: Any) -> None:
    _stop.set()
    hostname = getattr(sender, "hostname", None)
    if hostname:
        from jobs.models import WorkerHeartbeat

        with contextlib.suppress(Exception):
            WorkerHeartbeat.objects.filter(hostname=hostname).delete()
    from jobs.engines.parser import parse_server

    parse_server().stop()
