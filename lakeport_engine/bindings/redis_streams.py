"""redis-streams catalogs: each stream key is a table, read through the Python data source in
lakeport_engine/streamio/redis_source.py. Database `default` holds the keys as they are; a database named in
`databases` holds the keys `<database>:<table>`."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import urlsplit

from lakeport_engine.bindings.base import BindContext, Binding, PlainBinding, register_data_source
from lakeport_engine.datasets import Dataset, stream_dataset
from lakeport_engine.streamio.tables import DEFAULT_DATABASE, StreamSourceError, StreamTable, declared_table

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from lakeport_engine.store import CatalogEntry


def stream_key(config: dict[str, Any], database: str, table: str) -> str:
    """The Redis key of `database.table`."""
    if database == DEFAULT_DATABASE:
        return table
    return f"{database}:{table}"


def server(config: dict[str, Any]) -> tuple[str, int]:
    """Host and port of the configured Redis server."""
    parts = urlsplit(str(config.get("url", "")))
    return parts.hostname or "", parts.port or 6379


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

    key: ClassVar[str] = "redis-streams"
    display_name: ClassVar[str] = "Redis Streams"

    def summary(self, binding: Binding) -> str:
        """`redis-streams at host:port`."""
        host, port = server(binding.configuration)
        return f"redis-streams at {host}:{port}"

    def endpoint(self, config: dict[str, Any]) -> tuple[str, int] | None:
        """The Redis server."""
        return server(config)

    def lineage_dataset(self, binding: Binding, database: str, table: str) -> Dataset | None:
        """The stream key on `redis://host:port` (plus `/<db>` for a database other than 0)."""
        host, port = server(binding.configuration)
        db = urlsplit(str(binding.configuration.get("url", ""))).path.strip("/")
        namespace = f"redis://{host}:{port}" + (f"/{db}" if db not in ("", "0") else "")
        return stream_dataset(binding.name, database, table, kind=self.key, namespace=namespace,
                              physical_name=stream_key(binding.configuration, database, table))

    def databases(self, config: dict[str, Any]) -> list[str]:
        """`default` and the configured key prefixes."""
        return [DEFAULT_DATABASE, *[str(d) for d in config.get("databases") or []]]

    def _checked(self, binding: Binding, database: str, table: str) -> tuple[StreamTable, str, str, float]:
        """The declared table, its key, its label and the timeout; the key must exist and be a stream."""
        import redis  # the Redis client is only needed by catalogs that stream from Redis

        from lakeport_engine.streamio.redis_source import client

        self.check_database(binding, database, table)
        spec = declared_table(binding.configuration, binding.name, database, table)
        config = binding.configuration
        key = stream_key(config, database, table)
        label = f"{binding.name}.{database}.{table}"
        timeout = float(config.get("connect-timeout", 10))
        host, port = server(config)
        try:
            kind = client(str(config["url"]), config.get("password"), timeout).type(key)
        except redis.AuthenticationError:
            raise StreamSourceError(f"Stream table {label}: Redis at {host}:{port} refused the password.") from None
        except redis.RedisError as exc:
            raise StreamSourceError(f"Stream table {label}: Redis at {host}:{port} is unreachable "
                                    f"({type(exc).__name__}).") from None
        kind = kind.decode() if isinstance(kind, bytes) else str(kind)
        if kind == "none":
            raise StreamSourceError(f"Stream table {label}: there is no stream '{key}' on Redis at {host}:{port}.")
        if kind != "stream":
            raise StreamSourceError(f"Stream table {label}: Redis key '{key}' is a {kind}, not a stream.")
        return spec, key, label, timeout

    def sample(self, spark: SparkSession, binding: Binding, database: str, table: str, limit: int) -> DataFrame:
        """The newest `limit` entries (XREVRANGE), parsed like the stream parses them."""
        from lakeport_engine.streamio.records import MalformedRecord
        from lakeport_engine.streamio.redis_source import client, entry_rows

        spec, key, label, timeout = self._checked(binding, database, table)
        config = binding.configuration
        entries = client(str(config["url"]), config.get("password"), timeout).xrevrange(key, "+", "-", count=limit)
        try:
            rows = list(entry_rows(reversed(entries), f"'{key}' ({label})", [(c.name, c.type) for c in spec.columns],
                                   str(config.get("value-field") or "data")))
        except MalformedRecord as exc:
            raise StreamSourceError(str(exc)) from None
        return spark.createDataFrame(rows, schema=spec.ddl())

    def stream(self, spark: SparkSession, binding: Binding, database: str, table: str) -> DataFrame:
        """The stream key as a streaming DataFrame of the declared columns; the key must exist and be a stream."""
        from lakeport_engine.streamio.redis_source import FORMAT, RedisStreamsDataSource

        spec, key, label, timeout = self._checked(binding, database, table)
        config = binding.configuration
        register_data_source(spark, RedisStreamsDataSource)  # this session may not be the active one
        reader = (spark.readStream.format(FORMAT)
                  .option("url", str(config["url"]))
                  .option("key", key)
                  .option("stream", f"'{key}' ({label})")
                  .option("columns", json.dumps([[c.name, c.type] for c in spec.columns]))
                  .option("value_field", str(config.get("value-field") or "data"))
                  .option("start", str(config.get("start") or "earliest"))
                  .option("timeout", str(timeout)))
        if config.get("max-records-per-batch"):
            reader = reader.option("max_records_per_batch", str(config["max-records-per-batch"]))
        if config.get("password"):
            reader = reader.option("password", str(config["password"]))  # masked by spark.redaction.regex
        return reader.load()
