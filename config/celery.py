"""The Celery app: settings under the CELERY_ namespace, tasks autodiscovered from the apps, the run reaper on beat."""

from __future__ import annotations

import os
from typing import Any

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = Celery("lakeport")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# Job tasks have their own queue so a deployment can give them dedicated workers.
app.conf.task_routes = {"jobs.*": {"queue": "lakeport"}}


@app.on_after_finalize.connect
def _schedule_reaper(sender: Celery, **kwargs: Any) -> None:
    # The period derives from LAKEPORT_REAPER_INTERVAL_SECONDS so a lost run never outlives that bound.
    from jobs.services.timing import reaper_period_seconds

    sender.add_periodic_task(reaper_period_seconds(), sender.signature("jobs.runs_reap"), name="jobs.runs_reap")
