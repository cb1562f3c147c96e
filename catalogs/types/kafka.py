"""`kafka` catalogs: each Kafka topic is a table (database `default`), read by Spark's Kafka source.

The platform ships no Kafka client and the engine no Kafka connector jars: an operator adds them (see
docs/streaming.md, "Kafka"); without them a streaming statement over a kafka catalog is refused by name, listing
the jars. So this type browses what the configuration declares (topics are the declared tables), and its
connection test checks that a bootstrap server accepts TCP connections; the Kafka protocol and the SASL
credentials are first used when a query starts.
"""

from __future__ import annotations

import re
import socket
from typing import ClassVar, Literal

from pydantic import Field, SecretStr, field_validator, model_validator

from catalogs.types.base import CatalogConfig, ConnectionResult, MetadataError, TableDetail, TableSummary, secret_field
from catalogs.types.calls import check_connection
from catalogs.types.streams import DEFAULT_DATABASE, StreamCatalogConfig, stream_detail

_SERVER = re.compile(r"^(?P<host>[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:]+\]):(?P<port>\d{1,5})$")
_TOPIC = re.compile(r"^[A-Za-z0-9._-]{1,249}$")


def servers(text: str) -> list[tuple[str, int]]:
    """(host, port) of each entry of a comma-separated `host:port` list."""
    found = []
    for item in (part.strip() for part in text.split(",")):
        match = _SERVER.match(item)
        if not match or not 0 < int(match.group("port")) < 65536:
            raise ValueError(f"'{item}' is not host:port (a comma-separated list of Kafka brokers).")
        found.append((match.group("host").strip("[]"), int(match.group("port"))))
    return found


class KafkaConfig(StreamCatalogConfig):
    """Kafka brokers whose topics are tables (JSON record values)."""

    bootstrap_servers: str = Field(alias="bootstrap-servers", max_length=2000,
                                   description="Comma-separated host:port list of brokers.")
    security_protocol: Literal["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"] = Field(
        default="PLAINTEXT", alias="security-protocol", description="Kafka's security.protocol.")
    sasl_mechanism: Literal["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"] | None = Field(
        default=None, alias="sasl-mechanism", description="SASL mechanism (with a SASL_* protocol).")
    sasl_username: str | None = Field(default=None, alias="sasl-username", max_length=256)
    sasl_password: SecretStr | None = secret_field(default=None, alias="sasl-password", max_length=1024,
                                                   description="SASL password (write-only).")

    @field_validator("bootstrap_servers")
    @classmethod
    def _servers(cls, value: str) -> str:
        servers(value)
        return value

    @model_validator(mode="after")
    def _sasl(self) -> KafkaConfig:
        if self.security_protocol.startswith("SASL_"):
            if not (self.sasl_mechanism and self.sasl_username and self.sasl_password):
                raise ValueError(f"security-protocol {self.security_protocol} needs sasl-mechanism, sasl-username "
                                 "and sasl-password.")
        elif self.sasl_mechanism or self.sasl_username or self.sasl_password:
            raise ValueError("sasl-* settings need security-protocol SASL_PLAINTEXT or SASL_SSL.")
        for key in self.tables:
            database, _, topic = key.partition(".")
            if database != DEFAULT_DATABASE or not _TOPIC.match(topic):
                raise ValueError(f"table '{key}' must be 'default.<topic>' (letters, digits, '.', '_' or '-').")
        return self

    @property
    def target(self) -> str:
        """The broker list, for messages."""
        return self.bootstrap_servers


class KafkaCatalogType:
    """Kafka (topics as stream tables; Spark's Kafka connector jars are the operator's to add)."""

    key: ClassVar[str] = "kafka"
    display_name: ClassVar[str] = "Kafka"
    config_model: ClassVar[type[CatalogConfig]] = KafkaConfig

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
