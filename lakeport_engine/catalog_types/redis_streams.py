"""`redis-streams` catalogs: each Redis stream key is a table (the configuration model and its server).

Database `default` holds the stream keys without a `:`; a database named in `databases` holds the keys
`<database>:<table>`. Records are JSON in the entry field `value-field` (default `data`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, cast
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, field_validator

from lakeport_engine.catalog_types.base import CatalogTypeDefinition, Endpoint, secret_field, url_endpoint
from lakeport_engine.catalog_types.streams import DEFAULT_DATABASE, StreamCatalogConfig

_NAME = r"^[A-Za-z0-9_$-]{1,128}$"
DEFAULT_PORT = 6379


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
    def server(self) -> tuple[str, int]:
        """Host and port of the server."""
        parts = urlsplit(self.url)
        return parts.hostname or "", parts.port or DEFAULT_PORT

    @property
    def target(self) -> str:
        """host:port for messages."""
        host, port = self.server
        return f"{host}:{port}"

    @property
    def db(self) -> str:
        """The database number of the URL ("" when it names none)."""
        return urlsplit(self.url).path.strip("/")

    def all_databases(self) -> list[str]:
        """`default` and the configured key prefixes."""
        return [DEFAULT_DATABASE, *self.databases]


Entries = list[tuple[bytes, dict[bytes, bytes]]]


def entries_of(reply: object) -> Entries:
    """An XRANGE/XREVRANGE reply as it is without decode_responses: bytes ids and fields (redis-py's stubs allow
    str and None too)."""
    return cast(Entries, reply or [])


def stream_key(database: str, table: str) -> str:
    """The Redis key of `database.table`."""
    return table if database == DEFAULT_DATABASE else f"{database}:{table}"


def endpoints(plain: Mapping[str, Any]) -> list[Endpoint]:
    """The Redis server."""
    found = url_endpoint(str(plain.get("url") or ""), "redis")
    return [found] if found else []


DEFINITION = CatalogTypeDefinition(key="redis-streams", display_name="Redis Streams", config_model=RedisStreamsConfig,
                                   endpoints=endpoints, endpoint_field="url")
