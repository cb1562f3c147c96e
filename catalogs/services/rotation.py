"""Re-encrypting every stored catalog secret under the newest key (key rotation)."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass

from cryptography.fernet import InvalidToken
from django.db import transaction

from catalogs.models import Catalog, CatalogChangeAction
from catalogs.secrets import count_sealed, public_stored_configuration, secret_box
from catalogs.services.audit import catalog_change_record
from lakeport_kernel.secretbox import SecretKeyError

logger = logging.getLogger("lakeport.catalogs")


@dataclass(frozen=True)
class RotationResult:
    """How many catalogs and sealed values were re-encrypted."""

    catalogs: int
    values: int


def catalog_secrets_rotate(*, actor_name: str = "manage.py rotate_catalog_secrets") -> RotationResult:
    """Re-encrypt every sealed value of every catalog under the newest key of LAKEPORT_SECRET_KEYS.

    Atomic: every row is locked and rewritten in one transaction, so a value no configured key can decrypt
    (SecretKeyError naming the catalog) leaves everything as it was. Versions and update times stay: the
    plain configuration did not change, so ETags stay valid. Each rotated catalog gets a `rotate` audit entry.
    After a rotation the old key can be removed from LAKEPORT_SECRET_KEYS.
    """
    box = secret_box()
    catalogs = values = 0
    with transaction.atomic():
        for catalog in Catalog.objects.select_for_update(of=("self",)).select_related("team").order_by("pk"):
            stored = json.loads(catalog.configuration)
            count = count_sealed(stored)
            if not count:
                continue
            try:
                rotated = box.rotate_config(stored)
            except InvalidToken as exc:
                raise SecretKeyError(
                    f"Catalog '{catalog.catalog_name}' of team '{catalog.team.name}' holds a secret that none of the "
                    "configured keys can decrypt; nothing was rotated."
                ) from exc
            Catalog.objects.filter(pk=catalog.pk).update(configuration=json.dumps(rotated, sort_keys=True))
            _, paths = public_stored_configuration(catalog.configuration)
            catalog_change_record(
                team=catalog.team, catalog_name=catalog.catalog_name, catalog_type=catalog.catalog_type,
                action=CatalogChangeAction.ROTATE, actor=None, actor_name=actor_name, version=catalog.version,
                changes={f"configuration.{path}": "re-encrypted" for path in paths},
            )
            catalogs += 1
            values += count
    logger.info("catalogs.secrets_rotated", extra={"catalogs": catalogs, "values": values})
    return RotationResult(catalogs=catalogs, values=values)
