from __future__ import annotations

from django.apps import AppConfig


class JobsConfig(AppConfig):
    name = "jobs"
    verbose_name = "SQL jobs"

    def ready(self) -> None:
        from jobs import heartbeat, signals  # noqa: F401  (connect the worker and sign-in signals)
