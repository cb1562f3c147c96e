from __future__ import annotations

from django.apps import AppConfig


class AlertsConfig(AppConfig):
    """Alerts on runs, streams and schedules: registers its hooks with jobs, streams and schedules (they never import it)."""

    name = "alerts"
    verbose_name = "Alerts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from alerts.hooks import on_run_ended, on_stream_status, on_tick_not_run
        from jobs.hooks import register_run_end_listener
        from schedules.hooks import register_tick_listener
        from streams.hooks import register_stream_listener

        register_run_end_listener(on_run_ended)  # called in the transaction that ends a run
        register_stream_listener(on_stream_status)  # called in the transaction that changes a stream's status
        register_tick_listener(on_tick_not_run)  # called in the transaction of a tick skipped, missed or failed
