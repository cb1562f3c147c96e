"""The Celery app: settings under the CELERY_ namespace, tasks autodiscovered from the apps; on beat the run reaper
and the schedule tick."""

from __future__ import annotations

import logging
import os
import threading
from typing import Any

from celery import Celery
from celery.signals import beat_init
from django.conf import settings
from kombu import Exchange, Queue

from core.queues import ALL_QUEUES, TASK_QUEUES

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = Celery("lakeport")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# One queue per kind of work (runs, editor calls, beat ticks, stream supervisors), each with workers of its own
# (`-Q`); a worker started without `-Q` consumes them all, as a single worker did before the queues were split.
app.conf.task_queues = [Queue(name, Exchange(name), routing_key=name) for name in ALL_QUEUES]
app.conf.task_routes = {name: {"queue": queue} for name, queue in TASK_QUEUES.items()}
logger = logging.getLogger("lakeport.jobs")


@app.on_after_finalize.connect
def _schedule_reaper(sender: Celery, **kwargs: Any) -> None:
    # The period derives from LAKEPORT_REAPER_INTERVAL_SECONDS so a lost run never outlives that bound.
    from jobs.services.timing import reaper_period_seconds

    sender.add_periodic_task(reaper_period_seconds(), sender.signature("jobs.runs_reap"), name="jobs.runs_reap")
    # The schedule tick: safe when two beats send it (row locks + a unique fire key per tick).
    sender.add_periodic_task(settings.LAKEPORT_SCHEDULE_TICK_SECONDS, sender.signature("schedules.tick"),
                             name="schedules.tick")
    # Streams nobody supervises (a lost worker, a platform restart) are resumed; old metrics pruned.
    sender.add_periodic_task(settings.LAKEPORT_STREAM_TICK_SECONDS, sender.signature("streams.tick"),
                             name="streams.tick")
    # The alerts outbox: retries after a backoff, and anything whose after-commit send was lost.
    sender.add_periodic_task(settings.LAKEPORT_ALERT_TICK_SECONDS, sender.signature("alerts.deliver"),
                             name="alerts.deliver")


@beat_init.connect
def _reap_in_beat(sender: Any = None, **kwargs: Any) -> None:
    # Beat also reaps by itself: when every worker is dead nobody would execute the scheduled task.
    threading.Thread(target=_beat_reaper_loop, name="lakeport-beat-reaper", daemon=True).start()


def _beat_reaper_loop() -> None:
    import time

    import django
    from django.apps import apps

    if not apps.ready:  # beat has set Django up already; a second setup() would reset logging and drop beat's handlers
        django.setup()
    from django.db import close_old_connections

    from jobs.services.runs import runs_reap
    from jobs.services.timing import reaper_period_seconds

    while True:
        time.sleep(reaper_period_seconds())
        try:
            close_old_connections()
            runs_reap()
        except Exception as exc:  # the database may be down for a while; try again next period
            logger.warning("runs.reap_failed", extra={"error_class": type(exc).__name__})
