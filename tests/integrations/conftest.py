"""Fixtures for REST-integration tests: the typed client on sys.path, a live server (pytest-django's, on the
test database) with a team, an admin token and catalog sources, and a real Celery worker running team engines."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest

from teams.models import Role
from teams.services import api_token_create
from tests.factories import MembershipFactory, TeamFactory, UserFactory
from tests.support.secrets import register_secret

CLIENT_DIR = Path(__file__).resolve().parents[2] / "clients" / "python"
if str(CLIENT_DIR) not in sys.path:
    sys.path.insert(0, str(CLIENT_DIR))  # what `pip install ./clients/python` gives an integrator

PG_PASSWORD = "pg-Secret-client-5e2b"  # trust auth ignores it; it must never come back


@dataclass
class Integration:
    """What an integrator is handed: the server's URL, a team, an admin's token (and its id), and sources."""

    base_url: str
    team: str
    token: str
    token_id: int
    pg_database: str
    delta_warehouse: Path
    metastore_uri: str


@pytest.fixture
def integration(transactional_db: Any, live_server: Any, pg_source: Any, hive_metastore: Any,
                tmp_path: Path) -> Iterator[Integration]:
    """Team `acme` with an admin holding a real API token; a PostgreSQL database with public.orders, a Delta
    warehouse with sales.orders, and the session's Hive Metastore — all reachable from the live server."""
    import pyarrow as pa
    from deltalake import write_deltalake

    with psycopg.connect(pg_source.dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE public.orders (id int primary key, customer text, amount numeric(10,2))")
        conn.execute("INSERT INTO public.orders VALUES (1, 'ann', 10.50), (2, 'bob', 20.00), (3, 'cy', 5.25)")
    warehouse = tmp_path / "lake"
    write_deltalake(str(warehouse / "sales" / "orders"), pa.table({"id": pa.array([1, 2], pa.int64())}))
    team = TeamFactory(name="acme")
    user = UserFactory(username="integrator")
    MembershipFactory(team=team, user=user, role=Role.ADMIN)
    issued = api_token_create(user=user, name="provisioning")
    register_secret(PG_PASSWORD, "jdbc password")
    yield Integration(base_url=live_server.url, team="acme", token=register_secret(issued.raw, "api token"),
                      token_id=issued.token.id, pg_database=pg_source.name, delta_warehouse=warehouse,
                      metastore_uri=hive_metastore.uri)
