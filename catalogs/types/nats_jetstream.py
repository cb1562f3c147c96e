"""`nats-jetstream` catalogs: each JetStream stream is a table of database `default`, browsed with nats-py.
Each message's payload is one JSON record."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import ClassVar, TypeVar

import nats
from nats.aio.client import Client

from catalogs.types.base import ConnectionResult, DefinedCatalogType, MetadataError, TableDetail, TableSummary
from catalogs.types.calls import browse, check_connection
from catalogs.types.streams import DEFAULT_DATABASE, StreamSample, json_records, stream_detail
from lakeport_engine.catalog_types.base import CatalogTypeDefinition
from lakeport_engine.catalog_types.nats_jetstream import DEFINITION, NatsJetStreamConfig
from lakeport_engine.streamio.nats_source import connect, newest

SAMPLE = 50
T = TypeVar("T")


def _run(config: NatsJetStreamConfig, timeout: float, work: Callable[[Client], Awaitable[T]]) -> T:
    async def go() -> T:
        client = await connect(config.servers, config.auth(), timeout)
        try:
            return await work(client)
        finally:
            await client.close()

    return asyncio.run(go())


class NatsJetStreamCatalogType(DefinedCatalogType):
    """NATS JetStream."""

    definition: ClassVar[CatalogTypeDefinition] = DEFINITION

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

    def _browse(self, config: NatsJetStreamConfig, run: Callable[[], T], timeout: float) -> T:
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
