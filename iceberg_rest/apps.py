"""The Iceberg REST catalog app: no models; views over services that open the catalog's warehouse with pyiceberg."""

from __future__ import annotations

from django.apps import AppConfig


class IcebergRestConfig(AppConfig):
    """Serves `/api/iceberg/<team>/<catalog>/v1/…` (the Apache Iceberg REST catalog API)."""

    name = "iceberg_rest"
    verbose_name = "Iceberg REST catalog"
