"""The one JDBC URL parser: the catalog API validates with it (strict) and the Spark binding builds URLs with it.

Django-free, so both sides import it. Only `jdbc:postgresql://`, `jdbc:mysql://` and `jdbc:mariadb://` URLs of
the form `host[:port][/database][?params]` are understood.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qsl

DEFAULT_PORTS = {"postgresql": 5432, "mysql": 3306}
# The scheme each product accepts (MariaDB Connector/J also takes jdbc:mysql:// with permitMysqlScheme).
_SCHEMES = {"postgresql": ("postgresql",), "mysql": ("mysql", "mariadb")}
_URL = re.compile(
    r"^jdbc:(?P<scheme>postgresql|mysql|mariadb)://(?P<hostport>[^/?]+)(?:/(?P<database>[^?]*))?(?:\?(?P<query>.*))?$"
)
_HOST_PORT = re.compile(r"^(?P<host>\[[^\]]*\]|[^:]*)(?::(?P<port>[^:]*))?$")
# Strict: a plain host name or bracketed IPv6, a port of up to 5 digits, a plain database name. Anything else
# after the host (MySQL's `address=(host=…)` form, `user:pw@`, `;key=value`) is where a driver and this check
# could disagree.
_STRICT_HOST = re.compile(r"^(?:\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+)$")
_STRICT_PORT = re.compile(r"^\d{1,5}$")
_STRICT_DATABASE = re.compile(r"^[A-Za-z0-9_$-]*$")


class JdbcUrlError(ValueError):
    """The text is not a JDBC URL this platform understands (the message names the expected form, not the URL)."""


@dataclass(frozen=True)
class JdbcUrl:
    """A parsed JDBC URL; `host` has no IPv6 brackets, `port` is the product's default when absent."""

    product: str  # postgresql | mysql (MariaDB too)
    scheme: str  # as written: postgresql | mysql | mariadb
    host: str
    port: int
    explicit_port: bool
    database: str
    query: str
    host_port: str  # `host[:port]` as written (IPv6 in brackets)

    def parameters(self) -> dict[str, str]:
        """Query parameters by name as written (a flag without `=` maps to "")."""
        params = dict(parse_qsl(self.query, keep_blank_values=True))
        params.update({p: "" for p in self.query.split("&") if p and "=" not in p})
        return params


def product_of(scheme: str) -> str:
    """The product a URL scheme belongs to."""
    return "postgresql" if scheme == "postgresql" else "mysql"


def parse_jdbc_url(url: str, *, product: str | None = None, strict: bool = False) -> JdbcUrl:
    """Parse `url`; with `product`, its scheme must be that product's; `strict` also checks host, port and database.

    Raises JdbcUrlError.
    """
    scheme_hint = "jdbc:postgresql://" if product == "postgresql" else "jdbc:mysql://" if product else "jdbc:postgresql:// or jdbc:mysql://"
    match = _URL.match(url)
    if match is None or (product is not None and match.group("scheme") not in _SCHEMES.get(product, ())):
        raise JdbcUrlError(f"base-url must start with {scheme_hint}host[:port]/" + (f" for type '{product}'." if product else "."))
    hp = _HOST_PORT.match(match.group("hostport"))
    host, port = (hp.group("host"), hp.group("port")) if hp else (match.group("hostport"), None)
    database = match.group("database") or ""
    kind = product_of(match.group("scheme"))
    if strict:
        if not _STRICT_HOST.match(host or "-") or not host or (port is not None and not _STRICT_PORT.match(port)) \
                or not _STRICT_DATABASE.match(database):
            raise JdbcUrlError(f"base-url must start with {scheme_hint}host[:port]/ for type '{kind}'.")
        if port is not None and not 0 < int(port) < 65536:
            raise JdbcUrlError("base-url has an invalid port.")
    explicit = port is not None and port.isdigit()
    return JdbcUrl(product=kind, scheme=match.group("scheme"), host=host.strip("[]"),
                   port=int(port) if explicit and port is not None else DEFAULT_PORTS[kind], explicit_port=explicit,
                   database=database, query=match.group("query") or "", host_port=match.group("hostport"))
