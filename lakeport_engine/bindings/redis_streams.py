"""redis-streams catalogs: each stream key is a table, read through the Python data source in
lakeport_engine/streamio/redis_source.py. Database `default` holds the keys as they are; a database named in
`databases` holds the keys `<database>:<table>`."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, ClassVar

from lakeport_engine.bindings.base import BindContext, Binding, PlainBinding, register_data_source, typed_config
from lakeport_engine.catalog_types import redis_streams
from lakeport_engine.catalog_types.base import CatalogTypeDefinition
from lakeport_engine.catalog_types.redis_streams import RedisStreamsConfig, entries_of, stream_key
from lakeport_engine.datasets import Dataset, stream_dataset
from lakeport_engine.streamio.tables import DEFAULT_DATABASE, StreamSourceError, StreamTable, declared_table

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from lakeport_engine.store import CatalogEntry

CONNECT_TIMEOUT = 10.0  # seconds a stream catalog's server may take to answer when a query starts or samples


class StreamCatalogBinding(PlainBinding):
    """Stream catalogs bind nothing into Spark: their tables exist only as `STREAM(c.db.t)` views."""

    display_name: ClassVar[str]

    def bind(self, ctx: BindContext, entry: CatalogEntry, old: Binding | None) -> Binding:
        """Remember the configuration; the source is built when a statement streams a table."""
        return Binding(entry.name, self.key, entry.fingerprint, entry.version, None, entry.configuration)

    def databases(self, config: dict[str, Any]) -> list[str]:
        """Databases the catalog exposes."""
        return [DEFAULT_DATABASE]

    def check_database(self, binding: Binding, database: str, table: str) -> None:
        """StreamSourceError unless `database` is one of the catalog's."""
        if database not in self.databases(binding.configuration):
            raise StreamSourceError(
                f"Stream table {binding.name}.{database}.{table}: catalog '{binding.name}' has no database "
                f"'{database}' (it has {', '.join(self.databases(binding.configuration))})."
            )


class RedisStreamsBinding(StreamCatalogBinding):
    """redis-streams catalogs."""

    definition: ClassVar[CatalogTypeDefinition] = redis_streams.DEFINITION
    key: ClassVar[str] = redis_streams.DEFINITION.key
    display_name: ClassVar[str] = "Redis Streams"

    @staticmethod
    def config(binding: Binding) -> RedisStreamsConfig:
        """The catalog's configuration, typed."""
        return typed_config(RedisStreamsConfig, binding.name, binding.configuration)

    def summary(self, binding: Binding) -> str:
        """`redis-streams at host:port`."""
        return f"redis-streams at {self.config(binding).target}"

    def endpoint(self, config: dict[str, Any]) -> tuple[str, int] | None:
        """The Redis server."""
        return self.first_endpoint(config)

    def lineage_dataset(self, binding: Binding, database: str, table: str) -> Dataset | None:
        """The stream key on `redis://host:port` (plus `/<db>` for a database other than 0)."""
        config = self.config(binding)
        namespace = f"redis://{config.target}" + (f"/{config.db}" if config.db not in ("", "0") else "")
        return stream_dataset(binding.name, database, table, kind=self.key, namespace=namespace,
                              physical_name=stream_key(database, table))

    def databases(self, config: dict[str, Any]) -> list[str]:
        """`default` and the configured key prefixes."""
        return [DEFAULT_DATABASE, *[str(d) for d in config.get("databases") or []]]

    def _checked(self, binding: Binding, database: str, table: str) -> tuple[StreamTable, str, str, float]:
        """The declared table, its key, its label and the timeout; the key must exist and be a stream."""
        import redis  # the Redis client is only needed by catalogs that stream from Redis

        from lakeport_engine.streamio.redis_source import client

        self.check_database(binding, database, table)
        spec = declared_table(binding.configuration, binding.name, database, table)
        config = self.config(binding)
        key = stream_key(database, table)
        label = f"{binding.name}.{database}.{table}"
        timeout = CONNECT_TIMEOUT
        try:
            kind = client(config.url, _password(config), timeout).type(key)
        except redis.AuthenticationError:
            raise StreamSourceError(f"Stream table {label}: Redis at {config.target} refused the password.") from None
        except redis.RedisError as exc:
            raise StreamSourceError(f"Stream table {label}: Redis at {config.target} is unreachable "
                                    f"({type(exc).__name__}).") from None
        kind = kind.decode() if isinstance(kind, bytes) else str(kind)
        if kind == "none":
            raise StreamSourceError(f"Stream table {label}: there is no stream '{key}' on Redis at {config.target}.")
        if kind != "stream":
            raise StreamSourceError(f"Stream table {label}: Redis key '{key}' is a {kind}, not a stream.")
        return spec, key, label, timeout

    def sample(self, spark: SparkSession, binding: Binding, database: str, table: str, limit: int) -> DataFrame:
        """The newest `limit` entries (XREVRANGE), parsed like the stream parses them."""
        from lakeport_engine.streamio.records import MalformedRecord
        from lakeport_engine.streamio.redis_source import client, entry_rows

        spec, key, label, timeout = self._checked(binding, database, table)
        config = self.config(binding)
        entries = entries_of(client(config.url, _password(config), timeout).xrevrange(key, "+", "-", count=limit))
        try:
            rows = list(entry_rows(reversed(entries), f"'{key}' ({label})", [(c.name, c.type) for c in spec.columns],
                                   config.value_field))
        except MalformedRecord as exc:
            raise StreamSourceError(str(exc)) from None
        return spark.createDataFrame(rows, schema=spec.ddl())

    def stream(self, spark: SparkSession, binding: Binding, database: str, table: str) -> DataFrame:
        """The stream key as a streaming DataFrame of the declared columns; the key must exist and be a stream."""
        from lakeport_engine.streamio.redis_source import FORMAT, RedisStreamsDataSource

        spec, key, label, timeout = self._checked(binding, database, table)
        config = self.config(binding)
        register_data_source(spark, RedisStreamsDataSource)  # this session may not be the active one
        reader = (spark.readStream.format(FORMAT)
                  .option("url", config.url)
                  .option("key", key)
                  .option("stream", f"'{key}' ({label})")
                  .option("columns", json.dumps([[c.name, c.type] for c in spec.columns]))
                  .option("value_field", config.value_field)
                  .option("start", config.start)
                  .option("timeout", str(timeout)))
        if config.max_records_per_batch:
            reader = reader.option("max_records_per_batch", str(config.max_records_per_batch))
        if config.password is not None:
            reader = reader.option("password", _password(config))  # masked by spark.redaction.regex
        return reader.load()


def _password(config: RedisStreamsConfig) -> str | None:
    return config.password.get_secret_value() if config.password is not None else None
