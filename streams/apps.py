from __future__ import annotations

from django.apps import AppConfig


class StreamsConfig(AppConfig):
    """Streaming jobs as supervised long-running queries: lifecycle, lease, supervision, metrics."""

    name = "streams"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from streams import signals  # noqa: F401 - connects the job-edit and worker-shutdown handlers
