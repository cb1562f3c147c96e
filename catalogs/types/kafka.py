"""`kafka` catalogs: each Kafka topic is a table (database `default`), read by Spark's Kafka source.

The platform ships no Kafka client and the engine no Kafka connector jars: an operator adds them (see
docs/streaming.md, "Kafka"); without them a streaming statement over a kafka catalog is refused by name, listing
the jars. So this type browses what the configuration declares (topics are the declared tables), and its
connection test checks that a bootstrap server accepts TCP connections; the Kafka protocol and the SASL
credentials are first used when a query starts.
"""

from __future__ import annotations

import socket
from typing import ClassVar

from catalogs.types.base import ConnectionResult, DefinedCatalogType, MetadataError, TableDetail, TableSummary
from catalogs.types.calls import check_connection
from catalogs.types.streams import DEFAULT_DATABASE, stream_detail
from lakeport_engine.catalog_types.base import CatalogTypeDefinition
from lakeport_engine.catalog_types.kafka import DEFINITION, KafkaConfig, servers


class KafkaCatalogType(DefinedCatalogType):
    """Kafka (topics as stream tables; Spark's Kafka connector jars are the operator's to add)."""

    definition: ClassVar[CatalogTypeDefinition] = DEFINITION

    def test_connection(self, config: KafkaConfig, *, timeout: float) -> ConnectionResult:
        """The first bootstrap server that accepts a TCP connection (the Kafka protocol is checked at query start)."""

        def check() -> str:
            failures = []
            for host, port in servers(config.bootstrap_servers):
                try:
                    with socket.create_connection((host, port), timeout=timeout):
                        return (f"reached Kafka bootstrap server {host}:{port} (TCP; the Kafka protocol and SASL "
                                "credentials are checked when a query starts)")
                except OSError as exc:
                    failures.append(f"{host}:{port} ({type(exc).__name__})")
            raise ConnectionError("no bootstrap server accepts connections: " + ", ".join(failures))

        return check_connection(check, timeout=timeout * 2, target=config.target, explain=_explain,
                                secrets=_secrets(config))

    def list_databases(self, config: KafkaConfig, *, timeout: float) -> list[str]:
        """The one database, `default`."""
        return [DEFAULT_DATABASE]

    def list_tables(self, config: KafkaConfig, database: str, *, timeout: float) -> list[TableSummary]:
        """The declared topics (the platform has no Kafka client to list a cluster's topics)."""
        self._check_database(database)
        return [TableSummary(name=key.partition(".")[2], kind="stream") for key in sorted(config.tables)]

    def describe_table(self, config: KafkaConfig, database: str, table: str, *, timeout: float) -> TableDetail:
        """The declared schema of a topic; an undeclared topic is not found (no records to infer from)."""
        self._check_database(database)
        if config.declared(database, table) is None:
            raise MetadataError(f"Topic '{table}' is not declared in this catalog: declare its columns under "
                                f"tables['default.{table}'].", status=404)
        return stream_detail(config, database, table, [], row_count=None, properties={"topic": table})

    @staticmethod
    def _check_database(database: str) -> None:
        if database != DEFAULT_DATABASE:
            raise MetadataError(f"Database '{database}' does not exist in this catalog.", status=404)


def _secrets(config: KafkaConfig) -> list[str]:
    return [config.sasl_password.get_secret_value()] if config.sasl_password else []


def _explain(exc: BaseException) -> str:
    """The failure in words (never a credential: the check sends none)."""
    return str(exc) if isinstance(exc, ConnectionError) else f"Kafka connection check failed: {type(exc).__name__}"
