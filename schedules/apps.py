from __future__ import annotations

from django.apps import AppConfig


class SchedulesConfig(AppConfig):
    """Cron schedules of batch SQL jobs: fires, catch-up, concurrency and retry policies."""

    name = "schedules"
    default_auto_field = "django.db.models.BigAutoField"
