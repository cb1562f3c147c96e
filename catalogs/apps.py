from __future__ import annotations

from django.apps import AppConfig


class CatalogsConfig(AppConfig):
    name = "catalogs"
    verbose_name = "Catalogs"
