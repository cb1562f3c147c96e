"""Tables of a jdbc catalog (PostgreSQL, MariaDB/MySQL) as streaming sinks, exactly once.

Each micro-batch is one database transaction: the rows go into a temporary staging table (COPY on PostgreSQL,
a multi-row INSERT on MariaDB), one set-based statement upserts them into the table on its primary key (or
inserts them into a table without one, append mode only), and the batch id is recorded in the bookkeeping table
`lakeport_stream_batches` next to the table. A batch whose id is already recorded is skipped. The connection uses
the catalog's own credentials from the binding (psycopg / PyMySQL in the driver), never a command line or a log.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import psycopg
import pymysql
from psycopg import sql as pgsql
from pyspark.sql import DataFrame

from lakeport_engine.bindings import jdbc as jdbc_binding
from lakeport_engine.streaming.emit import UPDATE
from lakeport_engine.streaming.errors import StreamingSinkError, StreamingStatementError
from lakeport_engine.streaming.sinks.base import BatchSink, QueryShape
from lakeport_kernel.redaction import redact

if TYPE_CHECKING:
    from lakeport_engine.bindings.base import SinkTarget

BOOKKEEPING_TABLE = "lakeport_stream_batches"


@dataclass(frozen=True)
class JdbcTarget:
    """Where a sink table lives: server, database, namespace (PostgreSQL schema / MariaDB database) and table."""

    product: str  # postgresql | mysql
    host: str
    port: int
    database: str
    namespace: str
    table: str
    user: str
    password: str

    def __str__(self) -> str:
        return f"{self.namespace}.{self.table}"


def jdbc_target(config: Mapping[str, Any], namespace: str, table: str) -> JdbcTarget:
    """The sink table of a jdbc catalog configuration (plain secrets, from the resolver's binding)."""
    url = jdbc_binding.jdbc_url(dict(config))
    host, port = jdbc_binding.host_port(dict(config))
    database = url.split("://", 1)[1].partition("/")[2].partition("?")[0] or str(config.get("default-database") or "")
    return JdbcTarget(str(config.get("type")), host, port, database, namespace, table, str(config.get("username") or ""),
                      str(config.get("password") or ""))


class _Dialect(Protocol):
    def connect(self, target: JdbcTarget) -> Any: ...
    def columns(self, conn: Any, target: JdbcTarget) -> tuple[list[str], list[str]]: ...
    def write(self, conn: Any, target: JdbcTarget, columns: list[str], key: list[str], rows: list[tuple[Any, ...]],
              app_id: str, batch_id: int) -> bool: ...


class _Postgres:
    def connect(self, target: JdbcTarget) -> psycopg.Connection[Any]:
        return psycopg.connect(host=target.host, port=target.port, dbname=target.database, user=target.user,
                               password=target.password or None, connect_timeout=10)

    def columns(self, conn: psycopg.Connection[Any], target: JdbcTarget) -> tuple[list[str], list[str]]:
        cols = [r[0] for r in conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = %s AND table_name = %s "
            "ORDER BY ordinal_position", (target.namespace, target.table))]
        key = [r[0] for r in conn.execute(
            "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) "
            "WHERE i.indisprimary AND i.indrelid = (quote_ident(%s) || '.' || quote_ident(%s))::regclass "
            "ORDER BY array_position(i.indkey, a.attnum)", (target.namespace, target.table))] if cols else []
        return cols, key

    def write(self, conn: psycopg.Connection[Any], target: JdbcTarget, columns: list[str], key: list[str],
              rows: list[tuple[Any, ...]], app_id: str, batch_id: int) -> bool:
        table = pgsql.Identifier(target.namespace, target.table)
        books = pgsql.Identifier(target.namespace, BOOKKEEPING_TABLE)
        with conn.transaction():
            conn.execute(pgsql.SQL("CREATE TABLE IF NOT EXISTS {} (app_id text NOT NULL, target text NOT NULL, "
                                   "batch_id bigint NOT NULL, committed_at timestamptz NOT NULL DEFAULT now(), "
                                   "PRIMARY KEY (app_id, target))").format(books))
        with conn.transaction():
            done = conn.execute(pgsql.SQL("SELECT batch_id FROM {} WHERE app_id = %s AND target = %s FOR UPDATE")
                                .format(books), (app_id, target.table)).fetchone()
            if done is not None and done[0] >= batch_id:
                return False
            cols = pgsql.SQL(", ").join(pgsql.Identifier(c) for c in columns)
            conn.execute(pgsql.SQL("CREATE TEMP TABLE lakeport_stage (LIKE {} INCLUDING DEFAULTS) ON COMMIT DROP")
                         .format(table))
            with conn.cursor().copy(pgsql.SQL("COPY lakeport_stage ({}) FROM STDIN").format(cols)) as copy:
                for row in rows:
                    copy.write_row(row)
            if key:
                updates = [c for c in columns if c not in key]
                action = pgsql.SQL("DO NOTHING") if not updates else pgsql.SQL("DO UPDATE SET {}").format(
                    pgsql.SQL(", ").join(pgsql.SQL("{0} = EXCLUDED.{0}").format(pgsql.Identifier(c)) for c in updates))
                conn.execute(pgsql.SQL("INSERT INTO {} ({}) SELECT {} FROM lakeport_stage ON CONFLICT ({}) {}").format(
                    table, cols, cols, pgsql.SQL(", ").join(pgsql.Identifier(k) for k in key), action))
            else:
                conn.execute(pgsql.SQL("INSERT INTO {} ({}) SELECT {} FROM lakeport_stage").format(table, cols, cols))
            conn.execute(pgsql.SQL("INSERT INTO {} (app_id, target, batch_id) VALUES (%s, %s, %s) ON CONFLICT "
                                   "(app_id, target) DO UPDATE SET batch_id = EXCLUDED.batch_id, committed_at = now()")
                         .format(books), (app_id, target.table, batch_id))
        return True


def _q(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


class _Maria:
    def connect(self, target: JdbcTarget) -> pymysql.connections.Connection[Any]:
        return pymysql.connect(host=target.host, port=target.port, user=target.user, password=target.password,
                               database=target.namespace, connect_timeout=10, autocommit=False)

    def columns(self, conn: pymysql.connections.Connection[Any], target: JdbcTarget) -> tuple[list[str], list[str]]:
        with conn.cursor() as cur:
            cur.execute("SELECT column_name, column_key FROM information_schema.columns WHERE table_schema = %s "
                        "AND table_name = %s ORDER BY ordinal_position", (target.namespace, target.table))
            found = cur.fetchall()
            cur.execute("SELECT column_name FROM information_schema.key_column_usage WHERE table_schema = %s AND "
                        "table_name = %s AND constraint_name = 'PRIMARY' ORDER BY ordinal_position",
                        (target.namespace, target.table))
            key = [r[0] for r in cur.fetchall()]
        conn.commit()
        return [r[0] for r in found], key

    def write(self, conn: pymysql.connections.Connection[Any], target: JdbcTarget, columns: list[str], key: list[str],
              rows: list[tuple[Any, ...]], app_id: str, batch_id: int) -> bool:
        table = f"{_q(target.namespace)}.{_q(target.table)}"
        books = f"{_q(target.namespace)}.{_q(BOOKKEEPING_TABLE)}"
        cols = ", ".join(_q(c) for c in columns)
        with conn.cursor() as cur:
            cur.execute(f"CREATE TABLE IF NOT EXISTS {books} (app_id VARCHAR(100) NOT NULL, target VARCHAR(255) NOT "
                        "NULL, batch_id BIGINT NOT NULL, committed_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, "
                        "PRIMARY KEY (app_id, target)) ENGINE=InnoDB")
            conn.commit()
            try:
                cur.execute(f"SELECT batch_id FROM {books} WHERE app_id = %s AND target = %s FOR UPDATE",
                            (app_id, target.table))
                done = cur.fetchone()
                if done is not None and done[0] >= batch_id:
                    conn.rollback()
                    return False
                # a TEMPORARY table does not end the transaction (an ordinary CREATE TABLE would commit it)
                cur.execute(f"CREATE TEMPORARY TABLE lakeport_stage LIKE {table}")
                if rows:
                    cur.executemany(f"INSERT INTO lakeport_stage ({cols}) VALUES ({', '.join(['%s'] * len(columns))})",
                                    rows)
                if key:
                    updates = [c for c in columns if c not in key] or key
                    cur.execute(f"INSERT INTO {table} ({cols}) SELECT {cols} FROM lakeport_stage ON DUPLICATE KEY "
                                "UPDATE " + ", ".join(f"{_q(c)} = VALUES({_q(c)})" for c in updates))
                else:
                    cur.execute(f"INSERT INTO {table} ({cols}) SELECT {cols} FROM lakeport_stage")
                cur.execute(f"INSERT INTO {books} (app_id, target, batch_id) VALUES (%s, %s, %s) ON DUPLICATE KEY "
                            "UPDATE batch_id = VALUES(batch_id), committed_at = CURRENT_TIMESTAMP",
                            (app_id, target.table, batch_id))
                conn.commit()
            except BaseException:
                conn.rollback()
                raise
            finally:
                cur.execute("DROP TEMPORARY TABLE IF EXISTS lakeport_stage")
        return True


_DIALECTS: dict[str, _Dialect] = {"postgresql": _Postgres(), "mysql": _Maria()}


def jdbc_sink(target: SinkTarget) -> JdbcSink:
    """The jdbc binding's sink factory."""
    return JdbcSink(target.catalog, target.config, target.database, target.table, target.columns)


class JdbcSink(BatchSink):
    """Upsert each micro-batch into a PostgreSQL or MariaDB table on its primary key, in one transaction."""

    kind = "jdbc"

    def __init__(self, catalog_name: str, config: Mapping[str, Any], namespace: str, table: str,
                 columns: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.jdbc = jdbc_target(config, namespace, table)
        self.target = f"{catalog_name}.{namespace}.{table}"
        dialect = _DIALECTS.get(self.jdbc.product)
        if dialect is None:
            raise StreamingSinkError(f"Sink {self.target}: jdbc type '{self.jdbc.product}' cannot be a streaming sink.")
        self.dialect: _Dialect = dialect
        with self._connection() as conn:
            table_columns, self.key = self.dialect.columns(conn, self.jdbc)
        if not table_columns:
            raise StreamingSinkError(f"Sink table {self.target} does not exist: create it before the streaming INSERT "
                                     "(with a PRIMARY KEY for EMIT STREAM/CHANGES).")
        self.columns = list(columns) or table_columns

    @contextmanager
    def _connection(self) -> Iterator[Any]:
        try:
            conn = self.dialect.connect(self.jdbc)
        except (psycopg.Error, pymysql.MySQLError) as exc:
            raise StreamingSinkError(redact(f"Sink {self.target} ({self.jdbc.host}:{self.jdbc.port}) is unreachable: "
                                            f"{exc}")) from None
        try:
            yield conn
        finally:
            conn.close()

    def check(self, mode: str, shape: QueryShape) -> None:
        if len(shape.columns) != len(self.columns):
            raise StreamingSinkError(
                f"The query has {len(shape.columns)} column(s) ({', '.join(shape.columns)}) but table {self.target} "
                f"takes {len(self.columns)} ({', '.join(self.columns)}); columns match by position."
            )
        if mode == UPDATE and shape.aggregates and not self.key:
            wanted = [self.columns[shape.columns.index(k)] for k in shape.key if k in shape.columns]
            raise StreamingStatementError(
                f"EMIT STREAM/CHANGES updates rows of {self.target}, which has no primary key: add PRIMARY KEY "
                f"({', '.join(wanted) or 'the GROUP BY columns'}) to the table, or use EMIT AFTER WATERMARK to "
                "append each window once."
            )

    def write(self, frame: DataFrame, batch_id: int, app_id: str) -> int:
        rows = [tuple(r) for r in frame.collect()]
        if not rows:
            return 0  # nothing to record: replaying an empty batch writes nothing either
        with self._connection() as conn:
            try:
                written = self.dialect.write(conn, self.jdbc, self.columns, self.key, rows, app_id, batch_id)
            except (psycopg.Error, pymysql.MySQLError) as exc:
                raise StreamingSinkError(redact(f"Batch {batch_id} into {self.target} failed: {exc}")) from None
        return len(rows) if written else 0
