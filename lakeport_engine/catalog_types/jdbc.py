"""`jdbc` catalogs (PostgreSQL and MySQL/MariaDB): the configuration model and the JDBC parameter allow-list."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field, SecretStr, field_validator, model_validator

from lakeport_engine.catalog_types.base import CatalogConfig, CatalogTypeDefinition, Endpoint, secret_field
from lakeport_engine.jdbc_url import JdbcUrl, JdbcUrlError, parse_jdbc_url

# Parameters known to turn a JDBC connection into file reads, class loading or code execution.
DANGEROUS_PARAMETERS = {
    "postgresql": {
        "socketfactory", "socketfactoryarg", "sslfactory", "sslfactoryarg", "sslhostnameverifier",
        "sslpasswordcallback", "loggerfile", "loggerlevel", "authenticationpluginclassname",
        "sslkey", "sslcert", "sslrootcert", "jaaslogin", "jaasapplicationname", "kerberosservername",
        "servicename", "gsslib", "options",
    },
    "mysql": {
        "allowloadlocalinfile", "allowurlinlocalinfile", "allowloadlocalinfileinpath", "autodeserialize",
        "queryinterceptors", "statementinterceptors", "exceptioninterceptors", "connectionlifecycleinterceptors",
        "authenticationplugins", "defaultauthenticationplugin", "clientcertificatekeystoreurl",
        "truststorecertificatekeystoreurl", "servercertificatekeystoreurl", "keystore", "truststore",
        "socketfactory", "credentialtype", "passwordcharacterencoding", "init", "initsql",
        "sessionvariables", "localsocket", "pipe", "codecs", "plugins",
    },
}

# Parameters an admin may set; anything else is refused so a new driver feature is opt-in.
ALLOWED_PARAMETERS = {
    "postgresql": {
        "ssl", "sslmode", "connecttimeout", "sockettimeout", "logintimeout", "applicationname",
        "currentschema", "tcpkeepalive", "prepareThreshold".lower(), "defaultrowfetchsize", "readonly",
        "reWriteBatchedInserts".lower(), "targetservertype", "loadbalancehosts", "stringtype",
    },
    "mysql": {
        "permitmysqlscheme", "usessl", "sslmode", "connecttimeout", "sockettimeout", "characterencoding",
        "useunicode", "servertimezone", "tcpkeepalive", "zerodatetimebehavior", "trustservercertificate",
        "rewritebatchedstatements", "usecompression", "useserverprepstmts", "cacheprepstmts",
        "sessionvariables_disabled", "connectionattributes",
    },
}

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_$-]{0,127}$")


def check_jdbc_parameters(kind: str, params: Mapping[str, str]) -> None:
    """Raise ValueError naming the first parameter that is dangerous or not on the allow-list."""
    for name in params:
        low = name.lower()
        if low in DANGEROUS_PARAMETERS[kind]:
            raise ValueError(f"JDBC parameter '{name}' is not allowed: it can read files or run code on the server.")
        if low not in ALLOWED_PARAMETERS[kind]:
            raise ValueError(f"JDBC parameter '{name}' is not on the allow-list for {kind}.")


class JdbcConfig(CatalogConfig):
    """A PostgreSQL or MySQL/MariaDB server reached over JDBC (Spark) and psycopg/PyMySQL (browsing)."""

    type: Literal["postgresql", "mysql"] = Field(description="Database product.")
    base_url: str = Field(
        alias="base-url",
        description="JDBC URL of the server, e.g. jdbc:postgresql://db:5432/ or jdbc:mysql://db:3306/",
        max_length=500,
    )
    default_database: str = Field(alias="default-database", description="Database to connect to.", max_length=128)
    username: str = Field(description="User name.", max_length=128)
    password: SecretStr = secret_field(description="Password (write-only).", max_length=1024)
    properties: dict[str, str] = Field(
        default_factory=dict, description="Extra JDBC parameters (allow-listed only)."
    )

    @field_validator("default_database")
    @classmethod
    def _database_name(cls, value: str) -> str:
        if not _IDENT.match(value):
            raise ValueError("must be a plain database name (letters, digits, _, $ or -).")
        return value

    @model_validator(mode="after")
    def _url_matches_type(self) -> JdbcConfig:
        try:
            url = parse_jdbc_url(self.base_url, product=self.type, strict=True)
        except JdbcUrlError as exc:
            raise ValueError(str(exc)) from None
        check_jdbc_parameters(self.type, url.parameters())
        check_jdbc_parameters(self.type, self.properties)
        return self

    @property
    def url(self) -> JdbcUrl:
        """base-url parsed (valid: the model checked it)."""
        return parse_jdbc_url(self.base_url, product=self.type, strict=True)

    @property
    def host(self) -> str:
        """Host name from base-url (IPv6 brackets removed)."""
        return self.url.host

    @property
    def port(self) -> int:
        """Port from base-url, or the product's default."""
        return self.url.port


def endpoints(plain: Mapping[str, Any]) -> list[Endpoint]:
    """The database server, with the databases a connection uses (base-url parsed loosely)."""
    try:
        url = parse_jdbc_url(str(plain.get("base-url", "")))
    except JdbcUrlError:
        return []
    databases = {str(plain.get("default-database") or ""), url.database} - {""}
    return [Endpoint(url.host, url.port, str(plain.get("type") or "postgresql"), frozenset(databases))]


DEFINITION = CatalogTypeDefinition(key="jdbc", display_name="JDBC (PostgreSQL, MySQL/MariaDB)",
                                    config_model=JdbcConfig, endpoints=endpoints, endpoint_field="base-url")
