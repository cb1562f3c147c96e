"""`manage.py rotate_catalog_secrets` — re-encrypt every catalog secret under the newest key."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from catalogs.services import catalog_secrets_rotate
from lakeport_kernel.secretbox import SecretKeyError


class Command(BaseCommand):
    help = (
        "Re-encrypt every sealed catalog secret under the first (newest) key of LAKEPORT_SECRET_KEYS, in one "
        "transaction. Rotation: put a new key in front (NEW,OLD), restart, run this, then drop OLD."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            result = catalog_secrets_rotate()
        except SecretKeyError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"re-encrypted {result.values} secret value(s) in {result.catalogs} catalog(s) "
                          "under the newest key")
