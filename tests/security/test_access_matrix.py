"""Fine-grained access (issue 34) through the public API, as real users of team acme (docs/access.md).

World: Delta catalogs `lake` (governed: the admin grants on it through the API) and `open` (no grant names it, so
the team's role defaults keep holding there). Users: alice (developer, in group `analysts`, which holds SELECT on
lake.sales.orders and CREATE + MODIFY on lake.scratch), bob (developer, no grant), carol (viewer with BROWSE on
lake.sales), and the team admin. A real Celery worker and the team's engine answer preview, validate and runs; the
metadata browser lists from the Delta warehouse. Each cell is allow (with the expected rows) or refuse (the privilege
and the securable named, rule `access`, no row). Then the attacks of a user with SELECT on one table only.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from deltalake import write_deltalake
from rest_framework.test import APIClient

from catalogs.models import Catalog, CatalogChange
from catalogs.secrets import seal_configuration
from jobs.models import TERMINAL_STATUSES, RunStatus
from lakeport_engine.catalog_types.delta import DeltaConfig
from teams.models import Role, Team
from tests.factories import MembershipFactory, UserFactory
from tests.jobs.conftest import running_worker, wait_status
from tests.support.clients import token_client
from tests.support.worker import Worker

pytestmark = [pytest.mark.django_db(transaction=True)]

API = "/api/v1/teams/acme"
CANARY = "canary-secret@example.com"


@pytest.fixture(scope="module")
def access_worker(django_db_setup: Any, django_db_blocker: Any,
                  tmp_path_factory: pytest.TempPathFactory) -> Iterator[Worker]:
    with running_worker(tmp_path_factory, "access-worker", hostname="access@%h", beat=False) as worker:
        yield worker


@dataclass
class People:
    admin: APIClient
    alice: APIClient
    bob: APIClient
    carol: APIClient


def _delta(root: Path, database: str, table: str, data: dict[str, Any]) -> None:
    write_deltalake(str(root / database / table), pa.table(data))


@pytest.fixture
def people(team: Team, tmp_path: Path, settings: Any) -> People:
    settings.LAKEPORT_INTERACTIVE_TIMEOUT_SECONDS = 180  # a loaded CI machine: an editor call waits, it is not the test
    lake, open_root = tmp_path / "lake", tmp_path / "open"
    _delta(lake, "sales", "orders", {"id": pa.array([1, 2], pa.int64()), "amount": pa.array([10, 20], pa.int64())})
    _delta(lake, "sales", "customers", {"id": pa.array([1, 2], pa.int64()), "email": [CANARY, CANARY]})
    _delta(lake, "hr", "salaries", {"id": pa.array([1], pa.int64()), "salary": pa.array([99999], pa.int64())})
    _delta(lake, "scratch", "seed", {"id": pa.array([0], pa.int64())})
    _delta(open_root, "pub", "items", {"id": pa.array([7], pa.int64())})
    for name, root in (("lake", lake), ("open", open_root)):
        config = DeltaConfig.model_validate({"warehouse": str(root), "default-database": "sales"})
        Catalog.objects.create(team=team, catalog_type="delta", catalog_name=name,
                               configuration=seal_configuration(config))
    users = {}
    for username, role in (("admin", Role.ADMIN), ("alice", Role.DEVELOPER), ("bob", Role.DEVELOPER),
                           ("carol", Role.VIEWER)):
        user = UserFactory(username=username)
        MembershipFactory(team=team, user=user, role=role)
        users[username] = token_client(user)
    admin = users["admin"]
    assert admin.post(f"{API}/groups/", {"name": "analysts", "members": ["alice"]}, format="json").status_code == 201
    for securable, privilege, kind, principal in (
        ("lake.sales.orders", "SELECT", "group", "analysts"),
        ("lake.scratch", "CREATE", "group", "analysts"),
        ("lake.scratch.*", "MODIFY", "group", "analysts"),
        ("lake.scratch.*", "SELECT", "group", "analysts"),
        ("lake.sales", "BROWSE", "user", "carol"),
    ):
        resp = admin.post(f"{API}/grants/", {"securable": securable, "privilege": privilege,
                                             "principal_type": kind, "principal": principal}, format="json")
        assert resp.status_code == 201, resp.content
    return People(admin=admin, alice=users["alice"], bob=users["bob"], carol=users["carol"])


def _refused(message: str, privilege: str, securable: str) -> None:
    assert "(rule: access)" in message, message
    assert f"{privilege} on {securable}" in message, message
    assert CANARY not in message and "Traceback" not in message and "at org." not in message, message


def preview(client: APIClient, sql: str) -> Any:
    return client.post(f"{API}/sql/preview/", {"sql": sql}, format="json")


def rows(client: APIClient, sql: str) -> Any:
    """The rows of a preview that must succeed (the answer in the failure message otherwise)."""
    resp = preview(client, sql)
    assert resp.status_code == 200, (sql, resp.status_code, resp.content[:500])
    return resp.json()["rows"]


# (user, query, expected rows | (privilege, securable) refused)
PREVIEW_CELLS: list[tuple[str, str, Any]] = [
    ("admin", "SELECT email FROM lake.sales.customers ORDER BY id LIMIT 1", [[CANARY]]),
    ("admin", "SELECT salary FROM lake.hr.salaries", [[99999]]),
    ("alice", "SELECT amount FROM lake.sales.orders ORDER BY id", [[10], [20]]),
    ("alice", "SELECT email FROM lake.sales.customers", ("SELECT", "table 'lake.sales.customers'")),
    ("alice", "SELECT salary FROM lake.hr.salaries", ("SELECT", "table 'lake.hr.salaries'")),
    ("alice", "SELECT id FROM lake.scratch.seed", [[0]]),
    ("alice", "SELECT id FROM open.pub.items", [[7]]),  # an ungoverned catalog keeps the role defaults
    ("bob", "SELECT amount FROM lake.sales.orders", ("SELECT", "table 'lake.sales.orders'")),
    ("bob", "SELECT id FROM open.pub.items", [[7]]),
]


@pytest.mark.parametrize("case", range(len(PREVIEW_CELLS)))
def test_preview_and_validate_cells(access_worker: Worker, people: People, case: int) -> None:
    who, sql, expected = PREVIEW_CELLS[case]
    client = getattr(people, who)
    resp = preview(client, sql)
    validate = client.post(f"{API}/sql/validate/", {"sql": sql}, format="json").json()
    if isinstance(expected, list):
        assert resp.status_code == 200, resp.content
        assert resp.json()["rows"] == expected
        assert validate["valid"] is True, validate
    else:
        assert resp.status_code == 400, resp.content
        assert "rows" not in resp.json()
        _refused(resp.json()["error"]["message"], *expected)
        assert validate["valid"] is False
        _refused(validate["errors"][0]["message"], *expected)


# Attacks of alice (SELECT on lake.sales.orders only): each names the forbidden table some other way.
ATTACKS: list[tuple[str, str, str]] = [
    ("WITH c AS (SELECT * FROM lake.sales.customers) SELECT email FROM c", "SELECT", "table 'lake.sales.customers'"),
    ("SELECT amount FROM lake.sales.orders WHERE id IN (SELECT id FROM lake.sales.customers)", "SELECT",
     "table 'lake.sales.customers'"),
    ("SELECT o.amount, c.email FROM lake.sales.orders o JOIN lake.sales.customers c ON o.id = c.id", "SELECT",
     "table 'lake.sales.customers'"),
    ("SELECT id FROM lake.sales.orders UNION ALL SELECT id FROM lake.hr.salaries", "SELECT",
     "table 'lake.hr.salaries'"),
    ("EXPLAIN SELECT * FROM lake.sales.customers", "SELECT", "table 'lake.sales.customers'"),
    ("DESCRIBE TABLE lake.hr.salaries", "BROWSE", "table 'lake.hr.salaries'"),
    ("USE lake.sales;\nSELECT email FROM customers", "SELECT", "table 'lake.sales.customers'"),
    ("USE CATALOG lake;\nSELECT salary FROM hr.salaries", "SELECT", "table 'lake.hr.salaries'"),
    ("SELECT email FROM lake.sales.customers VERSION AS OF 0", "SELECT", "table 'lake.sales.customers'"),
    ("TABLE lake.sales.customers", "SELECT", "table 'lake.sales.customers'"),
    ("SHOW CREATE TABLE lake.hr.salaries", "BROWSE", "table 'lake.hr.salaries'"),
]


@pytest.mark.parametrize("case", range(len(ATTACKS)))
def test_attacks_through_preview_and_validate_are_refused(access_worker: Worker, people: People, case: int) -> None:
    sql, privilege, securable = ATTACKS[case]
    validate = people.alice.post(f"{API}/sql/validate/", {"sql": sql}, format="json").json()
    assert validate["valid"] is False, validate
    _refused(validate["errors"][0]["message"], privilege, securable)
    resp = preview(people.alice, sql)
    if resp.status_code == 400 and resp.json()["error"]["message"].startswith("Preview "):
        return  # refused by its shape before the engine (not a read)
    assert resp.status_code == 400, resp.content
    _refused(resp.json()["error"]["message"], privilege, securable)


# Scripts as job runs: (user, script, refused (privilege, securable) or None for success, and the rows then)
RUN_CELLS: list[tuple[str, str, Any]] = [
    ("alice", "CREATE TEMPORARY VIEW v AS SELECT * FROM lake.sales.customers;\nSELECT email FROM v",
     ("SELECT", "table 'lake.sales.customers'")),
    ("alice", "CREATE TABLE lake.scratch.stolen AS SELECT * FROM lake.sales.customers",
     ("SELECT", "table 'lake.sales.customers'")),
    ("alice", "INSERT INTO lake.sales.orders VALUES (3, 30)", ("MODIFY", "table 'lake.sales.orders'")),
    ("alice", "CREATE TABLE lake.sales.mine AS SELECT * FROM lake.sales.orders", ("CREATE", "schema 'lake.sales'")),
    ("alice", "CACHE TABLE lake.sales.customers", None),  # refused by the guard's own rule `cache`
    ("alice", "CREATE TABLE lake.scratch.copy AS SELECT id, amount FROM lake.sales.orders;\n"
              "INSERT INTO lake.scratch.copy VALUES (3, 30);\nSELECT count(*) FROM lake.scratch.copy", [[3]]),
    ("bob", "SELECT count(*) FROM open.pub.items", [[1]]),
    ("bob", "SELECT count(*) FROM lake.sales.orders", ("SELECT", "table 'lake.sales.orders'")),
]


def test_runs_obey_the_grants(access_worker: Worker, people: People) -> None:
    runs = []
    for i, (who, script, _) in enumerate(RUN_CELLS):
        client = getattr(people, who)
        job = client.post(f"{API}/jobs/", {"name": f"access-{i}", "sql": script}, format="json")
        assert job.status_code == 201, job.content
        runs.append(client.post(f"{API}/jobs/{job.json()['id']}/runs/").json()["id"])
    for run_id, (who, script, expected) in zip(runs, RUN_CELLS, strict=True):
        done = wait_status(run_id, *TERMINAL_STATUSES)
        if isinstance(expected, list):
            assert done.status == RunStatus.SUCCEEDED, (script, done.error)
            assert done.result["rows"] == expected
        elif expected is None:
            assert done.status == RunStatus.FAILED and "(rule: cache)" in done.error["message"], done.error
        else:
            assert done.status == RunStatus.FAILED, (who, script)
            _refused(done.error["message"], *expected)
            assert CANARY not in str(done.result)


def test_the_metadata_browser_hides_what_the_caller_may_not_browse(access_worker: Worker, people: People) -> None:
    base = f"{API}/catalogs/lake/databases/"
    assert sorted(people.admin.get(base).json()["databases"]) == ["hr", "sales", "scratch"]
    assert sorted(people.alice.get(base).json()["databases"]) == ["sales", "scratch"]
    assert people.carol.get(base).json()["databases"] == ["sales"]
    tables = [t["name"] for t in people.alice.get(f"{base}sales/tables/").json()["tables"]]
    assert tables == ["orders"]
    carol_tables = sorted(t["name"] for t in people.carol.get(f"{base}sales/tables/").json()["tables"])
    assert carol_tables == ["customers", "orders"]
    # a hidden table answers exactly as a missing one
    hidden = people.alice.get(f"{base}hr/tables/salaries/")
    missing = people.alice.get(f"{base}hr/tables/no_such_table/")
    assert hidden.status_code == missing.status_code == 404
    assert people.bob.get(base).status_code == 404  # bob may not browse lake at all
    assert people.bob.get(f"{API}/catalogs/open/databases/").json()["databases"] == ["pub"]


def test_grants_api_rules_and_history(access_worker: Worker, people: People, team: Team) -> None:
    # a developer without MANAGE may not grant; a team admin may; MANAGE holders may grant below their securable
    body = {"securable": "lake.hr", "privilege": "SELECT", "principal_type": "user", "principal": "bob"}
    denied = people.alice.post(f"{API}/grants/", body, format="json")
    assert denied.status_code == 403 and "MANAGE" in denied.json()["error"]["message"]
    made = people.admin.post(f"{API}/grants/", {**body, "privilege": "MANAGE"}, format="json")
    assert made.status_code == 201
    assert people.admin.post(f"{API}/grants/", {**body, "privilege": "MANAGE"}, format="json").status_code == 409
    by_bob = people.bob.post(f"{API}/grants/", {**body, "securable": "lake.hr.salaries", "principal": "alice"},
                             format="json")
    assert by_bob.status_code == 201, by_bob.content
    assert rows(people.alice, "SELECT salary FROM lake.hr.salaries") == [[99999]]
    assert people.alice.delete(f"{API}/grants/{by_bob.json()['id']}/").status_code == 403
    assert people.bob.delete(f"{API}/grants/{by_bob.json()['id']}/").status_code == 204
    _refused(preview(people.alice, "SELECT salary FROM lake.hr.salaries").json()["error"]["message"], "SELECT",
             "table 'lake.hr.salaries'")
    bad = people.admin.post(f"{API}/grants/", {**body, "securable": "lake.*.x"}, format="json")
    assert bad.status_code == 400 and "securable" in bad.json()["error"]["details"]
    stranger = people.admin.post(f"{API}/grants/", {**body, "principal": "nobody"}, format="json")
    assert stranger.status_code == 400
    listed = people.admin.get(f"{API}/grants/?securable=lake.hr.salaries").json()["results"]
    assert [(g["securable"], g["privilege"], g["principal"]) for g in listed] == [("lake.hr", "MANAGE", "bob")]
    # carol (BROWSE on lake.sales only) does not learn that lake.hr has grants, nor their ids
    assert people.carol.get(f"{API}/grants/?securable=lake.hr.salaries").json()["results"] == []
    assert {g["securable"] for g in people.carol.get(f"{API}/grants/").json()["results"]} == {
        "lake.sales", "lake.sales.orders"}
    assert people.carol.get(f"{API}/grants/{made.json()['id']}/").status_code == 404
    history = CatalogChange.objects.filter(team=team, catalog_name="lake").order_by("id")
    actions = [(c.action, c.actor_name, c.changes["securable"], c.changes["privilege"]) for c in history]
    assert ("grant", "bob", "lake.hr.salaries", "SELECT") in actions
    assert ("revoke", "bob", "lake.hr.salaries", "SELECT") in actions
    assert ("grant", "admin", "lake.sales.orders", "SELECT") in actions


def _run(client: APIClient, name: str, sql: str) -> Any:
    job = client.post(f"{API}/jobs/", {"name": name, "sql": sql}, format="json")
    assert job.status_code == 201, job.content
    return wait_status(client.post(f"{API}/jobs/{job.json()['id']}/runs/").json()["id"], *TERMINAL_STATUSES)


def test_grant_revoke_and_show_grants_as_sql(access_worker: Worker, people: People, team: Team) -> None:
    salaries = "SELECT salary FROM lake.hr.salaries"
    _refused(preview(people.bob, salaries).json()["error"]["message"], "SELECT", "table 'lake.hr.salaries'")
    # validate knows the statements (no syntax error) and names what is malformed
    ok = people.admin.post(f"{API}/sql/validate/", {"sql": "GRANT SELECT ON TABLE lake.hr.salaries TO USER bob"},
                           format="json").json()
    assert ok["valid"] is True, ok
    for bad, words in (("GRANT READ ON lake TO bob", "Unknown privilege READ"),
                       ("GRANT SELECT lake TO bob", "Write GRANT"), ("SHOW GRANTS lake", "Write SHOW GRANTS")):
        errors = people.admin.post(f"{API}/sql/validate/", {"sql": bad}, format="json").json()["errors"]
        assert "(rule: access-statement)" in errors[0]["message"] and words in errors[0]["message"], errors
    # a developer without MANAGE may not grant, in SQL as in the API
    denied = _run(people.alice, "grant-alice", "GRANT SELECT ON TABLE lake.hr.salaries TO bob")
    assert denied.status == RunStatus.FAILED and "needs MANAGE" in denied.error["message"], denied.error
    granted = _run(people.admin, "grant-admin", "GRANT SELECT, BROWSE ON TABLE lake.hr.salaries TO USER bob;\n"
                                                "SHOW GRANTS ON lake.hr.salaries")
    assert granted.status == RunStatus.SUCCEEDED, granted.error
    assert sorted((r[1], r[3]) for r in granted.result["rows"]) == [("BROWSE", "bob"), ("SELECT", "bob")]
    assert rows(people.bob, salaries) == [[99999]]
    shown = rows(people.alice, "SHOW GRANTS ON lake.sales.orders")  # the grants that hold on it: on it and above
    assert [r[:4] for r in shown] == [["lake.sales", "BROWSE", "user", "carol"],
                                      ["lake.sales.orders", "SELECT", "group", "analysts"]], shown
    assert ("grant", "admin") in set(CatalogChange.objects.filter(
        team=team, catalog_name="lake", changes__securable="lake.hr.salaries").values_list("action", "actor_name"))
    revoked = _run(people.admin, "revoke-admin", "REVOKE SELECT ON TABLE lake.hr.salaries FROM bob")
    assert revoked.status == RunStatus.SUCCEEDED, revoked.error
    _refused(preview(people.bob, salaries).json()["error"]["message"], "SELECT", "table 'lake.hr.salaries'")
    missing = _run(people.admin, "revoke-again", "REVOKE SELECT ON TABLE lake.hr.salaries FROM bob")
    assert missing.status == RunStatus.FAILED and "is not granted" in missing.error["message"], missing.error


def test_the_lineage_api_hides_datasets_the_caller_may_not_browse(access_worker: Worker, people: People) -> None:
    done = _run(people.admin, "pay-report", "CREATE TABLE lake.scratch.pay AS SELECT s.id, s.salary, o.amount "
                                            "FROM lake.hr.salaries s JOIN lake.sales.orders o ON s.id = o.id")
    assert done.status == RunStatus.SUCCEEDED, done.error

    def names(client: APIClient) -> set[str]:
        resp = client.get(f"{API}/lineage/datasets/")
        assert resp.status_code == 200, resp.content
        return {a for d in resp.json() for a in d["aliases"]}

    assert {"lake.hr.salaries", "lake.sales.orders", "lake.scratch.pay"} <= names(people.admin)
    seen = names(people.alice)
    assert "lake.hr.salaries" not in seen and {"lake.sales.orders", "lake.scratch.pay"} <= seen
    pay = next(d for d in people.alice.get(f"{API}/lineage/datasets/", {"name": "lake.scratch.pay"}).json())
    upstream = people.alice.get(f"{API}/lineage/datasets/{pay['id']}/upstream/").json()
    assert {a for d in upstream["datasets"] for a in d["aliases"]} == {"lake.scratch.pay", "lake.sales.orders"}
    salaries = next(d for d in people.admin.get(f"{API}/lineage/datasets/", {"name": "lake.hr.salaries"}).json())
    for path in ("", "upstream/", "downstream/", "impact/"):
        hidden = people.alice.get(f"{API}/lineage/datasets/{salaries['id']}/{path}")
        assert hidden.status_code == 404, (path, hidden.status_code)
    assert people.bob.get(f"{API}/lineage/datasets/{pay['id']}/").status_code == 404  # bob browses nothing in lake

    # the job's and the run's lineage, and a column's, leave the hidden table out for alice, not for the admin
    def aliases(client: APIClient, path: str) -> set[str]:
        resp = client.get(f"{API}/lineage/{path}")
        assert resp.status_code == 200, (path, resp.content)
        body = resp.json()
        if "edges" in body:  # column lineage: the datasets its steps name
            return {step[k] for step in body["edges"] for k in ("dataset", "input_dataset")}
        return {a for side in ("inputs", "outputs") for d in body[side] for a in d["aliases"]}

    for path in (f"jobs/{done.job_id}/", f"runs/{done.id}/", f"datasets/{pay['id']}/columns/salary/"):
        assert "lake.hr.salaries" in aliases(people.admin, path), path
        assert "lake.hr.salaries" not in aliases(people.alice, path), path
    assert aliases(people.alice, f"runs/{done.id}/") == {"lake.sales.orders", "lake.scratch.pay"}


def test_refused_accesses_are_in_the_catalog_history_without_the_statement(access_worker: Worker, people: People,
                                                                          team: Team) -> None:
    literal = "needle-literal-7f3a"  # a literal of the refused statements: it must never reach the history
    sql = f"SELECT email FROM lake.sales.customers WHERE email = '{literal}'"
    assert preview(people.alice, sql).status_code == 400
    for _ in range(3):  # validation runs as one types: repeats count on one entry
        assert people.alice.post(f"{API}/sql/validate/", {"sql": sql}, format="json").json()["valid"] is False
    run = _run(people.bob, "refused-run", f"INSERT INTO lake.sales.orders SELECT 9, length('{literal}')")
    assert run.status == RunStatus.FAILED
    assert rows(people.alice, "SELECT amount FROM lake.sales.orders WHERE id = 1") == [[10]]  # allowed: no entry

    history = people.admin.get(f"{API}/catalogs/lake/history/?page_size=200")
    assert history.status_code == 200, history.content
    refusals = [e for e in history.json()["results"] if e["action"] == "refuse"]
    assert literal not in history.content.decode() and CANARY not in history.content.decode()
    seen = {(e["actor"], e["changes"]["entry"], e["changes"]["privilege"], e["changes"]["securable"]):
            e["changes"].get("repeats", 1) for e in refusals}
    assert seen == {
        ("alice", "preview", "SELECT", "lake.sales.customers"): 1,
        ("alice", "validate", "SELECT", "lake.sales.customers"): 3,
        ("bob", "run", "MODIFY", "lake.sales.orders"): 1,
    }, seen
    assert all(set(e["changes"]) <= {"privilege", "level", "securable", "entry", "repeats"} for e in refusals)
    assert all(e["time"] for e in refusals)
