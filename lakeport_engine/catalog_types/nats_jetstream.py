"""`nats-jetstream` catalogs: each JetStream stream is a table of database `default` (the configuration model,
its servers and the secrets as the NATS client takes them)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, field_validator

from lakeport_engine.catalog_types.base import CatalogTypeDefinition, Endpoint, reveal, secret_field, url_endpoint
from lakeport_engine.catalog_types.streams import StreamCatalogConfig

DEFAULT_PORT = 4222


@dataclass(frozen=True)
class NatsAuth:
    """The secrets of a nats-jetstream catalog (any of them may be empty)."""

    user: str = ""
    password: str = ""
    token: str = ""
    credentials: str = ""  # the text of a .creds file (user JWT and NKey seed)

    def to_option(self) -> str:
        """One option value holding every secret (passed as `auth_secret`)."""
        return json.dumps({"user": self.user, "password": self.password, "token": self.token,
                           "credentials": self.credentials})

    @classmethod
    def from_option(cls, value: str | None) -> NatsAuth:
        """The secrets from `to_option`'s text (none when absent)."""
        return cls(**json.loads(value)) if value else cls()


class NatsJetStreamConfig(StreamCatalogConfig):
    """NATS servers with JetStream; each stream is a table."""

    servers: list[str] = Field(min_length=1, max_length=16, description="nats://host:port or tls://host:port URLs.")
    username: str | None = Field(default=None, max_length=128)
    password: SecretStr | None = secret_field(default=None, description="Password (write-only).", max_length=1024)
    token: SecretStr | None = secret_field(default=None, description="Auth token (write-only).", max_length=4096)
    credentials: SecretStr | None = secret_field(default=None, description="Contents of a .creds file (write-only).",
                                                 max_length=16384)

    @field_validator("servers")
    @classmethod
    def _servers(cls, value: list[str]) -> list[str]:
        for url in value:
            parts = urlsplit(url)
            if parts.scheme not in ("nats", "tls") or not parts.hostname:
                raise ValueError("each server must be nats://host[:port] or tls://host[:port].")
            if parts.password is not None or parts.username is not None:
                raise ValueError("server URLs must not carry credentials: use the credential fields.")
        return value

    @property
    def first_server(self) -> tuple[str, int]:
        """Host and port of the first server."""
        parts = urlsplit(self.servers[0])
        return parts.hostname or "", parts.port or DEFAULT_PORT

    @property
    def target(self) -> str:
        """host:port of the first server."""
        host, port = self.first_server
        return f"{host}:{port}"

    def auth(self) -> NatsAuth:
        """The secrets as the client takes them."""
        return NatsAuth(user=self.username or "", password=reveal(self.password), token=reveal(self.token),
                        credentials=reveal(self.credentials))


def endpoints(plain: Mapping[str, Any]) -> list[Endpoint]:
    """The configured servers."""
    found = (url_endpoint(str(s), "nats") for s in plain.get("servers") or [])
    return [e for e in found if e is not None]


DEFINITION = CatalogTypeDefinition(key="nats-jetstream", display_name="NATS JetStream",
                                   config_model=NatsJetStreamConfig, endpoints=endpoints, endpoint_field="servers")
