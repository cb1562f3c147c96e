"""Catalog types by key. Adding a type: a module here implementing `CatalogType`, registered below."""

from __future__ import annotations

from catalogs.types.base import CatalogType
from catalogs.types.delta import DeltaCatalogType
from catalogs.types.files import FilesCatalogType
from catalogs.types.hive import HiveCatalogType
from catalogs.types.jdbc import JdbcCatalogType
from catalogs.types.kafka import KafkaCatalogType
from catalogs.types.nats_jetstream import NatsJetStreamCatalogType
from catalogs.types.redis_streams import RedisStreamsCatalogType

CATALOG_TYPES: dict[str, CatalogType] = {
    t.key: t for t in (JdbcCatalogType(), HiveCatalogType(), DeltaCatalogType(), RedisStreamsCatalogType(),
                       NatsJetStreamCatalogType(), FilesCatalogType(), KafkaCatalogType())
}


def get_catalog_type(key: str) -> CatalogType:
    """The type registered under `key`; KeyError for an unknown one."""
    return CATALOG_TYPES[key]
