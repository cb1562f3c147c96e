"""`redis-streams` catalogs: each Redis stream key is a table, browsed with redis-py.

Database `default` holds the stream keys without a `:`; a database named in `databases` holds the keys
`<database>:<table>`. Records are JSON in the entry field `value-field` (default `data`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, ClassVar
from urllib.parse import urlsplit

import redis
from pydantic import Field, SecretStr, field_validator

from catalogs.types.base import CatalogConfig, ConnectionResult, MetadataError, TableDetail, TableSummary, secret_field
from catalogs.types.calls import browse, check_connection
from catalogs.types.streams import DEFAULT_DATABASE, StreamCatalogConfig, StreamSample, json_records, stream_detail

MAX_KEYS = 10_000  # keys a table listing scans at most
SAMPLE = 50  # newest entries read to infer a schema
_NAME = r"^[A-Za-z0-9_$-]{1,128}$"


class RedisStreamsConfig(StreamCatalogConfig):
    """A Redis server whose stream keys are tables."""

    url: str = Field(description="redis://host:port/db or rediss://… (no password in the URL).", max_length=500)
    password: SecretStr | None = secret_field(default=None, description="Password (write-only).", max_length=1024)
    databases: list[str] = Field(default_factory=list, description="Key prefixes: database X holds keys 'X:<table>'.")
    value_field: str = Field(default="data", alias="value-field", max_length=128,
                             description="Entry field holding the JSON record.")

    @field_validator("url")
    @classmethod
    def _url(cls, value: str) -> str:
        parts = urlsplit(value)
        if parts.scheme not in ("redis", "rediss") or not parts.hostname:
            raise ValueError("must be redis://host[:port][/db] or rediss://….")
        if parts.password is not None:
            raise ValueError("must not carry a password: use the password field.")
        try:
            parts.port  # noqa: B018 - raises for a port out of range
        except ValueError:
            raise ValueError("has an invalid port.") from None
        if parts.path.strip("/") and not parts.path.strip("/").isdigit():
            raise ValueError("the path must be a database number.")
        return value

    @field_validator("databases")
    @classmethod
    def _databases(cls, value: list[str]) -> list[str]:
        for name in value:
            if not re.match(_NAME, name) or name == DEFAULT_DATABASE:
                raise ValueError(f"'{name}' is not a usable key prefix (letters, digits, _, $ or -; not 'default').")
        return value

    @property
    def target(self) -> str:
        """host:port for messages."""
        parts = urlsplit(self.url)
        return f"{parts.hostname}:{parts.port or 6379}"


def _client(config: RedisStreamsConfig, timeout: float) -> redis.Redis:
    password = config.password.get_secret_value() if config.password else None
    return redis.Redis.from_url(config.url, password=password, socket_connect_timeout=timeout, socket_timeout=timeout)


def stream_key(database: str, table: str) -> str:
    """The key of `database.table`."""
    return table if database == DEFAULT_DATABASE else f"{database}:{table}"


class RedisStreamsCatalogType:
    """Redis Streams."""

    key: ClassVar[str] = "redis-streams"
    display_name: ClassVar[str] = "Redis Streams"
    config_model: ClassVar[type[CatalogConfig]] = RedisStreamsConfig

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
        return [DEFAULT_DATABASE, *config.databases]

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
            kind = conn.type(key).decode()
            if kind != "stream":
                raise MetadataError(f"Stream '{key}' does not exist.", status=404)
            entries = conn.xrevrange(key, "+", "-", count=SAMPLE)
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
            if conn.type(key).decode() != "stream":
                raise MetadataError(f"Stream '{key}' does not exist.", status=404)
            entries = conn.xrevrange(key, "+", "-", count=limit)
            field = config.value_field.encode()
            return StreamSample(json_records([fields.get(field) or b"" for _, fields in reversed(entries)]))

        return self._browse(config, run, timeout)

    def _browse(self, config: RedisStreamsConfig, run: Callable[[], Any], timeout: float) -> Any:
        return browse(run, timeout=timeout, target=config.target, explain=lambda e: _explain(config, e),
                      secrets=_secrets(config))


def _secrets(config: RedisStreamsConfig) -> list[str]:
    return [config.password.get_secret_value()] if config.password else []


def _explain(config: RedisStreamsConfig, exc: BaseException) -> str:
    """A message naming the server and the reason (never the password)."""
    if isinstance(exc, redis.AuthenticationError) or "NOAUTH" in str(exc) or "WRONGPASS" in str(exc):
        return f"Redis at {config.target} refused the password"
    if isinstance(exc, (redis.ConnectionError, redis.TimeoutError, OSError)):
        return f"could not connect to Redis at {config.target}: {type(exc).__name__}"
    return f"Redis at {config.target} failed: {type(exc).__name__}"
