"""Catalog types by key on the Django side: the runtime's definitions (lakeport_engine/catalog_types) with this
side's behaviour, test connection and browsing. Adding a type: its definition in the runtime, a binding, and a
module here implementing `CatalogType`, listed below."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from catalogs.types.base import CatalogType
from catalogs.types.delta import DeltaCatalogType
from catalogs.types.files import FilesCatalogType
from catalogs.types.hive import HiveCatalogType
from catalogs.types.iceberg import IcebergCatalogType
from catalogs.types.jdbc import JdbcCatalogType
from catalogs.types.kafka import KafkaCatalogType
from catalogs.types.nats_jetstream import NatsJetStreamCatalogType
from catalogs.types.paimon import PaimonCatalogType
from catalogs.types.redis_streams import RedisStreamsCatalogType
from lakeport_engine.catalog_types import DEFINITIONS, registered

# The API lists the types in this order; every key is a runtime definition's (tests/catalogs/test_type_registries.py).
CATALOG_TYPES: dict[str, CatalogType] = {
    t.key: t for t in (JdbcCatalogType(), HiveCatalogType(), DeltaCatalogType(), RedisStreamsCatalogType(),
                       NatsJetStreamCatalogType(), FilesCatalogType(), KafkaCatalogType(),
                       IcebergCatalogType(), PaimonCatalogType())
}


def get_catalog_type(key: str) -> CatalogType:
    """The type registered under `key`; KeyError for an unknown one."""
    return CATALOG_TYPES[key]


@contextmanager
def catalog_type_registered(catalog_type: CatalogType) -> Iterator[CatalogType]:
    """Register a type on both sides (its runtime definition and this side's behaviour) for the block."""
    if catalog_type.key in CATALOG_TYPES:
        raise ValueError(f"catalog type '{catalog_type.key}' is already registered.")
    with registered(catalog_type.definition):
        CATALOG_TYPES[catalog_type.key] = catalog_type
        try:
            yield catalog_type
        finally:
            CATALOG_TYPES.pop(catalog_type.key, None)


def check_registries() -> list[str]:
    """Keys registered on one side only (empty when the runtime's definitions and this side's types agree)."""
    return sorted(set(DEFINITIONS) ^ set(CATALOG_TYPES))
