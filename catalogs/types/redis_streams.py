"""`redis-streams` catalogs: each Redis stream key is a table, browsed with redis-py.

Database `default` holds the stream keys without a `:`; a database named in `databases` holds the keys
`<database>:<table>`. Records are JSON in the entry field `value-field` (default `data`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import redis

from catalogs.types.base import ConnectionResult, DefinedCatalogType, MetadataError, TableDetail, TableSummary
from catalogs.types.calls import T, browse, check_connection
from catalogs.types.streams import DEFAULT_DATABASE, StreamSample, json_records, stream_detail
from lakeport_engine.catalog_types.base import CatalogTypeDefinition
from lakeport_engine.catalog_types.redis_streams import DEFINITION, RedisStreamsConfig, entries_of, stream_key

MAX_KEYS = 10_000  # keys a table listing scans at most
SAMPLE = 50  # newest entries read to infer a schema


def _client(config: RedisStreamsConfig, timeout: float) -> redis.Redis:
    password = config.password.get_secret_value() if config.password else None
    return redis.Redis.from_url(config.url, password=password, socket_connect_timeout=timeout, socket_timeout=timeout)


class RedisStreamsCatalogType(DefinedCatalogType):
    """Redis Streams."""

    definition: ClassVar[CatalogTypeDefinition] = DEFINITION

    def test_connection(self, config: RedisStreamsConfig, *, timeout: float) -> ConnectionResult:
        """PING the server with the password and report its version."""

        def check() -> str:
            conn = _client(config, timeout)
            conn.ping()
            version = conn.info("server").get("redis_version", "?")
            return f"connected to Redis {version} at {config.target}"

        return check_connection(check, timeout=timeout, target=config.target, explain=lambda e: _explain(config, e),
                                secrets=_secrets(config))

    def list_databases(self, config: RedisStreamsConfig, *, timeout: float) -> list[str]:
        """`default` and the configured key prefixes."""
        return config.all_databases()

    def list_tables(self, config: RedisStreamsConfig, database: str, *, timeout: float) -> list[TableSummary]:
        """Stream keys of the database (SCAN … TYPE stream)."""
        if database not in self.list_databases(config, timeout=timeout):
            raise MetadataError(f"Database '{database}' does not exist in this catalog.", status=404)

        def run() -> list[TableSummary]:
            pattern = "*" if database == DEFAULT_DATABASE else f"{database}:*"
            names: list[str] = []
            for n, key in enumerate(_client(config, timeout).scan_iter(match=pattern, count=1000, _type="stream")):
                if n >= MAX_KEYS:
                    break
                text = key.decode(errors="replace")
                rest = text if database == DEFAULT_DATABASE else text[len(database) + 1:]
                if ":" not in rest:
                    names.append(rest)
            return [TableSummary(name=name, kind="stream") for name in sorted(names)]

        return self._browse(config, run, timeout)

    def describe_table(self, config: RedisStreamsConfig, database: str, table: str, *, timeout: float) -> TableDetail:
        """The declared schema, or one inferred from the newest entries; length and last entry id."""
        if database not in self.list_databases(config, timeout=timeout):
            raise MetadataError(f"Database '{database}' does not exist in this catalog.", status=404)

        def run() -> TableDetail:
            conn = _client(config, timeout)
            key = stream_key(database, table)
            if _kind(conn, key) != "stream":
                raise MetadataError(f"Stream '{key}' does not exist.", status=404)
            entries = entries_of(conn.xrevrange(key, "+", "-", count=SAMPLE))
            field = config.value_field.encode()
            payloads = [fields.get(field) or b"" for _, fields in entries]
            properties = {"key": key, "last-entry-id": entries[0][0].decode() if entries else ""}
            return stream_detail(config, database, table, json_records(payloads), row_count=int(conn.xlen(key)),
                                 properties=properties)

        return self._browse(config, run, timeout)

    def sample_records(self, config: RedisStreamsConfig, database: str, table: str, limit: int, *,
                       timeout: float) -> StreamSample:
        """The newest `limit` entries (XREVRANGE), oldest first; entries that are not JSON objects are skipped."""
        if database not in self.list_databases(config, timeout=timeout):
            raise MetadataError(f"Database '{database}' does not exist in this catalog.", status=404)

        def run() -> StreamSample:
            conn = _client(config, timeout)
            key = stream_key(database, table)
            if _kind(conn, key) != "stream":
                raise MetadataError(f"Stream '{key}' does not exist.", status=404)
            entries = entries_of(conn.xrevrange(key, "+", "-", count=limit))
            field = config.value_field.encode()
            return StreamSample(json_records([fields.get(field) or b"" for _, fields in reversed(entries)]))

        return self._browse(config, run, timeout)

    def _browse(self, config: RedisStreamsConfig, run: Callable[[], T], timeout: float) -> T:
        return browse(run, timeout=timeout, target=config.target, explain=lambda e: _explain(config, e),
                      secrets=_secrets(config))


def _kind(conn: redis.Redis, key: str) -> str:
    """The type of `key` ("none" when missing)."""
    kind = conn.type(key)
    return kind.decode() if isinstance(kind, bytes) else str(kind)


def _secrets(config: RedisStreamsConfig) -> list[str]:
    return [config.password.get_secret_value()] if config.password else []


def _explain(config: RedisStreamsConfig, exc: BaseException) -> str:
    """A message naming the server and the reason (never the password)."""
    if isinstance(exc, redis.AuthenticationError) or "NOAUTH" in str(exc) or "WRONGPASS" in str(exc):
        return f"Redis at {config.target} refused the password"
    if isinstance(exc, (redis.ConnectionError, redis.TimeoutError, OSError)):
        return f"could not connect to Redis at {config.target}: {type(exc).__name__}"
    return f"Redis at {config.target} failed: {type(exc).__name__}"
