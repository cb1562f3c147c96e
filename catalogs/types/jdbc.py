"""`jdbc` catalogs: PostgreSQL through psycopg, MySQL/MariaDB through PyMySQL.

Browsing reads the system catalogs with one parameterised query per level (no query per table), so a
schema of thousands of tables lists in one round trip. Names from URLs only ever travel as bind parameters.
"""

from __future__ import annotations

import math
import ssl
from collections.abc import Callable
from typing import Any, ClassVar
from urllib.parse import parse_qsl

import psycopg
import pymysql

from catalogs.types.base import Column, ConnectionResult, DefinedCatalogType, MetadataError, TableDetail, TableSummary
from catalogs.types.calls import T, browse, check_connection
from lakeport_engine.catalog_types.base import CatalogTypeDefinition
from lakeport_engine.catalog_types.jdbc import DEFINITION, JdbcConfig

# ---- PostgreSQL ------------------------------------------------------------------------------------------
# Schemas that belong to the server, not to users.
_PG_SYSTEM_SCHEMAS = "n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname !~ '^pg_(toast|temp_)'"
_PG_KINDS = {"r": "table", "p": "table", "v": "view", "m": "materialized_view", "f": "foreign_table"}

_PG_DATABASES = f"SELECT n.nspname FROM pg_namespace n WHERE {_PG_SYSTEM_SCHEMAS} ORDER BY n.nspname"

# LEFT JOIN from the schema so "schema missing" (no row) and "schema empty" (one row of NULLs) differ.
_PG_TABLES = f"""
SELECT c.relname, c.relkind, c.relispartition
FROM pg_namespace n
LEFT JOIN pg_class c ON c.relnamespace = n.oid AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
WHERE n.nspname = %(schema)s AND {_PG_SYSTEM_SCHEMAS}
ORDER BY c.relname
"""

_PG_DESCRIBE = f"""
SELECT c.relname, c.relkind, a.attnum, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
       col_description(c.oid, a.attnum), pt.partattrs::int2[], obj_description(c.oid, 'pg_class')
FROM pg_namespace n
LEFT JOIN pg_class c ON c.relnamespace = n.oid AND c.relname = %(table)s AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
LEFT JOIN pg_partitioned_table pt ON pt.partrelid = c.oid
WHERE n.nspname = %(schema)s AND {_PG_SYSTEM_SCHEMAS}
ORDER BY a.attnum
"""

# ---- MySQL / MariaDB -------------------------------------------------------------------------------------
_MY_SYSTEM_SCHEMAS = ("information_schema", "mysql", "performance_schema", "sys")
_MY_KINDS = {"BASE TABLE": "table", "VIEW": "view", "SYSTEM VERSIONED": "table", "SEQUENCE": "sequence"}

_MY_DATABASES = (
    "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA "
    "WHERE SCHEMA_NAME NOT IN (%s, %s, %s, %s) ORDER BY SCHEMA_NAME"
)
_MY_TABLES = (
    "SELECT t.TABLE_NAME, t.TABLE_TYPE FROM information_schema.SCHEMATA s "
    "LEFT JOIN information_schema.TABLES t ON t.TABLE_SCHEMA = s.SCHEMA_NAME "
    "WHERE s.SCHEMA_NAME = %s AND s.SCHEMA_NAME NOT IN (%s, %s, %s, %s) ORDER BY t.TABLE_NAME"
)
_MY_DESCRIBE = (
    "SELECT t.TABLE_NAME, t.TABLE_TYPE, c.COLUMN_NAME, c.COLUMN_TYPE, c.IS_NULLABLE, c.COLUMN_COMMENT, "
    "t.TABLE_COMMENT, t.ENGINE "
    "FROM information_schema.SCHEMATA s "
    "LEFT JOIN information_schema.TABLES t ON t.TABLE_SCHEMA = s.SCHEMA_NAME AND t.TABLE_NAME = %s "
    "LEFT JOIN information_schema.COLUMNS c ON c.TABLE_SCHEMA = t.TABLE_SCHEMA AND c.TABLE_NAME = t.TABLE_NAME "
    "WHERE s.SCHEMA_NAME = %s AND s.SCHEMA_NAME NOT IN (%s, %s, %s, %s) ORDER BY c.ORDINAL_POSITION"
)


def jdbc_parameters(config: JdbcConfig) -> dict[str, str]:
    """JDBC parameters from the base-url query and `properties`, keys lower-cased (properties win)."""
    params = {k.lower(): v for k, v in parse_qsl(config.url.query, keep_blank_values=True)}
    params.update({k.lower(): v for k, v in config.properties.items()})
    return params


class JdbcCatalogType(DefinedCatalogType):
    """PostgreSQL (databases are the schemas of `default-database`) or MySQL/MariaDB (databases are databases)."""

    definition: ClassVar[CatalogTypeDefinition] = DEFINITION

    def test_connection(self, config: JdbcConfig, *, timeout: float) -> ConnectionResult:
        """Log in to `default-database` as `username` and ask the server for its version."""

        def check() -> str:
            with _connect(config, timeout) as conn:
                version = _server_version(config, conn)
            product = "PostgreSQL" if config.type == "postgresql" else "MySQL/MariaDB"
            return (
                f"connected to {product} {version} at {_target(config)} "
                f"as {config.username}, database {config.default_database}"
            )

        return check_connection(
            check, timeout=timeout, target=_target(config), explain=lambda e: _explain(config, e),
            secrets=[config.password.get_secret_value()],
        )

    def list_databases(self, config: JdbcConfig, *, timeout: float) -> list[str]:
        """PostgreSQL: user schemas of `default-database`; MySQL: databases other than the system ones."""

        def run() -> list[str]:
            with _connect(config, timeout) as conn:
                if config.type == "postgresql":
                    rows = conn.execute(_PG_DATABASES).fetchall()
                else:
                    rows = _my_query(conn, _MY_DATABASES, _MY_SYSTEM_SCHEMAS)
            return [r[0] for r in rows]

        return self._browse(config, run, timeout)

    def list_tables(self, config: JdbcConfig, database: str, *, timeout: float) -> list[TableSummary]:
        """Tables and views of one schema/database, with their kind; an unknown one raises 404."""

        def run() -> list[TableSummary]:
            with _connect(config, timeout) as conn:
                if config.type == "postgresql":
                    rows = conn.execute(_PG_TABLES, {"schema": database}).fetchall()
                    if not rows:
                        raise _no_database(config, database)
                    return [
                        TableSummary(name=name, kind="partition" if is_partition else _PG_KINDS[kind])
                        for name, kind, is_partition in rows if name is not None
                    ]
                rows = _my_query(conn, _MY_TABLES, (database, *_MY_SYSTEM_SCHEMAS))
                if not rows:
                    raise _no_database(config, database)
                return [
                    TableSummary(name=name, kind=_MY_KINDS.get(kind, kind.lower().replace(" ", "_")))
                    for name, kind in rows if name is not None
                ]

        return self._browse(config, run, timeout)

    def describe_table(self, config: JdbcConfig, database: str, table: str, *, timeout: float) -> TableDetail:
        """Columns (type as the server spells it, nullability, comment) and PostgreSQL partition key columns."""

        def run() -> TableDetail:
            with _connect(config, timeout) as conn:
                if config.type == "postgresql":
                    return _pg_describe(config, conn, database, table)
                return _my_describe(config, conn, database, table)

        return self._browse(config, run, timeout)

    def _browse(self, config: JdbcConfig, run: Callable[[], T], timeout: float) -> T:
        return browse(run, timeout=timeout, target=_target(config), explain=lambda e: _explain(config, e),
                      secrets=[config.password.get_secret_value()])


# ---- connections -----------------------------------------------------------------------------------------
def _target(config: JdbcConfig) -> str:
    return f"{config.host}:{config.port}"


def _connect(config: JdbcConfig, timeout: float) -> Any:
    """A new connection with connect and statement/read timeouts of `timeout` seconds, TLS as the URL asks."""
    if config.type == "postgresql":
        return psycopg.connect(
            host=config.host,
            port=config.port,
            dbname=config.default_database,
            user=config.username,
            password=config.password.get_secret_value(),
            # libpq takes whole seconds and treats anything under 2 as 2.
            connect_timeout=max(2, math.ceil(timeout)),
            options=f"-c statement_timeout={int(timeout * 1000)}",
            application_name="lakeport-browse",
            autocommit=True,
            **_pg_tls(jdbc_parameters(config)),
        )
    return pymysql.connect(
        host=config.host,
        port=config.port,
        user=config.username,
        password=config.password.get_secret_value(),
        database=config.default_database,
        connect_timeout=timeout,
        read_timeout=timeout,
        write_timeout=timeout,
        charset="utf8mb4",
        autocommit=True,
        local_infile=False,
        **_mysql_tls(jdbc_parameters(config)),
    )


def _pg_tls(params: dict[str, str]) -> dict[str, Any]:  # Any: psycopg.connect takes them as **kwargs
    """libpq TLS options from pgjdbc's `sslmode` / `ssl` (pgjdbc: ssl=true means verify-full)."""
    mode = params.get("sslmode", "").lower() or ("verify-full" if params.get("ssl", "").lower() == "true" else "")
    if not mode:
        return {}
    # Certificate paths are refused in the URL (sslrootcert is on the deny-list), so verification uses system CAs.
    return {"sslmode": mode, "sslrootcert": "system"} if mode in {"verify-ca", "verify-full"} else {"sslmode": mode}


def _mysql_tls(params: dict[str, str]) -> dict[str, Any]:
    """PyMySQL TLS from Connector/J `sslMode` / `useSSL` or MariaDB's `sslMode` (disable/trust/verify-ca/verify-full)."""
    mode = params.get("sslmode", "").lower().replace("_", "-")
    if not mode and params.get("usessl", "").lower() == "true":
        mode = "required"
    if mode in {"", "preferred", "disabled", "disable"}:
        return {"ssl_disabled": True} if mode.startswith("disable") else {}
    context = ssl.create_default_context()
    if mode in {"required", "trust"}:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    elif mode == "verify-ca":
        context.check_hostname = False
    return {"ssl": context}


def _server_version(config: JdbcConfig, conn: Any) -> str:
    if config.type == "postgresql":
        return str(conn.execute("SHOW server_version").fetchone()[0]).split()[0]
    return str(_my_query(conn, "SELECT VERSION()", ())[0][0])


def _my_query(conn: Any, sql: str, args: tuple[str, ...]) -> list[tuple[Any, ...]]:
    with conn.cursor() as cur:
        cur.execute(sql, args)
        return list(cur.fetchall())


def _no_database(config: JdbcConfig, database: str) -> MetadataError:
    if config.type == "postgresql":
        return MetadataError(f"schema '{database}' does not exist in database '{config.default_database}'", status=404)
    return MetadataError(f"database '{database}' does not exist", status=404)


# ---- describe --------------------------------------------------------------------------------------------
def _pg_describe(config: JdbcConfig, conn: Any, schema: str, table: str) -> TableDetail:
    rows = conn.execute(_PG_DESCRIBE, {"schema": schema, "table": table}).fetchall()
    if not rows:
        raise _no_database(config, schema)
    if rows[0][0] is None:
        raise MetadataError(f"table '{schema}.{table}' does not exist", status=404)
    names_by_number: dict[int, str] = {}
    columns: list[Column] = []
    for _, _, attnum, name, type_, notnull, comment, _, _ in rows:
        if attnum is None:
            continue  # a table with no columns is legal in PostgreSQL
        names_by_number[attnum] = name
        columns.append(Column(name=name, type=type_, nullable=not notnull, comment=comment))
    relkind, partattrs, table_comment = rows[0][1], rows[0][7], rows[0][8]
    # Expression partition keys have attnum 0 and no column name; they are left out.
    partitions = [names_by_number[n] for n in (partattrs or []) if n in names_by_number]
    properties = {"comment": table_comment} if table_comment else {}
    if relkind == "p":
        properties["partitioned"] = "true"
    return TableDetail(database=schema, name=table, columns=columns, partition_columns=partitions,
                       kind=_PG_KINDS[relkind], properties=properties)


def _my_describe(config: JdbcConfig, conn: Any, database: str, table: str) -> TableDetail:
    rows = _my_query(conn, _MY_DESCRIBE, (table, database, *_MY_SYSTEM_SCHEMAS))
    if not rows:
        raise _no_database(config, database)
    if rows[0][0] is None:
        raise MetadataError(f"table '{database}.{table}' does not exist", status=404)
    columns = [
        Column(name=name, type=type_, nullable=nullable == "YES", comment=comment or None)
        for _, _, name, type_, nullable, comment, _, _ in rows if name is not None
    ]
    kind, table_comment, engine = rows[0][1], rows[0][6], rows[0][7]
    properties = {k: v for k, v in (("comment", table_comment), ("engine", engine)) if v}
    return TableDetail(database=database, name=table, columns=columns,
                       kind=_MY_KINDS.get(kind, kind.lower().replace(" ", "_")), properties=properties)


# ---- messages --------------------------------------------------------------------------------------------
def _explain(config: JdbcConfig, exc: BaseException) -> str:
    """What failed, in words a catalog admin can act on; built from our config, not from the raw error."""
    target = _target(config)
    text = str(exc)
    low = text.lower()
    if isinstance(exc, psycopg.errors.QueryCanceled) or "statement timeout" in low:
        return f"timed out: the query on {target} exceeded the statement timeout"
    if isinstance(exc, psycopg.errors.ConnectionTimeout) or "timeout expired" in low or "timed out" in low:
        return f"timed out connecting to {target}"
    if "connection refused" in low:
        return f"connection refused at {target}"
    if "password authentication failed" in low or "access denied for user" in low or "authentication failed" in low:
        return f"authentication failed for user {config.username}"
    if "role" in low and "does not exist" in low:
        return f"authentication failed for user {config.username}: the role does not exist"
    if ("database" in low and "does not exist" in low) or "unknown database" in low:
        return f"database {config.default_database} does not exist"
    if "ssl" in low and ("not support" in low or "required" in low):
        return f"TLS was required but the server at {target} does not offer it"
    if "certificate" in low or "ssl" in low:
        return f"TLS handshake with {target} failed: {_first_line(text)}"
    if "resolve host" in low or "name or service not known" in low or "translate host name" in low:
        return f"host {config.host} could not be resolved"
    if "no route to host" in low or "network is unreachable" in low:
        return f"no route to {target}"
    if "permission denied" in low:
        return f"permission denied for user {config.username}: {_first_line(text)}"
    product = "PostgreSQL" if config.type == "postgresql" else "MySQL/MariaDB"
    return f"{product} at {target} failed: {_first_line(text)}"


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else "unknown error"
    return line.removeprefix("connection failed: ")
