"""`nats-jetstream` catalogs: each JetStream stream is a table of database `default`, browsed with nats-py.
Each message's payload is one JSON record."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar, TypeVar
from urllib.parse import urlsplit

import nats
from nats.aio.client import Client
from pydantic import Field, SecretStr, field_validator

from catalogs.types.base import CatalogConfig, ConnectionResult, MetadataError, TableDetail, TableSummary, secret_field
from catalogs.types.calls import browse, check_connection
from catalogs.types.streams import DEFAULT_DATABASE, StreamCatalogConfig, StreamSample, json_records, stream_detail
from lakeport_engine.streamio.nats_source import NatsAuth, connect, newest

SAMPLE = 50
T = TypeVar("T")


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
    def target(self) -> str:
        """host:port of the first server."""
        parts = urlsplit(self.servers[0])
        return f"{parts.hostname}:{parts.port or 4222}"

    def auth(self) -> NatsAuth:
        """The secrets as the client takes them."""
        def reveal(s: SecretStr | None) -> str:
            return s.get_secret_value() if s else ""

        return NatsAuth(user=self.username or "", password=reveal(self.password), token=reveal(self.token),
                        credentials=reveal(self.credentials))


def _run(config: NatsJetStreamConfig, timeout: float, work: Callable[[Client], Awaitable[T]]) -> T:
    async def go() -> T:
        client = await connect(config.servers, config.auth(), timeout)
        try:
            return await work(client)
        finally:
            await client.close()

    return asyncio.run(go())


class NatsJetStreamCatalogType:
    """NATS JetStream."""

    key: ClassVar[str] = "nats-jetstream"
    display_name: ClassVar[str] = "NATS JetStream"
    config_model: ClassVar[type[CatalogConfig]] = NatsJetStreamConfig

    def test_connection(self, config: NatsJetStreamConfig, *, timeout: float) -> ConnectionResult:
        """Connect with the credentials and ask JetStream for the account's streams."""

        async def work(client: Client) -> str:
            info = await client.jetstream().account_info()
            return (f"connected to NATS {client.connected_server_version} at {config.target}: JetStream with "
                    f"{info.streams} stream(s)")

        return check_connection(lambda: _run(config, timeout, work), timeout=timeout, target=config.target,
                                explain=lambda e: _explain(config, e), secrets=_secrets(config))

    def list_databases(self, config: NatsJetStreamConfig, *, timeout: float) -> list[str]:
        """Only `default`."""
        return [DEFAULT_DATABASE]

    def list_tables(self, config: NatsJetStreamConfig, database: str, *, timeout: float) -> list[TableSummary]:
        """The account's JetStream streams."""
        _check_database(database)

        async def work(client: Client) -> list[TableSummary]:
            names = sorted(s.config.name for s in await client.jetstream().streams_info() if s.config.name)
            return [TableSummary(name=n, kind="stream") for n in names]

        return self._browse(config, lambda: _run(config, timeout, work), timeout)

    def describe_table(self, config: NatsJetStreamConfig, database: str, table: str, *, timeout: float) -> TableDetail:
        """The declared schema, or one inferred from the newest messages; message count and sequences."""
        _check_database(database)

        async def work(client: Client) -> TableDetail:
            try:
                info = await client.jetstream().stream_info(table)
            except nats.js.errors.NotFoundError:
                raise MetadataError(f"Stream '{table}' does not exist.", status=404) from None
            messages = await newest(client, table, SAMPLE)
            properties = {"first-sequence": str(info.state.first_seq), "last-sequence": str(info.state.last_seq),
                          "subjects": ",".join(info.config.subjects or [])}
            return stream_detail(config, database, table, json_records([m for _, m in messages]),
                                 row_count=int(info.state.messages), properties=properties)

        return self._browse(config, lambda: _run(config, timeout, work), timeout)

    def sample_records(self, config: NatsJetStreamConfig, database: str, table: str, limit: int, *,
                       timeout: float) -> StreamSample:
        """The newest `limit` messages, oldest first; messages that are not JSON objects are skipped."""
        _check_database(database)

        async def work(client: Client) -> StreamSample:
            try:
                messages = await newest(client, table, limit)
            except nats.js.errors.NotFoundError:
                raise MetadataError(f"Stream '{table}' does not exist.", status=404) from None
            return StreamSample(json_records([m for _, m in messages]))

        return self._browse(config, lambda: _run(config, timeout, work), timeout)

    def _browse(self, config: NatsJetStreamConfig, run: Callable[[], Any], timeout: float) -> Any:
        return browse(run, timeout=timeout, target=config.target, explain=lambda e: _explain(config, e),
                      secrets=_secrets(config))


def _check_database(database: str) -> None:
    if database != DEFAULT_DATABASE:
        raise MetadataError(f"Database '{database}' does not exist in this catalog (only 'default').", status=404)


def _secrets(config: NatsJetStreamConfig) -> list[str]:
    auth = config.auth()
    return [s for s in (auth.password, auth.token, auth.credentials) if s]


def _explain(config: NatsJetStreamConfig, exc: BaseException) -> str:
    """A message naming the server and the reason (never a credential)."""
    text = str(exc).lower()
    if "authorization" in text or "authentication" in text:
        return f"NATS at {config.target} refused the credentials"
    if isinstance(exc, nats.js.errors.ServiceUnavailableError) or "jetstream not enabled" in text:
        return f"NATS at {config.target} has no JetStream"
    if isinstance(exc, (nats.errors.NoServersError, OSError, TimeoutError, nats.errors.TimeoutError)):
        return f"could not connect to NATS at {config.target}: {type(exc).__name__}"
    return f"NATS at {config.target} failed: {type(exc).__name__}"
