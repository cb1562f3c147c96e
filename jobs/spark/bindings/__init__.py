"""Catalog types on the Spark side, one `CatalogBinding` per type key (the Django side is `catalogs/types/`).

jdbc → JDBCTableCatalog, hive → the session catalog, delta → the embedded connector or the JVM DeltaCatalog;
redis-streams, nats-jetstream and files are stream catalogs (read only through `STREAM(c.db.t)`). Adding a
type: a module here whose binding class is listed in `BINDINGS` below, and a module in `catalogs/types/`.

Streaming contract (issue 14): a binding may implement

    def stream(self, spark: SparkSession, binding: Binding, database: str, table: str) -> DataFrame

returning a STREAMING DataFrame with the table's declared schema (event-time columns typed); see
`StreamingBinding` and jobs/spark/streaming/sources.py, which is how statements reach it.
"""

from __future__ import annotations

from collections.abc import Iterable

from jobs.spark.bindings.base import (
    BindContext,
    Binding,
    BindingFailure,
    CatalogBinding,
    PlainBinding,
    SessionCatalogs,
    StreamingBinding,
    session_catalogs,
)
from jobs.spark.bindings.delta import DeltaBinding
from jobs.spark.bindings.files import FilesBinding
from jobs.spark.bindings.hive import HiveBinding
from jobs.spark.bindings.jdbc import JdbcBinding
from jobs.spark.bindings.kafka import KafkaBinding
from jobs.spark.bindings.nats_jetstream import NatsJetStreamBinding
from jobs.spark.bindings.redis_streams import RedisStreamsBinding
from jobs.spark.lineage import CatalogInfo

BINDINGS: dict[str, CatalogBinding] = {
    b.key: b for b in (JdbcBinding(), HiveBinding(), DeltaBinding(), RedisStreamsBinding(), NatsJetStreamBinding(),
                       FilesBinding(), KafkaBinding())
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
    "StreamingBinding",
    "UnknownCatalogType",
    "binding_for",
    "can_stream",
    "lineage_catalogs",
    "session_catalogs",
]
