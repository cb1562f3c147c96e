from __future__ import annotations

from django.apps import AppConfig


class JobsConfig(AppConfig):
    name = "jobs"
    verbose_name = "SQL jobs"

    def ready(self) -> None:
        from jobs import heartbeat  # noqa: F401  (connects the worker signals)
