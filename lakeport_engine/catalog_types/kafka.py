"""`kafka` catalogs: each Kafka topic is a table of database `default` (the configuration model and its brokers)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field, SecretStr, field_validator, model_validator

from lakeport_engine.catalog_types.base import CatalogTypeDefinition, Endpoint, secret_field
from lakeport_engine.catalog_types.streams import DEFAULT_DATABASE, StreamCatalogConfig

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


def endpoints(plain: Mapping[str, Any]) -> list[Endpoint]:
    """The bootstrap servers (none when the list does not parse)."""
    try:
        return [Endpoint(host, port, "kafka") for host, port in servers(str(plain.get("bootstrap-servers") or ""))]
    except ValueError:
        return []


DEFINITION = CatalogTypeDefinition(key="kafka", display_name="Kafka", config_model=KafkaConfig, endpoints=endpoints, endpoint_field="bootstrap-servers")
