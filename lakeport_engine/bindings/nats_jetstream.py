"""nats-jetstream catalogs: each JetStream stream is a table of database `default`, read through the Python
data source in lakeport_engine/streamio/nats_source.py."""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any, ClassVar

from lakeport_engine.bindings.base import Binding, register_data_source, typed_config
from lakeport_engine.bindings.redis_streams import CONNECT_TIMEOUT, StreamCatalogBinding
from lakeport_engine.catalog_types import nats_jetstream
from lakeport_engine.catalog_types.base import CatalogTypeDefinition
from lakeport_engine.catalog_types.nats_jetstream import NatsJetStreamConfig
from lakeport_engine.datasets import Dataset, stream_dataset
from lakeport_engine.streamio.tables import StreamSourceError, StreamTable, declared_table

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


class NatsJetStreamBinding(StreamCatalogBinding):
    """nats-jetstream catalogs."""

    definition: ClassVar[CatalogTypeDefinition] = nats_jetstream.DEFINITION
    key: ClassVar[str] = nats_jetstream.DEFINITION.key
    display_name: ClassVar[str] = "NATS JetStream"

    @staticmethod
    def config(binding: Binding) -> NatsJetStreamConfig:
        """The catalog's configuration, typed."""
        return typed_config(NatsJetStreamConfig, binding.name, binding.configuration)

    def summary(self, binding: Binding) -> str:
        """`nats-jetstream at host:port`."""
        return f"nats-jetstream at {self.config(binding).target}"

    def endpoint(self, config: dict[str, Any]) -> tuple[str, int] | None:
        """The first server."""
        return self.first_endpoint(config)

    def lineage_dataset(self, binding: Binding, database: str, table: str) -> Dataset | None:
        """The JetStream stream on `nats://host:port` of the first server."""
        return stream_dataset(binding.name, database, table, kind=self.key,
                              namespace=f"nats://{self.config(binding).target}", physical_name=table)

    def _checked(self, binding: Binding, database: str, table: str) -> tuple[StreamTable, str, float]:
        """The declared table, its label and the timeout; the JetStream stream must exist."""
        import nats  # the NATS client is only needed by catalogs that stream from NATS

        from lakeport_engine.streamio.nats_source import connect

        self.check_database(binding, database, table)
        spec = declared_table(binding.configuration, binding.name, database, table)
        label = f"{binding.name}.{database}.{table}"
        timeout = CONNECT_TIMEOUT
        config = self.config(binding)

        async def exists() -> bool:
            client = await connect(config.servers, config.auth(), timeout)
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
            raise StreamSourceError(f"Stream table {label}: NATS at {config.target} {reason}.") from None
        if not found:
            raise StreamSourceError(f"Stream table {label}: there is no JetStream stream '{table}' on NATS at "
                                    f"{config.target}.")
        return spec, label, timeout

    def sample(self, spark: SparkSession, binding: Binding, database: str, table: str, limit: int) -> DataFrame:
        """The stream's newest `limit` messages, parsed like the stream parses them."""
        from lakeport_engine.streamio.nats_source import connect, newest
        from lakeport_engine.streamio.records import MalformedRecord, RecordParser

        spec, label, timeout = self._checked(binding, database, table)
        parser = RecordParser(f"'{table}' ({label})", [(c.name, c.type) for c in spec.columns])
        config = self.config(binding)

        async def go() -> list[tuple[int, bytes]]:
            client = await connect(config.servers, config.auth(), timeout)
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
        config = self.config(binding)
        register_data_source(spark, NatsJetStreamDataSource)  # this session may not be the active one
        reader = (spark.readStream.format(FORMAT)
                  .option("servers", json.dumps(config.servers))
                  .option("stream_name", table)
                  .option("label", f"'{table}' ({label})")
                  .option("columns", json.dumps([[c.name, c.type] for c in spec.columns]))
                  .option("start", config.start)
                  .option("timeout", str(timeout))
                  .option("auth_secret", config.auth().to_option()))  # masked by spark.redaction.regex
        if config.max_records_per_batch:
            reader = reader.option("max_records_per_batch", str(config.max_records_per_batch))
        return reader.load()
