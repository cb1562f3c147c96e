"""The Celery app: settings under the CELERY_ namespace, tasks autodiscovered from the apps."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = Celery("lakeport")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
