from __future__ import annotations

from django.apps import AppConfig


class CatalogsConfig(AppConfig):
    name = "catalogs"
    verbose_name = "Catalogs"

    def ready(self) -> None:
        """New configurations' local paths are checked against LAKEPORT_ALLOWED_LOCAL_ROOTS (the runtime's models
        read the roots through this provider; without it they check a path's shape only)."""
        from catalogs.types.paths import allowed_roots
        from lakeport_engine.catalog_types.base import use_allowed_roots

        use_allowed_roots(allowed_roots)
        # grants and revokes on a catalog (or below it) go into its history (docs/access.md)
        from catalogs.access_history import CatalogHistoryAccessHook
        from grants.hooks import register_access_hook

        register_access_hook(CatalogHistoryAccessHook())
