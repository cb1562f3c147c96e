"""Shared fixtures: API clients per role, real PostgreSQL/MariaDB/Redis, a Hive Metastore, a SparkSession."""

from __future__ import annotations

import os
import secrets
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pymysql
import pytest
from rest_framework.test import APIClient

from jobs.services.run_waits import run_waits_stop
from lakeport_engine.platform_jar import platform_jars
from teams.models import Role, Team
from tests.factories import MembershipFactory, TeamFactory, UserFactory
from tests.support.clients import token_client

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
# The session-wide leak scan (responses, logs, job logs, Spark event logs): tests/support/leakscan.py; the served
# OpenAPI document as the `schema` fixture of the body tests: tests/support/schema.py; `--shard I/N`: tests/support/shards.py.
pytest_plugins = ["tests.support.leakscan", "tests.support.schema", "tests.support.shards"]
PG_DSN = os.environ.get("LAKEPORT_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres")
MARIADB = {"host": "127.0.0.1", "port": 3306, "user": "root", "password": ""}
JDBC_JARS = ["/usr/share/java/postgresql.jar", "/usr/share/java/mariadb-java-client.jar"]


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None) -> Iterator[None]:
    """pytest-django's test database, with the run-wait listener's connection closed before it is dropped."""
    yield
    run_waits_stop()


# ---- API clients ------------------------------------------------------------------------------------
@pytest.fixture
def team(db: Any) -> Team:
    """The team the test acts in."""
    return TeamFactory(name="acme")


@pytest.fixture
def other_team(db: Any) -> Team:
    """Another team, whose objects must stay invisible."""
    return TeamFactory(name="globex")


@pytest.fixture
def client_for(team: Team) -> Callable[..., APIClient]:
    """`client_for("admin")` → a token-authenticated client of a new member with that role in `team`."""

    def make(role: str, in_team: Team | None = None) -> APIClient:
        user = UserFactory()
        MembershipFactory(team=in_team or team, user=user, role=role)
        return token_client(user)

    return make


@pytest.fixture
def admin_client(client_for: Callable[..., APIClient]) -> APIClient:
    return client_for(Role.ADMIN)


@pytest.fixture
def developer_client(client_for: Callable[..., APIClient]) -> APIClient:
    return client_for(Role.DEVELOPER)


@pytest.fixture
def viewer_client(client_for: Callable[..., APIClient]) -> APIClient:
    return client_for(Role.VIEWER)


@pytest.fixture
def platform_admin_client(db: Any) -> APIClient:
    user = UserFactory(username="root-admin", is_superuser=True, is_staff=True)
    return token_client(user)


# ---- source databases (the data catalogs point at) --------------------------------------------------
@dataclass
class PgDatabase:
    """A scratch PostgreSQL database: `dsn` for psycopg, `jdbc_url` for Spark, `name`."""

    name: str
    dsn: str
    host: str = "127.0.0.1"
    port: int = 5432
    user: str = "postgres"

    @property
    def jdbc_url(self) -> str:
        return f"jdbc:postgresql://{self.host}:{self.port}/{self.name}"


@pytest.fixture
def pg_source() -> Iterator[PgDatabase]:
    """A fresh PostgreSQL database (not Django's) for catalogs to read; dropped afterwards."""
    name = f"lp_src_{secrets.token_hex(4)}"
    with psycopg.connect(PG_DSN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    yield PgDatabase(name=name, dsn=PG_DSN.rsplit("/", 1)[0] + f"/{name}")
    with psycopg.connect(PG_DSN, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@dataclass
class MariaDatabase:
    """A scratch MariaDB database."""

    name: str
    host: str = "127.0.0.1"
    port: int = 3306
    user: str = "root"
    password: str = ""

    def connect(self) -> pymysql.connections.Connection:
        return pymysql.connect(host=self.host, port=self.port, user=self.user, password=self.password,
                               database=self.name, autocommit=True)

    @property
    def jdbc_url(self) -> str:
        return f"jdbc:mysql://{self.host}:{self.port}/{self.name}?permitMysqlScheme"


@pytest.fixture
def mariadb_source() -> Iterator[MariaDatabase]:
    """A fresh MariaDB database; dropped afterwards."""
    name = f"lp_src_{secrets.token_hex(4)}"
    conn = pymysql.connect(**MARIADB, autocommit=True)
    with conn.cursor() as cur:
        cur.execute(f"CREATE DATABASE `{name}`")
    yield MariaDatabase(name=name)
    with conn.cursor() as cur:
        cur.execute(f"DROP DATABASE IF EXISTS `{name}`")
    conn.close()


@pytest.fixture(scope="session")
def redis_url() -> str:
    """The real Redis the suite uses (database 15, flushed by tests that need it empty)."""
    import redis

    url = os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/15")
    redis.Redis.from_url(url).ping()
    return url


# ---- Hive Metastore and Spark -----------------------------------------------------------------------
@pytest.fixture(scope="session")
def hive_metastore(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One real Hive Metastore Thrift server for the whole session (Derby underneath)."""
    from tests.support.hive import start_hive_metastore

    hms = start_hive_metastore(tmp_path_factory.mktemp("hms"))
    yield hms
    hms.stop()


@pytest.fixture(scope="session")
def spark(hive_metastore: Any) -> Iterator[Any]:
    """One local SparkSession shared by the suite: JDBC driver jars on the classpath and Hive support on the
    session's Hive Metastore (static confs: a Python process has one SparkContext, so it is set up once)."""
    from pyspark.sql import SparkSession

    from lakeport_engine.guard import ENGINE_STATIC_CONF

    session = (
        SparkSession.builder.master("local[2]")
        .appName("lakeport-tests")
        .config("spark.jars", ",".join([j for j in JDBC_JARS if Path(j).exists()] + platform_jars()))
        .config("spark.sql.catalogImplementation", "hive")
        .config("spark.hadoop.hive.metastore.uris", hive_metastore.uri)
        .config("spark.sql.warehouse.dir", str(hive_metastore.warehouse))
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.python.authenticate.socketTimeout", "120s")  # Python data sources under a loaded CI machine
        .config("spark.driver.memory", "2g")
        .config(map=ENGINE_STATIC_CONF)  # the SQL guard's static conf: the suite runs as engines do
        .enableHiveSupport()
        .getOrCreate()
    )
    yield session
    session.stop()
