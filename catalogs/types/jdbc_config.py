"""Configuration of `jdbc` catalogs (PostgreSQL and MySQL/MariaDB) and the JDBC URL allow-list."""

from __future__ import annotations

import re
from typing import Literal
from urllib.parse import parse_qsl

from pydantic import Field, SecretStr, field_validator, model_validator

from catalogs.types.base import CatalogConfig, secret_field

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

# host[:port], then only "/", a plain database name and "?params": anything else after the host (MySQL's
# `address=(host=…)(key=value)` form, `user:pw@`, `;key=value`) is where a driver and this check could disagree.
_URL_RE = {
    "postgresql": re.compile(r"^jdbc:postgresql://(?P<host>\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+)(?::(?P<port>\d{1,5}))?(?:/(?P<rest>[A-Za-z0-9_$-]*))?(?:\?(?P<query>.*))?$"),
    "mysql": re.compile(r"^jdbc:(?:mysql|mariadb)://(?P<host>\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+)(?::(?P<port>\d{1,5}))?(?:/(?P<rest>[A-Za-z0-9_$-]*))?(?:\?(?P<query>.*))?$"),
}
_DEFAULT_PORT = {"postgresql": 5432, "mysql": 3306}
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_$-]{0,127}$")


def check_jdbc_parameters(kind: str, params: dict[str, str]) -> None:
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
        match = _URL_RE[self.type].match(self.base_url)
        if match is None:
            scheme = "jdbc:postgresql://" if self.type == "postgresql" else "jdbc:mysql://"
            raise ValueError(f"base-url must start with {scheme}host[:port]/ for type '{self.type}'.")
        port = match.group("port")
        if port and not 0 < int(port) < 65536:
            raise ValueError("base-url has an invalid port.")
        query = match.group("query") or ""
        check_jdbc_parameters(self.type, dict(parse_qsl(query, keep_blank_values=True)) | {
            p: "" for p in query.split("&") if p and "=" not in p
        })
        check_jdbc_parameters(self.type, self.properties)
        return self

    @property
    def host(self) -> str:
        """Host name from base-url (IPv6 brackets removed)."""
        return _URL_RE[self.type].match(self.base_url).group("host").strip("[]")  # type: ignore[union-attr]

    @property
    def port(self) -> int:
        """Port from base-url, or the product's default."""
        port = _URL_RE[self.type].match(self.base_url).group("port")  # type: ignore[union-attr]
        return int(port) if port else _DEFAULT_PORT[self.type]
