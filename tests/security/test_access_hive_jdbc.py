"""Fine-grained access (issue 34) through a JDBC (PostgreSQL) catalog and a Hive catalog, as real users of team acme:
the access matrix (tests/security/test_access_matrix.py) runs on Delta catalogs; the guard resolves JDBC names by
their Spark catalog and Hive names through the session catalog, so each gets a compact case set of its own.

In each catalog, tables `pub`, `secret` and `sink`; group `readers` (alice) holds SELECT on `pub` and MODIFY + SELECT
on `sink`; bob (developer) holds nothing there. Reads go through the editor's preview, writes through job runs on a
real worker (the team's engine for JDBC, the Hive engine for Hive). Each cell is allowed with the rows it must give,
or refused naming the privilege and the table (rule `access`) with no row of `secret` (a canary) anywhere; what an
allowed write wrote is read back, and a refused one wrote nothing.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import psycopg
import pytest
from rest_framework.test import APIClient

from catalogs.models import Catalog
from catalogs.secrets import seal_configuration
from jobs.models import TERMINAL_STATUSES, JobRun, RunStatus
from lakeport_engine.catalog_types.hive import HiveConfig
from lakeport_engine.catalog_types.jdbc import JdbcConfig
from teams.models import Role, Team
from tests.factories import MembershipFactory, UserFactory
from tests.jobs.conftest import running_worker, wait_status
from tests.support.clients import token_client
from tests.support.worker import Worker

pytestmark = [pytest.mark.spark, pytest.mark.django_db(transaction=True)]

API = "/api/v1/teams/acme"
CANARY = 424242


@pytest.fixture(scope="module")
def access_worker(django_db_setup: Any, django_db_blocker: Any,
                  tmp_path_factory: pytest.TempPathFactory) -> Iterator[Worker]:
    with running_worker(tmp_path_factory, "access-hj-worker", hostname="access-hj@%h", beat=False) as worker:
        yield worker


@dataclass
class World:
    prefix: str  # `pg.public` or `hv.<database>`
    admin: APIClient
    alice: APIClient
    bob: APIClient


def _people(team: Team, prefix: str) -> World:
    clients = {}
    for username, role in (("admin", Role.ADMIN), ("alice", Role.DEVELOPER), ("bob", Role.DEVELOPER)):
        user = UserFactory(username=username)
        MembershipFactory(team=team, user=user, role=role)
        clients[username] = token_client(user)
    admin = clients["admin"]
    assert admin.post(f"{API}/groups/", {"name": "readers", "members": ["alice"]}, format="json").status_code == 201
    for table, privilege in (("pub", "SELECT"), ("sink", "MODIFY"), ("sink", "SELECT")):
        resp = admin.post(f"{API}/grants/", {"securable": f"{prefix}.{table}", "privilege": privilege,
                                             "principal_type": "group", "principal": "readers"}, format="json")
        assert resp.status_code == 201, resp.content
    return World(prefix=prefix, admin=admin, alice=clients["alice"], bob=clients["bob"])


def _run(client: APIClient, sql: str) -> JobRun:
    job = client.post(f"{API}/jobs/", {"name": f"j-{secrets.token_hex(4)}", "sql": sql}, format="json")
    assert job.status_code == 201, job.content
    run = client.post(f"{API}/jobs/{job.json()['id']}/runs/")
    assert run.status_code in (200, 201), run.content
    # a guard against a hang, not a limit: a Hive run on a loaded machine took over 4 minutes
    return wait_status(int(run.json()["id"]), *TERMINAL_STATUSES, timeout=900)


def _preview(client: APIClient, sql: str) -> Any:
    return client.post(f"{API}/sql/preview/", {"sql": sql}, format="json")


def _refused(message: str, privilege: str, table: str) -> None:
    assert "(rule: access)" in message and f"{privilege} on table '{table}'" in message, message
    assert str(CANARY) not in message and "Traceback" not in message and "at org." not in message, message


def _matrix(w: World) -> None:
    """The cells, on `w.prefix` (a JDBC schema or a Hive database holding pub(1,2), secret(CANARY) and sink())."""
    p = w.prefix
    # reads: alice's grant, bob's nothing, the table nobody was granted, and the same through a CTE and a join
    ok = _preview(w.alice, f"SELECT id FROM {p}.pub ORDER BY id")
    assert ok.status_code == 200, ok.content
    assert ok.json()["rows"] == [[1], [2]]
    for client, sql, table in (
        (w.bob, f"SELECT id FROM {p}.pub", f"{p}.pub"),
        (w.alice, f"SELECT id FROM {p}.secret", f"{p}.secret"),
        (w.alice, f"WITH s AS (SELECT * FROM {p}.secret) SELECT id FROM s", f"{p}.secret"),
        (w.alice, f"SELECT a.id FROM {p}.pub a JOIN {p}.secret b ON a.id = b.id", f"{p}.secret"),
    ):
        resp = _preview(client, sql)
        assert resp.status_code == 400 and "rows" not in resp.json(), (sql, resp.content[:300])
        _refused(resp.json()["error"]["message"], "SELECT", table)
    # writes as runs: MODIFY on sink allowed; into secret, or from secret into sink, refused
    done = _run(w.alice, f"INSERT INTO {p}.sink SELECT id FROM {p}.pub WHERE id = 2")
    assert done.status == RunStatus.SUCCEEDED, done.error
    for sql, privilege, table in (
        (f"INSERT INTO {p}.secret SELECT id FROM {p}.pub", "MODIFY", f"{p}.secret"),
        (f"INSERT INTO {p}.sink SELECT id FROM {p}.secret", "SELECT", f"{p}.secret"),
        (f"INSERT INTO {p}.pub VALUES (3)", "MODIFY", f"{p}.pub"),
    ):
        failed = _run(w.alice, sql)
        assert failed.status == RunStatus.FAILED, (sql, failed.status)
        _refused(failed.error["message"], privilege, table)
        assert failed.result is None or str(CANARY) not in str(failed.result)
    # exactly the allowed write landed; the refused ones wrote nothing (read back as the admin)
    for table, rows in (("sink", [[2]]), ("secret", [[CANARY]]), ("pub", [[1], [2]])):
        back = _preview(w.admin, f"SELECT id FROM {p}.{table} ORDER BY id")
        assert back.status_code == 200 and back.json()["rows"] == rows, (table, back.content[:300])


def test_jdbc_catalog_reads_writes_and_refusals(access_worker: Worker, team: Team, pg_source: Any,
                                                settings: Any) -> None:
    settings.LAKEPORT_INTERACTIVE_TIMEOUT_SECONDS = 300  # a loaded CI machine: an editor call waits, it is not the test
    with psycopg.connect(pg_source.dsn, autocommit=True) as conn:
        for table in ("pub", "secret", "sink"):
            conn.execute(f"CREATE TABLE public.{table} (id integer)")
        conn.execute("INSERT INTO public.pub VALUES (1), (2)")
        conn.execute(f"INSERT INTO public.secret VALUES ({CANARY})")
    config = JdbcConfig.model_validate({"type": "postgresql", "base-url": "jdbc:postgresql://127.0.0.1:5432/",
                                        "default-database": pg_source.name, "username": "postgres",
                                        "password": "unused-trust"})
    Catalog.objects.create(team=team, catalog_type="jdbc", catalog_name="pg", configuration=seal_configuration(config))
    _matrix(_people(team, "pg.public"))


def test_hive_catalog_reads_writes_and_refusals(access_worker: Worker, team: Team, hive_metastore: Any, spark: Any,
                                                settings: Any) -> None:
    settings.LAKEPORT_INTERACTIVE_TIMEOUT_SECONDS = 300
    config = HiveConfig.model_validate({"metastore-uris": hive_metastore.uri, "default-database": "default",
                                        "warehouse": str(hive_metastore.warehouse)})
    Catalog.objects.create(team=team, catalog_type="hive", catalog_name="hv", configuration=seal_configuration(config))
    database = f"acc_{secrets.token_hex(3)}"  # the session's metastore is shared by the suite
    # the tables are made with the suite's SparkSession on the same metastore and warehouse (a run would start the
    # Hive engine for it and take minutes on a loaded machine; the engine reads them as any team table)
    spark.sql(f"CREATE DATABASE {database}")
    for table in ("pub", "secret", "sink"):
        spark.sql(f"CREATE TABLE {database}.{table} (id INT) STORED AS PARQUET")
    spark.sql(f"INSERT INTO {database}.pub VALUES (1), (2)")
    spark.sql(f"INSERT INTO {database}.secret VALUES ({CANARY})")
    try:
        _matrix(_people(team, f"hv.{database}"))
    finally:
        spark.sql(f"DROP DATABASE {database} CASCADE")
