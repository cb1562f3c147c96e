"""kafka catalogs: each topic is a table, read with Spark's Kafka source. That source ships as separate jars
which the engine does not bundle: an operator adds them (like the Delta JVM mode), and where they are missing a
STREAM over a kafka catalog is refused by name, listing the jars."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from lakeport_engine.bindings.base import Binding, typed_config
from lakeport_engine.bindings.redis_streams import StreamCatalogBinding
from lakeport_engine.catalog_types import kafka
from lakeport_engine.catalog_types.base import CatalogTypeDefinition
from lakeport_engine.catalog_types.kafka import KafkaConfig
from lakeport_engine.datasets import Dataset, host_port, stream_dataset
from lakeport_engine.streamio.tables import StreamSourceError, declared_table

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

KAFKA_PROVIDER = "org.apache.spark.sql.kafka010.KafkaSourceProvider"
KAFKA_JARS = ("org.apache.spark:spark-sql-kafka-0-10_2.13 (same version as Spark)", "org.apache.kafka:kafka-clients",
              "org.apache.spark:spark-token-provider-kafka-0-10_2.13", "org.apache.commons:commons-pool2")


_LOGIN_MODULES = {"PLAIN": "org.apache.kafka.common.security.plain.PlainLoginModule",
                  "SCRAM-SHA-256": "org.apache.kafka.common.security.scram.ScramLoginModule",
                  "SCRAM-SHA-512": "org.apache.kafka.common.security.scram.ScramLoginModule"}


def sasl_options(config: KafkaConfig) -> dict[str, str]:
    """The Kafka source's `kafka.security.protocol` / SASL options of a catalog configuration."""
    protocol = config.security_protocol
    options: dict[str, str] = {"kafka.security.protocol": protocol}
    mechanism = config.sasl_mechanism
    if protocol.startswith("SASL_") and mechanism:
        password = config.sasl_password.get_secret_value() if config.sasl_password else ""
        quoted = [v.replace("\\", "\\\\").replace('"', '\\"') for v in (config.sasl_username or "", password)]
        options["kafka.sasl.mechanism"] = mechanism
        options["kafka.sasl.jaas.config"] = (f'{_LOGIN_MODULES[mechanism]} required username="{quoted[0]}" '
                                             f'password="{quoted[1]}";')
    return options


def kafka_available(spark: SparkSession) -> bool:
    """True when Spark's Kafka source classes are on the driver's classpath."""
    loader = spark.sparkContext._jvm.Thread.currentThread().getContextClassLoader()  # type: ignore[union-attr]
    try:
        loader.loadClass(KAFKA_PROVIDER)
    except Exception:  # noqa: BLE001 - py4j wraps ClassNotFoundException
        return False
    return True


class KafkaBinding(StreamCatalogBinding):
    """kafka catalogs (`bootstrap-servers`; each topic of database `default` is a table, JSON values)."""

    definition: ClassVar[CatalogTypeDefinition] = kafka.DEFINITION
    key: ClassVar[str] = kafka.DEFINITION.key
    display_name: ClassVar[str] = "Kafka"

    @staticmethod
    def config(binding: Binding) -> KafkaConfig:
        """The catalog's configuration, typed."""
        return typed_config(KafkaConfig, binding.name, binding.configuration)

    def summary(self, binding: Binding) -> str:
        """`kafka at <servers>`."""
        return f"kafka at {self.config(binding).bootstrap_servers}"

    def lineage_dataset(self, binding: Binding, database: str, table: str) -> Dataset | None:
        """The topic on `kafka://host:port` of the first bootstrap server (OpenLineage's Kafka naming)."""
        first = self.config(binding).bootstrap_servers.split(",")[0].strip()
        host, port = host_port(f"kafka://{first}", 9092)
        return stream_dataset(binding.name, database, table, kind=self.key, namespace=f"kafka://{host}:{port}",
                              physical_name=table)

    def _require_jars(self, spark: SparkSession, label: str) -> None:
        if not kafka_available(spark):
            raise StreamSourceError(
                f"Stream table {label}: Kafka needs Spark's Kafka connector jars, which this engine does not have: "
                f"{', '.join(KAFKA_JARS)}. An operator adds them with spark.jars (see docs/streaming.md)."
            )

    def stream(self, spark: SparkSession, binding: Binding, database: str, table: str) -> DataFrame:
        """The topic's JSON values parsed into the declared columns."""
        from pyspark.sql import functions as F  # noqa: N812 - Spark's own idiom

        label = f"{binding.name}.{database}.{table}"
        self.check_database(binding, database, table)
        spec = declared_table(binding.configuration, binding.name, database, table)
        self._require_jars(spark, label)
        config = self.config(binding)
        reader = (spark.readStream.format("kafka")
                  .option("kafka.bootstrap.servers", config.bootstrap_servers)
                  .option("subscribe", table)
                  .option("startingOffsets", config.start))
        for key, value in sasl_options(config).items():
            reader = reader.option(key, value)  # the JAAS value holds `password=`: spark.redaction.regex masks it
        if config.max_records_per_batch:
            reader = reader.option("maxOffsetsPerTrigger", str(config.max_records_per_batch))
        raw = reader.load()
        parsed = raw.select(F.from_json(F.col("value").cast("string"), spec.ddl(), {"mode": "FAILFAST"}).alias("r"))
        return parsed.select("r.*")

    def sample(self, spark: SparkSession, binding: Binding, database: str, table: str, limit: int) -> DataFrame:
        """Not offered for Kafka: refused with the reason."""
        raise StreamSourceError(f"Stream table {binding.name}.{database}.{table}: sampling a Kafka topic is not "
                                "supported.")
