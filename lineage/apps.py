from __future__ import annotations

from django.apps import AppConfig


class LineageConfig(AppConfig):
    """Datasets, the jobs that read and write them, column lineage and consistent Delta snapshots."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "lineage"
