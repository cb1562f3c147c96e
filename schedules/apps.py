from __future__ import annotations

from django.apps import AppConfig


class SchedulesConfig(AppConfig):
    """Cron schedules of batch SQL jobs: fires, catch-up, concurrency and retry policies; what refreshes a
    materialized view by itself (its SCHEDULE CRON, REFRESH ON COMMIT)."""

    name = "schedules"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # schedules is above catalogs and jobs: it follows views and runs through their hook registries
        from catalogs.hooks import register_view_hook
        from jobs.hooks import register_run_hook
        from schedules.view_hooks import RefreshOnCommitRunHook, ViewScheduleHook

        register_view_hook(ViewScheduleHook())
        register_run_hook(RefreshOnCommitRunHook())
