"""jdbc catalogs → Spark's built-in `JDBCTableCatalog`, registered at run time under the catalog's name.

The password must never enter the session's SQL conf (`spark.conf.getAll`, SQL execution events, the UI):
the runtime creates and initializes the catalog instance itself and puts it into the session's
CatalogManager; the conf only shows the class, URL, user and driver. Spark caches one instance per name, so
a changed catalog is re-registered by replacing that instance.
"""

from __future__ import annotations

import json
import os
import socket
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import parse_qsl

from lakeport_engine.bindings.base import BindContext, Binding, BindingFailure, PlainBinding
from lakeport_engine.catalog_types import jdbc
from lakeport_engine.catalog_types.base import CatalogTypeDefinition
from lakeport_engine.datasets import CatalogInfo, Dataset, jdbc_dataset
from lakeport_engine.jdbc_url import JdbcUrl, JdbcUrlError, parse_jdbc_url

if TYPE_CHECKING:
    from lakeport_engine.store import CatalogEntry

JDBC_CATALOG_CLASS = "org.apache.spark.sql.execution.datasources.v2.jdbc.JDBCTableCatalog"
# Spark's JDBC catalog with a query's table options cut down to an allow-list (platform/jvm; issue 28): a query's
# `WITH ('url' = …, 'sessionInitStatement' = …)` or writer options never reach the connection. The SQL guard
# refuses such options first; without the platform jar (no JDK compiler) the guard is the only layer.
GUARDED_JDBC_CATALOG_CLASS = "io.lakeport.spark.GuardedJdbcTableCatalog"
# What the allow-list keeps (a copy of GuardedJdbcTableCatalog.ALLOWED_OPTIONS, for docs and tests); never `url`,
# `user`, `password`, `driver`, `dbtable`, `query`, `sessionInitStatement`, `prepareQuery` or `customSchema`.
QUERY_OPTION_ALLOWLIST = frozenset({
    "fetchsize", "batchsize", "querytimeout", "isolationlevel", "pushdownpredicate", "pushdownaggregate",
    "pushdownlimit", "pushdownoffset", "pushdowntablesample", "pushdownjoin",
})
DRIVERS = {
    "postgresql": "org.postgresql.Driver",
    # MariaDB Connector/J with jdbc:mysql:// + permitMysqlScheme, so that Spark picks its MySQL dialect
    "mysql": os.environ.get("LAKEPORT_JDBC_MYSQL_DRIVER", "org.mariadb.jdbc.Driver"),
}


class JdbcConfigError(BindingFailure, ValueError):
    """The stored configuration is not a usable jdbc configuration."""


class JdbcUnreachableError(BindingFailure, RuntimeError):
    """The catalog's server does not answer within the connect timeout."""


def jdbc_url(config: dict[str, Any]) -> str:
    """The JDBC URL Spark connects to: base-url with the default database, MySQL as jdbc:mysql + permitMysqlScheme."""
    kind = config.get("type")
    url = _parsed(config)
    if kind not in DRIVERS or url is None:
        raise JdbcConfigError("jdbc catalog needs type postgresql|mysql and a jdbc:postgresql:// or jdbc:mysql:// base-url.")
    database = url.database or str(config.get("default-database", ""))
    query = url.query
    if kind == "mysql":
        params = [p for p in query.split("&") if p]
        if not any(p.split("=")[0].lower() == "permitmysqlscheme" for p in params):
            params.insert(0, "permitMysqlScheme")
        query = "&".join(params)
        return f"jdbc:mysql://{url.host_port}/{database}" + (f"?{query}" if query else "")
    return f"jdbc:postgresql://{url.host_port}/{database}" + (f"?{query}" if query else "")


def _parsed(config: dict[str, Any]) -> JdbcUrl | None:
    """base-url parsed loosely (a file store's URL was never validated by the API), None if it is no JDBC URL."""
    try:
        return parse_jdbc_url(str(config.get("base-url", "")))
    except JdbcUrlError:
        return None


def host_port(config: dict[str, Any]) -> tuple[str, int]:
    """Host and port of the server (for naming it in errors and probing it)."""
    url = _parsed(config)
    if url is None:
        return "", 0
    default = 5432 if config.get("type") == "postgresql" else 3306
    return url.host, url.port if url.explicit_port else default


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
        "password": str(config.get("password", "")),
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
    """Bind `name` to a JDBCTableCatalog in `spark`; returns the conf keys set (none of them holds the password).

    The catalog is instantiated and initialized here and placed in the session's CatalogManager, so its
    password never enters the SQL conf. The conf still shows the class, URL, user and driver of every
    registered catalog. Re-registering replaces the cached instance (Spark would keep the old one otherwise).
    """
    options = catalog_options(config, connect_timeout=connect_timeout)
    if config.get("type") == "mysql":
        probe_mysql(*host_port(config), timeout=connect_timeout)
    jvm = _jvm_helpers(spark)
    java_options = jvm.mapper.readValue(json.dumps(options), jvm.map_class)  # one round trip for all options
    instance = jvm.catalog_class.newInstance()
    instance.initialize(name, jvm.options_class(java_options))
    _catalog_map(spark).put(name, instance)
    conf = spark.conf
    for key in previous_keys or []:
        conf.unset(key)
    prefix = f"spark.sql.catalog.{name}"
    visible = {prefix: jvm.catalog_name} | {f"{prefix}.{k}": options[k] for k in ("url", "user", "driver")}
    for key, value in visible.items():
        conf.set(key, value)
    return list(visible)


def unregister(spark: Any, name: str, keys: list[str]) -> None:
    """Remove a binding: its confs and its instance."""
    for key in keys:
        spark.conf.unset(key)
    _catalog_map(spark).remove(name)


def _jvm_helpers(spark: Any) -> SimpleNamespace:
    """JVM classes and a JSON mapper, looked up once per SparkContext (each py4j lookup is a round trip)."""
    sc = spark.sparkContext
    helpers = getattr(sc, "_lakeport_jdbc_jvm", None)
    if helpers is None:
        jvm = sc._jvm
        catalog_class = _catalog_class(jvm)
        helpers = SimpleNamespace(
            mapper=jvm.com.fasterxml.jackson.databind.ObjectMapper(),
            map_class=jvm.java.lang.Class.forName("java.util.HashMap"),
            catalog_class=catalog_class,
            catalog_name=str(catalog_class.getName()),
            options_class=jvm.org.apache.spark.sql.util.CaseInsensitiveStringMap,
        )
        sc._lakeport_jdbc_jvm = helpers
    return helpers


def _catalog_class(jvm: Any) -> Any:
    """The guarded JDBC catalog class from the platform jar (on `spark.jars`), else Spark's own."""
    try:
        return jvm.org.apache.spark.util.Utils.classForName(GUARDED_JDBC_CATALOG_CLASS, True, False)
    except Exception:  # noqa: BLE001 - py4j wraps ClassNotFoundException: no platform jar on this driver
        return jvm.org.apache.spark.util.Utils.classForName(JDBC_CATALOG_CLASS, True, False)


def _catalog_map(spark: Any) -> Any:
    """The session CatalogManager's private name → instance map (reflection: Spark has no public setter).

    Cached on the session object: the map lives as long as the session state.
    """
    cached = getattr(spark, "_lakeport_catalog_map", None)
    if cached is not None:
        return cached
    manager = spark._jsparkSession.sessionState().catalogManager()
    cls = manager.getClass()
    while cls is not None:
        try:
            field = cls.getDeclaredField("catalogs")
        except Exception:  # noqa: BLE001 - py4j raises a generic error for NoSuchFieldException
            cls = cls.getSuperclass()
            continue
        field.setAccessible(True)
        spark._lakeport_catalog_map = field.get(manager)
        return spark._lakeport_catalog_map
    raise JdbcConfigError(f"This Spark version's CatalogManager ({manager.getClass().getName()}) cannot take "
                          "run-time JDBC catalogs.")


class JdbcBinding(PlainBinding):
    """jdbc catalogs: a JDBCTableCatalog instance under the catalog's own name."""

    definition: ClassVar[CatalogTypeDefinition] = jdbc.DEFINITION
    key: ClassVar[str] = jdbc.DEFINITION.key
    display_name: ClassVar[str] = "JDBC"
    sink: ClassVar[str | None] = "lakeport_engine.streaming.sinks.jdbc:jdbc_sink"  # staging + one upsert

    def bind(self, ctx: BindContext, entry: CatalogEntry, old: Binding | None) -> Binding:
        """Register (or replace) the catalog's JDBCTableCatalog; an unreachable server is named by host:port."""
        try:
            keys = register(ctx.spark, entry.name, entry.configuration, connect_timeout=ctx.connect_timeout,
                            previous_keys=old.keys if old else None)
        except JdbcUnreachableError as exc:
            host, port = host_port(entry.configuration)
            raise BindingFailure(f"Catalog '{entry.name}' ({host}:{port}) is unreachable: {exc}.") from None
        return Binding(entry.name, self.key, entry.fingerprint, entry.version, entry.name, entry.configuration, keys)

    def unbind(self, ctx: BindContext, binding: Binding) -> None:
        """Remove the catalog's confs and instance."""
        unregister(ctx.spark, binding.name, binding.keys)

    def summary(self, binding: Binding) -> str:
        """`jdbc <product> at host:port`."""
        host, port = host_port(binding.configuration)
        return f"jdbc {binding.configuration.get('type')} at {host}:{port}"

    def endpoint(self, config: dict[str, Any]) -> tuple[str, int] | None:
        """The database server."""
        return host_port(config)

    def lineage_dataset(self, binding: Binding, database: str, table: str) -> Dataset | None:
        """PostgreSQL `database.schema.table`, MySQL `database.table` on `scheme://host:port`."""
        return jdbc_dataset(self.lineage_catalog(binding), [database], table)

    def lineage_catalog(self, binding: Binding) -> CatalogInfo:
        """The product, the base-url's lower-case host and port (the one JDBC URL parser) and the default database."""
        config = binding.configuration
        host, port = host_port(config)
        return CatalogInfo(binding.name, self.key, str(config.get("type") or "postgresql"), host.lower(), port,
                           str(config.get("default-database") or ""))
