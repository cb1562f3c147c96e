"""Fixtures for the catalog API tests: bodies for every catalog type, and a guard that scans every response and
log record of every test here for the secret values the tests use."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pymysql
import pytest
from rest_framework.test import APIClient

from teams.models import Role, Team
from tests.conftest import MARIADB, MariaDatabase, PgDatabase
from tests.factories import MembershipFactory, UserFactory
from tests.support.clients import token_client

# Every secret value the catalog tests send. None may ever appear in a response, a header or a log record.
PG_PASSWORD = "pg-Secr3t-7f3a9c0d"
MYSQL_PASSWORD = "my-Secr3t-2b8e41aa"
DELTA_ACCESS_KEY = "AKIA-Secr3t-delta-91d0"
DELTA_SECRET_KEY = "delta-Secr3t-key-55ab01"
NEW_PASSWORD = "rotated-Secr3t-c0ffee42"
ENV_PASSWORD = "env-Secr3t-from-shell-8d2f"
SECRET_VALUES = (PG_PASSWORD, MYSQL_PASSWORD, DELTA_ACCESS_KEY, DELTA_SECRET_KEY, NEW_PASSWORD, ENV_PASSWORD)

API = "/api/v1/teams/acme"


class RecordingAPIClient(APIClient):
    """An APIClient that keeps every response, so the leak guard can scan bodies and headers."""

    recorded: list[Any]

    def request(self, **kwargs: Any) -> Any:
        response = super().request(**kwargs)
        RecordingAPIClient.recorded.append(response)
        return response


RecordingAPIClient.recorded = []


@pytest.fixture
def client_for(team: Team) -> Callable[..., APIClient]:
    """Like the suite's `client_for` (a bearer-token client of a new member with `role`), recording responses."""

    def make(role: str, in_team: Team | None = None) -> APIClient:
        user = UserFactory()
        MembershipFactory(team=in_team or team, user=user, role=role)
        return token_client(user, RecordingAPIClient)

    return make


@pytest.fixture
def platform_admin_client(db: Any) -> APIClient:
    return token_client(UserFactory(username="root-admin", is_superuser=True, is_staff=True), RecordingAPIClient)


def leaked(text: str) -> list[str]:
    """The secret values found in `text`."""
    return [s for s in SECRET_VALUES if s in text]


@pytest.fixture(autouse=True)
def no_secret_leaks(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """Capture all logs at DEBUG and every response; after the test, assert none holds a secret value."""
    RecordingAPIClient.recorded.clear()
    caplog.set_level(logging.DEBUG)
    yield
    for response in RecordingAPIClient.recorded:
        body = response.content.decode("utf-8", "replace") if hasattr(response, "content") else ""
        headers = " ".join(f"{k}: {v}" for k, v in response.items())
        assert not leaked(body + headers), f"secret in a response to {response.wsgi_request.path}"
    for record in caplog.records:
        text = " ".join([record.getMessage(), str(record.exc_text or ""), repr(record.__dict__)])
        assert not leaked(text), f"secret in log record {record.name}: {record.msg!r}"
    RecordingAPIClient.recorded.clear()


# ---- catalog bodies -----------------------------------------------------------------------------------
def pg_body(source: PgDatabase, name: str = "pg_main", password: str | None = PG_PASSWORD) -> dict[str, Any]:
    config = {
        "type": "postgresql",
        "base-url": f"jdbc:postgresql://{source.host}:{source.port}/",
        "default-database": source.name,
        "username": source.user,
        "properties": {"connectTimeout": "5"},
    }
    if password is not None:
        config["password"] = password
    return {"catalog_name": name, "catalog_type": "jdbc", "configuration": config, "description": "Orders in PostgreSQL"}


def mysql_body(source: MariaDatabase, name: str = "my_shop", password: str | None = MYSQL_PASSWORD) -> dict[str, Any]:
    config = {
        "type": "mysql",
        "base-url": f"jdbc:mysql://{source.host}:{source.port}/?permitMysqlScheme",
        "default-database": source.name,
        "username": source.user,
    }
    if password is not None:
        config["password"] = password
    return {"catalog_name": name, "catalog_type": "jdbc", "configuration": config, "description": "Shop in MariaDB"}


def hive_body(name: str = "hive_wh", uri: str = "thrift://127.0.0.1:9083") -> dict[str, Any]:
    return {
        "catalog_name": name,
        "catalog_type": "hive",
        "configuration": {"metastore-uris": uri, "default-database": "default"},
        "description": "Hive warehouse",
    }


def delta_body(warehouse: Path, name: str = "lake", options: dict[str, Any] | None = None) -> dict[str, Any]:
    opts = {"AWS_ACCESS_KEY_ID": DELTA_ACCESS_KEY, "AWS_SECRET_ACCESS_KEY": DELTA_SECRET_KEY} if options is None else options
    return {
        "catalog_name": name,
        "catalog_type": "delta",
        "configuration": {"warehouse": str(warehouse), "storage-options": opts, "default-database": "sales"},
        "description": "Delta lake",
    }


@pytest.fixture
def warehouse(tmp_path: Path) -> Path:
    """A Delta warehouse directory inside the allowed local roots (the system temp dir)."""
    path = tmp_path / "warehouse"
    path.mkdir()
    return path


@pytest.fixture
def mariadb_user(mariadb_source: MariaDatabase) -> Iterator[MariaDatabase]:
    """`mariadb_source` reached through a user whose password is MYSQL_PASSWORD (root has none)."""
    user = f"lp_{secrets.token_hex(4)}"
    conn = pymysql.connect(**MARIADB, autocommit=True)
    with conn.cursor() as cur:
        cur.execute(f"CREATE USER '{user}'@'%%' IDENTIFIED BY %s", (MYSQL_PASSWORD,))
        cur.execute(f"GRANT ALL ON `{mariadb_source.name}`.* TO '{user}'@'%'")
    yield MariaDatabase(name=mariadb_source.name, user=user, password=MYSQL_PASSWORD)
    with conn.cursor() as cur:
        cur.execute(f"DROP USER IF EXISTS '{user}'@'%'")
    conn.close()


@pytest.fixture
def admin(client_for: Callable[..., APIClient]) -> APIClient:
    return client_for(Role.ADMIN)
