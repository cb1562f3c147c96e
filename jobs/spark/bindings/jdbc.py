"""jdbc catalogs → Spark's built-in `JDBCTableCatalog`, registered at run time under the catalog's name.

The password must not stay in the session's SQL conf (`spark.conf.getAll`, SQL execution events): the
catalog is instantiated right after its confs are set, and the password key is removed again — the
catalog instance keeps its options. A changed catalog is evicted from Spark's CatalogManager cache so the
next lookup builds a new instance from the new confs.
"""

from __future__ import annotations

import os
import re
import socket
from typing import Any
from urllib.parse import parse_qsl

JDBC_CATALOG_CLASS = "org.apache.spark.sql.execution.datasources.v2.jdbc.JDBCTableCatalog"
DRIVERS = {
    "postgresql": "org.postgresql.Driver",
    # MariaDB Connector/J with jdbc:mysql:// + permitMysqlScheme, so that Spark picks its MySQL dialect
    "mysql": os.environ.get("LAKEPORT_JDBC_MYSQL_DRIVER", "org.mariadb.jdbc.Driver"),
}
_URL = re.compile(r"^jdbc:(?P<scheme>postgresql|mysql|mariadb)://(?P<hostport>[^/?]+)/?(?P<db>[^?]*)(?:\?(?P<query>.*))?$")
_PASSWORD_KEY = "password"


class JdbcConfigError(ValueError):
    """The stored configuration is not a usable jdbc configuration."""


class JdbcUnreachableError(RuntimeError):
    """The catalog's server does not answer within the connect timeout."""


def jdbc_url(config: dict[str, Any]) -> str:
    """The JDBC URL Spark connects to: base-url with the default database, MySQL as jdbc:mysql + permitMysqlScheme."""
    kind = config.get("type")
    base = str(config.get("base-url", ""))
    match = _URL.match(base)
    if kind not in DRIVERS or match is None:
        raise JdbcConfigError("jdbc catalog needs type postgresql|mysql and a jdbc:postgresql:// or jdbc:mysql:// base-url.")
    database = match.group("db") or str(config.get("default-database", ""))
    query = match.group("query") or ""
    if kind == "mysql":
        params = [p for p in query.split("&") if p]
        if not any(p.split("=")[0].lower() == "permitmysqlscheme" for p in params):
            params.insert(0, "permitMysqlScheme")
        query = "&".join(params)
        return f"jdbc:mysql://{match.group('hostport')}/{database}" + (f"?{query}" if query else "")
    return f"jdbc:postgresql://{match.group('hostport')}/{database}" + (f"?{query}" if query else "")


def host_port(config: dict[str, Any]) -> tuple[str, int]:
    """Host and port of the server (for naming it in errors and probing it)."""
    match = _URL.match(str(config.get("base-url", "")))
    if match is None:
        return "", 0
    hp = re.match(r"^(?P<host>\[[^\]]+\]|[^:]+)(?::(?P<port>\d+))?$", match.group("hostport"))
    default = 5432 if config.get("type") == "postgresql" else 3306
    if hp is None:
        return match.group("hostport"), default
    return hp.group("host").strip("[]"), int(hp.group("port") or default)


def timeout_options(kind: str, connect_timeout: float) -> dict[str, str]:
    """Driver options that bound how long connecting (and logging in) may take."""
    seconds = max(1, int(round(connect_timeout)))
    if kind == "postgresql":
        return {"connectTimeout": str(seconds), "loginTimeout": str(seconds)}
    return {"connectTimeout": str(seconds * 1000)}  # MariaDB/MySQL Connector/J: milliseconds


def catalog_options(config: dict[str, Any], *, connect_timeout: float = 10.0) -> dict[str, str]:
    """All options of the JDBCTableCatalog (conf keys below `spark.sql.catalog.<name>.`), password included."""
    kind = str(config.get("type"))
    url = jdbc_url(config)
    query = url.partition("?")[2]
    in_url = {k.lower() for k, _ in parse_qsl(query, keep_blank_values=True)} | {
        p.lower() for p in query.split("&") if p and "=" not in p
    }
    options = {k: v for k, v in timeout_options(kind, connect_timeout).items() if k.lower() not in in_url}
    options.update({str(k): str(v) for k, v in (config.get("properties") or {}).items()})
    options.update({
        "url": url,
        "driver": DRIVERS[kind],
        "user": str(config.get("username", "")),
        _PASSWORD_KEY: str(config.get("password", "")),
    })
    return options


def probe_mysql(host: str, port: int, timeout: float) -> None:
    """Raise JdbcUnreachableError unless a MySQL/MariaDB server greets within `timeout` seconds.

    MariaDB Connector/J 2.x applies connectTimeout to the TCP connect only; a server that accepts and never
    sends its handshake would block the driver (and the statement) forever. The server speaks first, so
    reading its greeting bounds that wait without logging in.
    """
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.settimeout(timeout)
            if not sock.recv(1):
                raise JdbcUnreachableError(f"{host}:{port} closed the connection before its handshake")
    except TimeoutError:
        raise JdbcUnreachableError(f"{host}:{port} sent no MySQL handshake within {timeout:g} s") from None
    except OSError as exc:
        raise JdbcUnreachableError(f"{host}:{port} refused or dropped the connection ({exc.strerror or exc})") from None


def register(spark: Any, name: str, config: dict[str, Any], *, connect_timeout: float,
             previous_keys: list[str] | None = None) -> list[str]:
    """Bind `name` to a JDBCTableCatalog in `spark`; returns the conf keys set (without the password)."""
    options = catalog_options(config, connect_timeout=connect_timeout)
    if config.get("type") == "mysql":
        probe_mysql(*host_port(config), timeout=connect_timeout)
    prefix = f"spark.sql.catalog.{name}"
    conf = spark.conf
    for key in previous_keys or []:
        conf.unset(key)
    evict(spark, name)
    conf.set(prefix, JDBC_CATALOG_CLASS)
    keys = [prefix]
    try:
        for key, value in options.items():
            conf.set(f"{prefix}.{key}", value)
            if key != _PASSWORD_KEY:
                keys.append(f"{prefix}.{key}")
        # instantiate now: the instance keeps the options, so the password can leave the conf right away
        _instantiate(spark, name)
    finally:
        conf.unset(f"{prefix}.{_PASSWORD_KEY}")
    return keys


def _instantiate(spark: Any, name: str) -> None:
    """Load the catalog plugin in `spark`'s CatalogManager, with `spark` active (plugins read the active conf)."""
    holder = spark.sparkContext._jvm.org.apache.spark.sql.SparkSession
    previous = holder.getActiveSession()
    holder.setActiveSession(spark._jsparkSession)
    try:
        spark._jsparkSession.sessionState().catalogManager().catalog(name)
    finally:
        if previous.isDefined():
            holder.setActiveSession(previous.get())
        else:
            holder.clearActiveSession()


def unregister(spark: Any, name: str, keys: list[str]) -> None:
    """Remove a binding: its confs and its cached instance."""
    for key in keys:
        spark.conf.unset(key)
    evict(spark, name)


def evict(spark: Any, name: str) -> bool:
    """Drop Spark's cached catalog instance for `name` (CatalogManager caches one per name); True if one was cached."""
    manager = spark._jsparkSession.sessionState().catalogManager()
    catalogs = _catalog_map(manager)
    if catalogs is None:
        return False
    if catalogs.contains(name):
        catalogs.remove(name)
        return True
    return False


def _catalog_map(manager: Any) -> Any:
    """The CatalogManager's private name → instance map (reflection: Spark offers no per-name reset)."""
    cls = manager.getClass()
    while cls is not None:
        try:
            field = cls.getDeclaredField("catalogs")
        except Exception:  # noqa: BLE001 - py4j raises a generic error for NoSuchFieldException
            cls = cls.getSuperclass()
            continue
        field.setAccessible(True)
        return field.get(manager)
    return None
