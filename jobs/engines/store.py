"""A CatalogStore over the Django ORM: how a worker answers its engines' catalog questions.

Same answers as the runtime's DatabaseCatalogStore (for plain `spark-submit` outside the platform), but through
Django's own connection, so it works on every configured database; engines never open the platform database.
"""

from __future__ import annotations

import json

from catalogs.models import Catalog
from catalogs.secrets import secret_box
from catalogs.services.materialized_views import DjangoViewStore
from lakeport_engine.store import CatalogEntry


class DjangoCatalogStore:
    """The `t_spark_catalog` rows of one team; sealed secrets are opened (and registered for redaction) here."""

    def __init__(self, team: str) -> None:
        self.team = team
        self.materialized_views = DjangoViewStore(team)  # the team's view definitions (lakeport_engine.matviews)

    def get_catalog(self, name: str) -> CatalogEntry | None:
        """The team's catalog called `name`, or None (another team's catalog is None too)."""
        row = (
            Catalog.objects.filter(team__name=self.team, catalog_name=name.lower())
            .values("catalog_name", "catalog_type", "configuration", "version")
            .first()
        )
        if row is None:
            return None
        plain = secret_box().open_config(json.loads(row["configuration"]))
        # no fingerprint of our own: CatalogEntry derives it with catalog_fingerprint, as DatabaseCatalogStore's does
        return CatalogEntry(name=row["catalog_name"], type=row["catalog_type"], configuration=plain,
                            version=int(row["version"]))

    def list_catalogs(self) -> list[str]:
        """Sorted names of the team's catalogs."""
        return list(Catalog.objects.filter(team__name=self.team).order_by("catalog_name")
                    .values_list("catalog_name", flat=True))

    def contains(self, name: str) -> bool:
        """True if the team has the catalog."""
        return Catalog.objects.filter(team__name=self.team, catalog_name=name.lower()).exists()
