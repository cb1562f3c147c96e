"""Fine-grained access (issue 34) through a JDBC (PostgreSQL) catalog and a Hive catalog, as real users of team acme:
the access matrix (tests/security/test_access_matrix.py) runs on Delta catalogs; the guard resolves JDBC names by
their Spark catalog and Hive names through the session catalog, so each gets a compact case set of its own.

In each catalog, tables `pub`, `secret` and `sink`; group `readers` (alice) holds SELECT on `pub` and MODIFY + SELECT
on `sink`; bob (developer) holds nothing there. Reads go through the editor's preview, writes through job runs on a
real worker (the team's engine for JDBC, the Hive engine for Hive). Each cell is allowed with the rows it must give,
or refused naming the privilege and the table (rule `access`) with no row of `secret` (a canary) anywhere; what an
allowed write wrote is read back, and a refused one wrote nothing.

Then row filters and column masks on a table `ppl` of each catalog (`_policies`): alice (SELECT and MODIFY on it) reads
only the rows the filter keeps and the mask's values — directly, through a CTE, a join, subqueries and a temporary
view, in preview and in a run — each query answering what it answers over `ppl_seen`, the table pre-filtered and
pre-masked (the oracle); no output carries the canary, and what cannot keep the policy (EXPLAIN, INSERT OVERWRITE,
TRUNCATE, DELETE; in Hive a view of the metastore over the table) is refused (rule `row-policy`) and wrote nothing.
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


# `ppl`: ids 1 and 3 pass the filter, CANARY does not; every stored email carries the canary, the mask replaces it.
PPL = [(1, f"one-{CANARY}@x.org"), (3, f"three-{CANARY}@x.org"), (CANARY, f"hidden-{CANARY}@x.org")]
SEEN = [(1, "m-1"), (3, "m-3")]  # what the filter and the mask leave of it: `ppl_seen`, the oracle
ROW_FILTER = "id < 1000 OR is_member('auditors')"
MASK = "CASE WHEN current_user() = 'nobody' THEN email ELSE concat('m-', CAST(id AS STRING)) END"
# Queries over {t} (the protected table, or the oracle): each answers the same over both.
POLICY_QUERIES = [
    "SELECT id, email FROM {t} ORDER BY id",
    "WITH c AS (SELECT * FROM {t}) SELECT id, email FROM c ORDER BY id",
    "SELECT a.id, b.email FROM {p}.pub a JOIN {t} b ON a.id = b.id ORDER BY a.id",
    "SELECT id FROM {p}.pub WHERE id IN (SELECT id FROM {t}) ORDER BY id",
    "SELECT (SELECT max(id) FROM {t}) AS top, (SELECT count(*) FROM {t}) AS n",
    "SELECT id FROM {t} WHERE email LIKE '%{canary}%' OR id > 100",
    "SELECT count(*), max(email), sum(id) FROM (SELECT * FROM {t}) s",
    "SELECT id, email FROM {t} UNION ALL SELECT id, 'pub' FROM {p}.pub ORDER BY id, email",
]


def _policies(w: World) -> None:
    """Row filter and mask on `{prefix}.ppl` (tables ppl, ppl_seen made by the caller): alice reads what they leave."""
    p, admin = w.prefix, w.admin
    for privilege in ("SELECT", "MODIFY"):
        resp = admin.post(f"{API}/grants/", {"securable": f"{p}.ppl", "privilege": privilege,
                                             "principal_type": "group", "principal": "readers"}, format="json")
        assert resp.status_code == 201, resp.content
    assert admin.post(f"{API}/row-filters/", {"table": f"{p}.ppl", "expression": ROW_FILTER},
                      format="json").status_code == 201
    assert admin.post(f"{API}/column-masks/", {"table": f"{p}.ppl", "column": "email", "expression": MASK},
                      format="json").status_code == 201
    for query in POLICY_QUERIES:
        sql = query.format(t=f"{p}.ppl", p=p, canary=CANARY)
        got = _preview(w.alice, sql)
        assert got.status_code == 200, (sql, got.content[:400])
        assert str(CANARY) not in got.content.decode(), (sql, got.content[:400])
        oracle = _preview(w.admin, query.format(t=f"{p}.ppl_seen", p=p, canary=CANARY))
        assert oracle.status_code == 200, oracle.content[:300]
        assert got.json()["rows"] == oracle.json()["rows"], sql
    assert _preview(w.alice, f"SELECT id, email FROM {p}.ppl ORDER BY id").json()["rows"] == [list(r) for r in SEEN]
    # refused: the plan would print the filter; where a row came from
    for sql in (f"EXPLAIN SELECT * FROM {p}.ppl", f"SELECT input_file_name(), id FROM {p}.ppl"):
        resp = _preview(w.alice, sql)
        assert resp.status_code == 400 and "(rule: row-policy)" in resp.json()["error"]["message"], resp.content
        assert ROW_FILTER not in resp.content.decode() and str(CANARY) not in resp.content.decode()
    # a run: a temporary view over the table, written into sink and read back
    done = _run(w.alice, f"CREATE TEMPORARY VIEW v AS SELECT * FROM {p}.ppl;\n"
                         f"INSERT INTO {p}.sink SELECT id FROM v WHERE id <> 1;\nSELECT id, email FROM v ORDER BY id")
    assert done.status == RunStatus.SUCCEEDED, done.error
    assert done.result["rows"] == [list(r) for r in SEEN] and str(CANARY) not in str(done.result)
    # changes of rows she cannot see are refused, and change nothing: a run, and the same guard in validate
    failed = _run(w.alice, f"INSERT OVERWRITE {p}.ppl SELECT id, 'x' FROM {p}.pub")
    assert failed.status == RunStatus.FAILED, failed.status
    checked = w.alice.post(f"{API}/sql/validate/", {"sql": f"TRUNCATE TABLE {p}.ppl;\nDELETE FROM {p}.ppl WHERE id = 1;"
                                                           f"\nMERGE INTO {p}.ppl t USING {p}.pub s ON t.id = s.id "
                                                           "WHEN MATCHED THEN DELETE"}, format="json").json()
    assert checked["valid"] is False and len(checked["errors"]) == 3, checked
    for message in [failed.error["message"], *(e["message"] for e in checked["errors"])]:
        assert "(rule: row-policy)" in message and f"table '{p}.ppl'" in message, message
        assert ROW_FILTER not in message and str(CANARY) not in message, message
    # as the admin (under the same filter: it names no exemption for them) the table is as it was, sink has id 3
    back = _preview(w.admin, f"SELECT id, email FROM {p}.ppl ORDER BY id")
    assert back.json()["rows"] == [list(r) for r in SEEN], back.content[:300]
    assert _preview(w.admin, f"SELECT id FROM {p}.sink ORDER BY id").json()["rows"] == [[2], [3]]


def test_jdbc_catalog_reads_writes_and_refusals(access_worker: Worker, team: Team, pg_source: Any,
                                                settings: Any) -> None:
    settings.LAKEPORT_INTERACTIVE_TIMEOUT_SECONDS = 300  # a loaded CI machine: an editor call waits, it is not the test
    with psycopg.connect(pg_source.dsn, autocommit=True) as conn:
        for table in ("pub", "secret", "sink"):
            conn.execute(f"CREATE TABLE public.{table} (id integer)")
        conn.execute("INSERT INTO public.pub VALUES (1), (2)")
        conn.execute(f"INSERT INTO public.secret VALUES ({CANARY})")
        for table, rows in (("ppl", PPL), ("ppl_seen", SEEN)):
            conn.execute(f"CREATE TABLE public.{table} (id integer, email text)")
            conn.cursor().executemany(f"INSERT INTO public.{table} VALUES (%s, %s)", rows)
    config = JdbcConfig.model_validate({"type": "postgresql", "base-url": "jdbc:postgresql://127.0.0.1:5432/",
                                        "default-database": pg_source.name, "username": "postgres",
                                        "password": "unused-trust"})
    Catalog.objects.create(team=team, catalog_type="jdbc", catalog_name="pg", configuration=seal_configuration(config))
    world = _people(team, "pg.public")
    _matrix(world)
    _policies(world)
    with psycopg.connect(pg_source.dsn, autocommit=True) as conn:  # the database itself: nothing was changed
        assert sorted(conn.execute("SELECT id, email FROM public.ppl").fetchall()) == sorted(PPL)


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
    for table, rows in (("ppl", PPL), ("ppl_seen", SEEN)):
        spark.sql(f"CREATE TABLE {database}.{table} (id INT, email STRING) STORED AS PARQUET")
        spark.sql(f"INSERT INTO {database}.{table} VALUES " + ", ".join(f"({i}, '{e}')" for i, e in rows))
    # a view of the metastore over the protected table, made outside the platform: it would read it unfiltered
    spark.sql(f"CREATE VIEW {database}.ppl_view AS SELECT * FROM {database}.ppl")
    try:
        world = _people(team, f"hv.{database}")
        _matrix(world)
        _policies(world)
        assert world.admin.post(f"{API}/grants/", {"securable": f"hv.{database}.ppl_view", "privilege": "SELECT",
                                                   "principal_type": "group", "principal": "readers"},
                                format="json").status_code == 201
        resp = _preview(world.alice, f"SELECT id, email FROM hv.{database}.ppl_view")
        assert resp.status_code == 400, resp.content[:300]
        assert "(rule: row-policy)" in resp.json()["error"]["message"] and str(CANARY) not in resp.content.decode()
        assert sorted(tuple(r) for r in spark.sql(f"SELECT * FROM {database}.ppl").collect()) == sorted(PPL)
    finally:
        spark.sql(f"DROP DATABASE {database} CASCADE")
