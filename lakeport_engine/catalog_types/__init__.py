"""The catalog types, one definition each, used by both sides of the platform (issue 30).

A definition (`CatalogTypeDefinition`) holds what the catalog API and the Spark runtime must agree on: the key,
the display name, the pydantic configuration model (whose marked fields are the secrets), the local-path fields
and the servers a configuration reaches. The Django side adds test connection and browsing
(`catalogs/types/<type>.py`), the Spark side the binding (`lakeport_engine/bindings/<type>.py`).

Adding a type: a module here with its model and `DEFINITION`, listed below; a binding; a Django type module.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from lakeport_engine.catalog_types import (
    delta,
    files,
    hive,
    iceberg,
    jdbc,
    kafka,
    nats_jetstream,
    paimon,
    redis_streams,
)
from lakeport_engine.catalog_types.base import CatalogConfig, CatalogTypeDefinition, Endpoint, SecretFields

DEFINITIONS: dict[str, CatalogTypeDefinition] = {
    d.key: d for d in (jdbc.DEFINITION, hive.DEFINITION, delta.DEFINITION, redis_streams.DEFINITION,
                       nats_jetstream.DEFINITION, files.DEFINITION, kafka.DEFINITION, iceberg.DEFINITION,
                       paimon.DEFINITION)
}


class UnknownCatalogTypeError(KeyError):
    """No definition is registered under a key."""


def definition_for(key: str) -> CatalogTypeDefinition:
    """The definition registered under `key`; UnknownCatalogTypeError otherwise."""
    try:
        return DEFINITIONS[key]
    except KeyError:
        raise UnknownCatalogTypeError(key) from None


def catalog_type_keys() -> tuple[str, ...]:
    """The registered keys, in registration order."""
    return tuple(DEFINITIONS)


@contextmanager
def registered(definition: CatalogTypeDefinition) -> Iterator[CatalogTypeDefinition]:
    """Register `definition` for the duration of the block (tests, and a plug-in's own start-up)."""
    if definition.key in DEFINITIONS:
        raise ValueError(f"catalog type '{definition.key}' is already registered.")
    DEFINITIONS[definition.key] = definition
    try:
        yield definition
    finally:
        DEFINITIONS.pop(definition.key, None)


__all__ = ["DEFINITIONS", "CatalogConfig", "CatalogTypeDefinition", "Endpoint", "SecretFields",
           "UnknownCatalogTypeError", "catalog_type_keys", "definition_for", "registered"]
