"""Streaming sources: how `STREAM(<catalog>.<db>.<table>)` becomes a streaming DataFrame.

CONTRACT (issue 14, part A; statement.py and the SQL guard depend on it)

- `lakeport_engine.bindings`: a catalog binding may implement
      def stream(self, spark: SparkSession, binding: Binding, database: str, table: str) -> DataFrame
  returning a STREAMING DataFrame with the table's declared schema (event-time columns typed as TIMESTAMP),
  and  def sample(self, spark, binding, database, table, limit: int) -> DataFrame  (a batch DataFrame of the
  newest `limit` records). Types that stream: redis-streams, nats-jetstream, files, delta (embedded connector:
  new table versions are micro-batches; jvm mode: Delta's own source), paimon (new snapshots are micro-batches),
  kafka (only with the connector jars).

- `stream_view(resolver, catalog, database, table) -> str` binds the catalog through the resolver (team
  scoping and the catalog channel apply: an unknown or another team's catalog raises UnknownCatalogError),
  calls the binding's `stream`, registers the result as a temp view named `__lp_stream_<n>` (platform-reserved
  prefix `STREAM_VIEW_PREFIX`, numbered per session) and returns that name. It raises `StreamSourceError`
  (a `SparkRuntimeError`, i.e. a user error shown as is) naming the table and the reason for: an unknown
  database, stream or table, a table without a declared schema or with a bad one, a catalog type that cannot
  stream (jdbc, hive), Kafka without its connector jars (the message names the jars), an unreachable server.

- `sample_rows(resolver, catalog, database, table, limit) -> DataFrame` is the batch DataFrame of the newest
  `limit` records with the same schema (for sampling a stream in the UI); same errors.

- Malformed records (Redis Streams, JetStream): the micro-batch fails with a message naming the stream and
  the record's offset (entry id or stream sequence); there is no dead-letter queue. See records.py.

Secrets (a Redis password, NATS credentials) reach the readers as data source options named `password` /
`credentials`, which `spark.redaction.regex` masks wherever Spark prints options; they never enter the SQL
conf. Imports no Django.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lakeport_engine.bindings import BINDINGS, BindingFailure, binding_for, can_stream, session_catalogs
from lakeport_engine.row_policy import session_row_policy
from lakeport_engine.streamio.tables import StreamSourceError

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from lakeport_engine.bindings import Binding, StreamingBinding
    from lakeport_engine.resolver import CatalogResolver

STREAM_VIEW_PREFIX = "__lp_stream_"
# Catalog types a STREAM(…) may read: those whose binding streams (the registry is the one list).
STREAMING_TYPES = tuple(key for key, binding in BINDINGS.items() if can_stream(binding))

__all__ = ["STREAMING_TYPES", "STREAM_VIEW_PREFIX", "StreamSourceError", "is_stream_view", "sample_rows", "stream_view"]


def is_stream_view(name: str) -> bool:
    """True for a view name `stream_view` hands out (the guard accepts these platform views)."""
    return name.lower().startswith(STREAM_VIEW_PREFIX)


def _streaming_binding(resolver: CatalogResolver, catalog: str, database: str,
                       table: str) -> tuple[StreamingBinding, Binding]:
    entry = resolver.store.get_catalog(catalog.lower())
    if entry is not None:
        _require_streaming(entry.type, catalog, database, table)  # before binding: a JDBC bind may connect
    binding = resolver.bind(catalog.lower(), required=True)
    if binding is None:  # a catalog Spark knows by itself (spark_catalog, user-configured): not a stream catalog
        raise StreamSourceError(f"STREAM({catalog}.{database}.{table}): '{catalog}' is not one of team "
                                f"'{resolver.team}''s catalogs.")
    return _require_streaming(binding.type, catalog, database, table), binding


def _require_streaming(catalog_type: str, catalog: str, database: str, table: str) -> StreamingBinding:
    kind = binding_for(catalog_type)
    if not can_stream(kind):
        raise StreamSourceError(
            f"STREAM({catalog}.{database}.{table}): catalog '{catalog}' is a {catalog_type} catalog, which cannot "
            f"be read as a stream; stream from a {', '.join(STREAMING_TYPES)} catalog."
        )
    return kind  # type: ignore[return-value]


def stream_view(resolver: CatalogResolver, catalog: str, database: str, table: str) -> str:
    """Register `catalog.database.table` as a streaming temp view and return its platform-reserved name."""
    kind, binding = _streaming_binding(resolver, catalog, database, table)
    try:
        frame = kind.stream(resolver.spark, binding, database, table)
    except StreamSourceError:
        raise
    except BindingFailure as exc:
        raise StreamSourceError(str(exc)) from None
    # the table's row filter and column masks hold on every micro-batch, below all the query does (docs/access.md)
    return register_stream_view(resolver, session_row_policy(resolver.spark).protect(
        frame, (catalog.lower(), database.lower(), table.lower())))


def register_stream_view(resolver: CatalogResolver, frame: DataFrame) -> str:
    """A platform-reserved temp view over `frame` (`__lp_stream_<n>`; the guard accepts these in place of STREAM(…))."""
    state = session_catalogs(resolver.spark)
    with state.lock:
        state.stream_views += 1
        name = f"{STREAM_VIEW_PREFIX}{state.stream_views}"
    frame.createOrReplaceTempView(name)
    return name


def sample_rows(resolver: CatalogResolver, catalog: str, database: str, table: str, limit: int) -> DataFrame:
    """A batch DataFrame of the newest `limit` records of the stream table, oldest first."""
    kind, binding = _streaming_binding(resolver, catalog, database, table)
    try:
        frame = kind.sample(resolver.spark, binding, database, table, max(0, int(limit)))
        return session_row_policy(resolver.spark).protect(frame, (catalog.lower(), database.lower(), table.lower()))
    except StreamSourceError:
        raise
    except BindingFailure as exc:
        raise StreamSourceError(str(exc)) from None
