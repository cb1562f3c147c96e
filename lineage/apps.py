from __future__ import annotations

from django.apps import AppConfig


class LineageConfig(AppConfig):
    """Datasets, the jobs that read and write them, column lineage and consistent Delta snapshots."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "lineage"

    def ready(self) -> None:
        # lineage is above jobs: it takes part in runs through jobs' hook registry (jobs never imports lineage)
        from jobs.hooks import register_run_hook, register_submission_hook
        from lineage.hooks import LineageRunHook, SnapshotSubmissionHook

        register_run_hook(LineageRunHook())
        register_submission_hook(SnapshotSubmissionHook())
