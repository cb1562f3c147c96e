"""Fixtures of the Spark runtime tests: the issue's catalogs on real servers, and a fresh Spark session per test.

`pg_sales` is a scratch PostgreSQL database with `shop.orders`; `maria_crm` is MariaDB database `crm`
(the issue's script names it) with `customers`, read by a MariaDB user with a real password;
`warehouse_hive` is the session's Hive Metastore.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import psycopg
import pymysql
import pytest

from lakeport_engine.store import CatalogEntry, InMemoryCatalogStore
from tests.conftest import MARIADB, PgDatabase

pytestmark = pytest.mark.spark

ORDERS = [("alice", Decimal("10.50")), ("alice", Decimal("4.25")), ("bob", Decimal("7.00")), ("carol", Decimal("3.10")),
          ("mallory", Decimal("99.99"))]  # mallory is no customer: the join drops her
CUSTOMERS = [("alice", "Lisbon"), ("bob", "Porto"), ("carol", "Faro")]
PG_PASSWORD = f"pg-S3cret-{secrets.token_hex(6)}"
MARIA_USER = f"lp_c_crm_{secrets.token_hex(4)}"  # one per test session: parallel sessions share the server
MARIA_PASSWORD = f"mdb-S3cret-{secrets.token_hex(6)}"
TEAM = "acme"


@pytest.fixture
def session(spark: Any) -> Any:
    """A child session of the shared SparkSession: its own SQL conf, catalogs and current catalog (a warm run)."""
    return spark.newSession()


@pytest.fixture
def sales_db(pg_source: PgDatabase) -> PgDatabase:
    """pg_source with schema shop and the orders the issue's script sums."""
    with psycopg.connect(pg_source.dsn, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA shop")
        conn.execute("CREATE TABLE shop.orders (id serial PRIMARY KEY, customer text NOT NULL, amount numeric(10,2) NOT NULL)")
        with conn.cursor() as cur:
            cur.executemany("INSERT INTO shop.orders (customer, amount) VALUES (%s, %s)", ORDERS)
    return pg_source


@pytest.fixture(scope="session")
def crm_db() -> Iterator[str]:
    """MariaDB database `crm` with `customers`, and a user of this session that may read it (with a password).

    The database is shared by every test session on the server and only ever created and filled to the same rows
    (idempotently, never dropped): a session dropping it, or recreating one user with its own password, broke
    another session running at the same time.
    """
    conn = pymysql.connect(**MARIADB, autocommit=True)
    with conn.cursor() as cur:
        cur.execute("CREATE DATABASE IF NOT EXISTS crm")
        cur.execute("CREATE TABLE IF NOT EXISTS crm.customers (id INT AUTO_INCREMENT PRIMARY KEY, "
                    "name VARCHAR(50) NOT NULL, city VARCHAR(50) NOT NULL)")
        cur.executemany("INSERT IGNORE INTO crm.customers (id, name, city) VALUES (%s, %s, %s)",
                        [(i, name, city) for i, (name, city) in enumerate(CUSTOMERS, start=1)])
        for host in ("%", "localhost"):
            cur.execute("CREATE USER IF NOT EXISTS %s@%s IDENTIFIED BY %s", (MARIA_USER, host, MARIA_PASSWORD))
            cur.execute("GRANT SELECT ON crm.* TO %s@%s", (MARIA_USER, host))
    yield "crm"
    with conn.cursor() as cur:
        for host in ("%", "localhost"):
            cur.execute("DROP USER IF EXISTS %s@%s", (MARIA_USER, host))
    conn.close()


def pg_config(db: PgDatabase, **overrides: Any) -> dict[str, Any]:
    """A jdbc catalog configuration (API shape, plain secrets) for a PostgreSQL database."""
    return {"type": "postgresql", "base-url": f"jdbc:postgresql://{db.host}:{db.port}/", "default-database": db.name,
            "username": db.user, "password": PG_PASSWORD, **overrides}


def maria_config(**overrides: Any) -> dict[str, Any]:
    """A jdbc catalog configuration for the MariaDB crm database."""
    return {"type": "mysql", "base-url": "jdbc:mysql://127.0.0.1:3306/", "default-database": "crm",
            "username": MARIA_USER, "password": MARIA_PASSWORD, **overrides}


def hive_config(hms: Any) -> dict[str, Any]:
    """A hive catalog configuration on the test session's metastore."""
    return {"metastore-uris": hms.uri, "default-database": "default", "warehouse": str(hms.warehouse)}


@pytest.fixture
def store(sales_db: PgDatabase, crm_db: str, hive_metastore: Any) -> InMemoryCatalogStore:
    """The issue's three catalogs (and one more that no script here needs)."""
    return InMemoryCatalogStore([
        CatalogEntry("pg_sales", "jdbc", pg_config(sales_db)),
        CatalogEntry("maria_crm", "jdbc", maria_config()),
        CatalogEntry("warehouse_hive", "hive", hive_config(hive_metastore)),
        CatalogEntry("pg_unused", "jdbc", pg_config(sales_db)),
    ], team=TEAM)


def pg_rows(db: PgDatabase, sql: str) -> list[tuple[Any, ...]]:
    """Rows read directly with psycopg."""
    with psycopg.connect(db.dsn) as conn:
        return conn.execute(sql).fetchall()


def maria_rows(sql: str) -> list[tuple[Any, ...]]:
    """Rows read directly with PyMySQL (as root)."""
    conn = pymysql.connect(**MARIADB, database="crm")
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            return list(cur.fetchall())
    finally:
        conn.close()


class RecordingListener:
    """A ScriptListener that keeps everything it hears."""

    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []

    def on_statement_start(self, index: int, total: int, sql: str) -> None:
        self.events.append(("start", (index, total, sql)))

    def on_statement_end(self, result: Any) -> None:
        self.events.append(("end", result))

    def on_log(self, message: str) -> None:
        self.events.append(("log", message))

    @property
    def logs(self) -> list[str]:
        return [m for kind, m in self.events if kind == "log"]
