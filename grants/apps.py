from __future__ import annotations

from django.apps import AppConfig


class GrantsConfig(AppConfig):
    name = "grants"
    verbose_name = "Grants"
