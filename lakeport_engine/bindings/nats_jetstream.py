"""nats-jetstream catalogs: each JetStream stream is a table of database `default`, read through the Python
data source in lakeport_engine/streamio/nats_source.py."""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import urlsplit

from lakeport_engine.bindings.base import Binding, register_data_source
from lakeport_engine.bindings.redis_streams import StreamCatalogBinding
from lakeport_engine.datasets import Dataset, stream_dataset
from lakeport_engine.streamio.tables import StreamSourceError, StreamTable, declared_table

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from lakeport_engine.streamio.nats_source import NatsAuth


def servers(config: dict[str, Any]) -> list[str]:
    """The configured server URLs."""
    value = config.get("servers") or []
    return [str(s) for s in (value if isinstance(value, list) else str(value).split(","))]


def first_server(config: dict[str, Any]) -> tuple[str, int]:
    """Host and port of the first server, for messages and probing."""
    urls = servers(config)
    parts = urlsplit(urls[0] if urls else "")
    return parts.hostname or "", parts.port or 4222


def auth(config: dict[str, Any]) -> NatsAuth:
    """The catalog's authentication secrets."""
    from lakeport_engine.streamio.nats_source import NatsAuth

    return NatsAuth(user=str(config.get("username") or ""), password=str(config.get("password") or ""),
                    token=str(config.get("token") or ""), credentials=str(config.get("credentials") or ""))


class NatsJetStreamBinding(StreamCatalogBinding):
    """nats-jetstream catalogs."""

    key: ClassVar[str] = "nats-jetstream"
    display_name: ClassVar[str] = "NATS JetStream"

    def summary(self, binding: Binding) -> str:
        """`nats-jetstream at host:port`."""
        host, port = first_server(binding.configuration)
        return f"nats-jetstream at {host}:{port}"

    def endpoint(self, config: dict[str, Any]) -> tuple[str, int] | None:
        """The first server."""
        return first_server(config)

    def lineage_dataset(self, binding: Binding, database: str, table: str) -> Dataset | None:
        """The JetStream stream on `nats://host:port` of the first server."""
        host, port = first_server(binding.configuration)
        return stream_dataset(binding.name, database, table, kind=self.key, namespace=f"nats://{host}:{port}",
                              physical_name=table)

    def _checked(self, binding: Binding, database: str, table: str) -> tuple[StreamTable, str, float]:
        """The declared table, its label and the timeout; the JetStream stream must exist."""
        import nats  # the NATS client is only needed by catalogs that stream from NATS

        from lakeport_engine.streamio.nats_source import connect

        self.check_database(binding, database, table)
        spec = declared_table(binding.configuration, binding.name, database, table)
        label = f"{binding.name}.{database}.{table}"
        timeout = float(binding.configuration.get("connect-timeout", 10))
        host, port = first_server(binding.configuration)

        async def exists() -> bool:
            client = await connect(servers(binding.configuration), auth(binding.configuration), timeout)
            try:
                await client.jetstream().stream_info(table)
                return True
            except nats.js.errors.NotFoundError:
                return False
            finally:
                await client.close()

        try:
            found = asyncio.run(exists())
        except (nats.errors.Error, OSError, TimeoutError) as exc:
            reason = "refused the credentials" if "authorization" in str(exc).lower() else \
                f"is unreachable ({type(exc).__name__})"
            raise StreamSourceError(f"Stream table {label}: NATS at {host}:{port} {reason}.") from None
        if not found:
            raise StreamSourceError(f"Stream table {label}: there is no JetStream stream '{table}' on NATS at "
                                    f"{host}:{port}.")
        return spec, label, timeout

    def sample(self, spark: SparkSession, binding: Binding, database: str, table: str, limit: int) -> DataFrame:
        """The stream's newest `limit` messages, parsed like the stream parses them."""
        from lakeport_engine.streamio.nats_source import connect, newest
        from lakeport_engine.streamio.records import MalformedRecord, RecordParser

        spec, label, timeout = self._checked(binding, database, table)
        parser = RecordParser(f"'{table}' ({label})", [(c.name, c.type) for c in spec.columns])

        async def go() -> list[tuple[int, bytes]]:
            client = await connect(servers(binding.configuration), auth(binding.configuration), timeout)
            try:
                return await newest(client, table, limit)
            finally:
                await client.close()

        try:
            rows = [parser.parse(data, f"sequence {seq}") for seq, data in asyncio.run(go())]
        except MalformedRecord as exc:
            raise StreamSourceError(str(exc)) from None
        return spark.createDataFrame(rows, schema=spec.ddl())

    def stream(self, spark: SparkSession, binding: Binding, database: str, table: str) -> DataFrame:
        """The JetStream stream as a streaming DataFrame of the declared columns."""
        from lakeport_engine.streamio.nats_source import FORMAT, NatsJetStreamDataSource

        spec, label, timeout = self._checked(binding, database, table)
        config = binding.configuration
        register_data_source(spark, NatsJetStreamDataSource)  # this session may not be the active one
        reader = (spark.readStream.format(FORMAT)
                  .option("servers", json.dumps(servers(config)))
                  .option("stream_name", table)
                  .option("label", f"'{table}' ({label})")
                  .option("columns", json.dumps([[c.name, c.type] for c in spec.columns]))
                  .option("start", str(config.get("start") or "earliest"))
                  .option("timeout", str(timeout))
                  .option("auth_secret", auth(config).to_option()))  # masked by spark.redaction.regex
        if config.get("max-records-per-batch"):
            reader = reader.option("max_records_per_batch", str(config["max-records-per-batch"]))
        return reader.load()
