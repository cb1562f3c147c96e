from __future__ import annotations

from django.apps import AppConfig


class DeclarativeConfig(AppConfig):
    """`apply -f` and `POST /apply/`: catalogs, jobs and schedules from one document (no models of its own)."""

    name = "declarative"
    verbose_name = "Declarative apply"
