"""Catalog types on the Spark side, one `CatalogBinding` per type definition (lakeport_engine/catalog_types; the
Django side is `catalogs/types/`).

jdbc → JDBCTableCatalog, hive → the session catalog, delta → the embedded connector or the JVM DeltaCatalog,
iceberg → the embedded Iceberg connector, paimon → the embedded Paimon connector;
redis-streams, nats-jetstream, kafka and files are stream catalogs (read only through `STREAM(c.db.t)`). Adding a
type: its definition, a module here whose binding (with its `definition` and `sink` factory) is listed in
`BINDINGS` below, and a module in `catalogs/types/`.

Streaming contract (issue 14): a binding may implement

    def stream(self, spark: SparkSession, binding: Binding, database: str, table: str) -> DataFrame

returning a STREAMING DataFrame with the table's declared schema (event-time columns typed); see
`StreamingBinding` and lakeport_engine/streaming/sources.py, which is how statements reach it.
"""

from __future__ import annotations

from collections.abc import Iterable

from lakeport_engine.bindings.base import (
    BindContext,
    Binding,
    BindingFailure,
    CatalogBinding,
    PlainBinding,
    SessionCatalogs,
    SinkTarget,
    StreamingBinding,
    session_catalogs,
)
from lakeport_engine.bindings.delta import DeltaBinding
from lakeport_engine.bindings.files import FilesBinding
from lakeport_engine.bindings.hive import HiveBinding
from lakeport_engine.bindings.iceberg import IcebergBinding
from lakeport_engine.bindings.jdbc import JdbcBinding
from lakeport_engine.bindings.kafka import KafkaBinding
from lakeport_engine.bindings.nats_jetstream import NatsJetStreamBinding
from lakeport_engine.bindings.paimon import PaimonBinding
from lakeport_engine.bindings.redis_streams import RedisStreamsBinding
from lakeport_engine.datasets import CatalogInfo

BINDINGS: dict[str, CatalogBinding] = {
    b.key: b for b in (JdbcBinding(), HiveBinding(), DeltaBinding(), RedisStreamsBinding(), NatsJetStreamBinding(),
                       FilesBinding(), KafkaBinding(), IcebergBinding(), PaimonBinding())
}


class UnknownCatalogType(BindingFailure):
    """The store holds a catalog of a type this runtime has no binding for."""


def binding_for(catalog_type: str) -> CatalogBinding:
    """The binding registered under `catalog_type`; UnknownCatalogType otherwise."""
    try:
        return BINDINGS[catalog_type]
    except KeyError:
        raise UnknownCatalogType(f"Catalog type '{catalog_type}' is not supported by this runtime.") from None


def lineage_catalogs(bindings: Iterable[Binding]) -> dict[str, CatalogInfo]:
    """What lineage knows of a session's bound catalogs, by Spark catalog name (each type's binding says)."""
    return {b.spark_name: binding_for(b.type).lineage_catalog(b) for b in bindings if b.spark_name}


def can_stream(binding: CatalogBinding) -> bool:
    """True when the type's tables can be read as streams."""
    return callable(getattr(binding, "stream", None))


__all__ = [
    "BINDINGS",
    "BindContext",
    "Binding",
    "BindingFailure",
    "CatalogBinding",
    "PlainBinding",
    "SessionCatalogs",
    "SinkTarget",
    "StreamingBinding",
    "UnknownCatalogType",
    "binding_for",
    "can_stream",
    "lineage_catalogs",
    "session_catalogs",
]
