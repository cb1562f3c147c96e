from __future__ import annotations

from django.apps import AppConfig


class StreamsConfig(AppConfig):
    """Streaming jobs as supervised long-running queries: lifecycle, lease, supervision, metrics."""

    name = "streams"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from jobs.management.kinds import register_runjob_handler
        from jobs.models import JobKind
        from jobs.services.kinds import register_kind_rules
        from streams import signals  # noqa: F401 - connects the worker-shutdown handler
        from streams.management.runjob import runjob_streaming
        from streams.services.kind_rules import StreamingRules

        register_kind_rules(JobKind.STREAMING, StreamingRules())  # the job services call them on create/edit/delete
        register_runjob_handler(JobKind.STREAMING, runjob_streaming)  # `manage.py runjob` of a streaming job
