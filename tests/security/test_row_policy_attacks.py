"""Row filters and column masks under attack (issue 34; docs/access.md, "Row filters and column masks"), through the
public API as a developer with SELECT on one table under a row filter and a mask.

World: team acme's Delta catalog `lake` (governed). `lake.sales.orders` has a row filter keeping `region = 'EU'` rows
and a mask on `email`; every value a filter or mask must keep from alice contains the canary: the emails of all
rows, and the notes of the rows the filter drops (the EU rows' notes are numbers). The filter's own text carries a
marker of its own, which must never reach alice either. Both were attached by the team admin through the API after
the table's first version was written, so time travel reads a version from before them. Alice holds SELECT and
MODIFY on the table and everything on `lake.scratch` (tables she owns). Every answer alice gets — preview, validate,
run results, run logs, errors — is scanned for the canary and the marker; the cases also say what she should see.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from deltalake import write_deltalake
from rest_framework.test import APIClient

from catalogs.models import Catalog
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
CANARY = "canary"
MARKER = "zq9filtermark"  # in the filter's text only
FILTER = f"region = 'EU' AND note <> '{MARKER}'"
MASK = "'***'"
TABLE = "lake.sales.orders"
EU_ROWS = [[1, "EU", "***", "11", 10], [3, "EU", "***", "33", 30]]


@pytest.fixture(scope="module")
def policy_worker(django_db_setup: Any, django_db_blocker: Any,
                  tmp_path_factory: pytest.TempPathFactory) -> Iterator[Worker]:
    with running_worker(tmp_path_factory, "policy-worker", hostname="policy@%h", beat=False) as worker:
        yield worker


@pytest.fixture
def alice(team: Team, tmp_path: Path, settings: Any) -> APIClient:
    settings.LAKEPORT_INTERACTIVE_TIMEOUT_SECONDS = 180  # a loaded CI machine: an editor call waits, it is not the test
    lake = tmp_path / "lake"
    write_deltalake(str(lake / "sales" / "orders"), pa.table({
        "id": pa.array([1, 2, 3, 4], pa.int64()), "region": ["EU", "US", "EU", "US"],
        "email": [f"{CANARY}-mask-{i}@example.com" for i in range(1, 5)],
        "note": ["11", f"{CANARY}-row-2", "33", f"{CANARY}-row-4"],
        "amount": pa.array([10, 20, 30, 40], pa.int64())}))
    write_deltalake(str(lake / "scratch" / "sink"), pa.table({"id": pa.array([0], pa.int64()), "email": ["-"],
                                                              "note": ["-"]}))
    config = DeltaConfig.model_validate({"warehouse": str(lake), "default-database": "sales"})
    Catalog.objects.create(team=team, catalog_type="delta", catalog_name="lake", configuration=seal_configuration(config))
    users = {}
    for username, role in (("admin", Role.ADMIN), ("alice", Role.DEVELOPER)):
        user = UserFactory(username=username)
        MembershipFactory(team=team, user=user, role=role)
        users[username] = token_client(user)
    admin = users["admin"]
    for securable, privilege in ((TABLE, "SELECT"), (TABLE, "MODIFY"), ("lake.scratch", "MANAGE")):
        assert admin.post(f"{API}/grants/", {"securable": securable, "privilege": privilege, "principal_type": "user",
                                             "principal": "alice"}, format="json").status_code == 201
    assert admin.post(f"{API}/row-filters/", {"table": TABLE, "expression": FILTER},
                      format="json").status_code == 201
    assert admin.post(f"{API}/column-masks/", {"table": TABLE, "column": "email", "expression": MASK},
                      format="json").status_code == 201
    return users["alice"]


def _clean(answer: Any) -> None:
    text = json.dumps(answer) if not isinstance(answer, str) else answer
    assert CANARY not in text.lower(), text[:2000]
    assert MARKER not in text, text[:2000]
    assert "Traceback" not in text and "at org.apache" not in text, text[:2000]


def _preview(client: APIClient, sql: str, *, validate: bool = False) -> tuple[int, Any]:
    resp = client.post(f"{API}/sql/preview/", {"sql": sql}, format="json")
    _clean(resp.json())
    if validate:
        _clean(client.post(f"{API}/sql/validate/", {"sql": sql}, format="json").json())
    return resp.status_code, resp.json()


# (query, what alice sees: rows, or the text the refusal must contain); the whole matrix of reads runs in the
# engine (tests/security/test_row_policy_engine.py), these go the public way: API, Celery, the team's engine
READS: list[tuple[str, Any]] = [
    (f"SELECT * FROM {TABLE} ORDER BY id", EU_ROWS),
    (f"WITH c AS (SELECT * FROM {TABLE}) SELECT a.id, b.email, b.note FROM c a JOIN {TABLE} b ON a.id = b.id "
     "ORDER BY a.id", [[1, "***", "11"], [3, "***", "33"]]),
    (f"SELECT note FROM {TABLE} UNION ALL SELECT email FROM {TABLE} EXCEPT SELECT '11' ORDER BY 1", [["***"], ["33"]]),
    (f"SELECT max(email), count(DISTINCT email), sum(amount), max(note) OVER () FROM {TABLE} GROUP BY note "
     "ORDER BY 3",
     [["***", 1, 10, "33"], ["***", 1, 30, "33"]]),
    (f"SELECT * FROM (SELECT * FROM {TABLE} VERSION AS OF 0) ORDER BY id", EU_ROWS),  # before the filter existed
    (f"SELECT * FROM {TABLE} WHERE CAST(note AS INT) > 0 ORDER BY id", EU_ROWS),  # the filter runs first
    (f"SELECT nope FROM {TABLE}", "nope"),  # Spark's error without the plan (which prints the filter)
    (f"EXPLAIN SELECT * FROM {TABLE}", "rule: row-policy"),
    (f"SELECT input_file_name(), _metadata.file_path FROM {TABLE}", "rule: row-policy"),
]
VALIDATED = {0, 7}  # validate answers these too (it is asked of the same engine)


@pytest.mark.parametrize("case", range(len(READS)))
def test_reads_see_only_filtered_rows_and_masked_values(policy_worker: Worker, alice: APIClient, case: int) -> None:
    sql, expected = READS[case]
    status, answer = _preview(alice, sql, validate=case in VALIDATED)
    if isinstance(expected, list):
        assert status == 200, (sql, answer)
        assert answer["rows"] == expected, sql
    else:
        assert status == 400, (sql, answer)
        assert expected in answer["error"]["message"], answer


def _run(client: APIClient, name: str, sql: str) -> int:
    job = client.post(f"{API}/jobs/", {"name": name, "sql": sql}, format="json")
    assert job.status_code == 201, job.content
    run = client.post(f"{API}/jobs/{job.json()['id']}/runs/")
    assert run.status_code == 201, run.content
    return int(run.json()["id"])


# Scripts alice runs as jobs, and the rows of their last statement.
RUNS: list[tuple[str, list[list[Any]] | str]] = [
    (f"CREATE TABLE lake.scratch.stolen AS SELECT * FROM {TABLE};\nSELECT * FROM lake.scratch.stolen ORDER BY id",
     EU_ROWS),
    (f"INSERT OVERWRITE lake.scratch.sink SELECT id, email, note FROM {TABLE};\n"
     "SELECT * FROM lake.scratch.sink ORDER BY id", [[1, "***", "11"], [3, "***", "33"]]),
    (f"CREATE TEMPORARY VIEW v AS SELECT * FROM {TABLE} WHERE region <> 'EU';\nSELECT count(*) FROM v", [[0]]),
    (f"CREATE TABLE lake.scratch.copy AS SELECT * FROM {TABLE} VERSION AS OF 0;\n"
     "SELECT count(*), max(email) FROM lake.scratch.copy", [[2, "***"]]),
    (f"DESCRIBE HISTORY {TABLE}", "rule:"),
    (f"UPDATE {TABLE} SET note = 'x' WHERE region = 'US'", "rule: row-policy"),
    (f"MERGE INTO {TABLE} t USING (SELECT 2 AS id) s ON t.id = s.id WHEN MATCHED THEN DELETE", "rule: row-policy"),
]


def test_writes_carry_only_what_the_caller_sees(policy_worker: Worker, alice: APIClient) -> None:
    runs = [_run(alice, f"policy-{i}", script) for i, (script, _) in enumerate(RUNS)]
    for run_id, (script, expected) in zip(runs, RUNS, strict=True):
        done = wait_status(run_id, *TERMINAL_STATUSES)
        detail = alice.get(f"{API}/runs/{run_id}/").json()
        _clean(detail)
        _clean(alice.get(f"{API}/runs/{run_id}/log/").json())
        _clean(alice.get(f"{API}/runs/{run_id}/result/").json())
        if isinstance(expected, list):
            assert done.status == RunStatus.SUCCEEDED, (script, done.error)
            assert done.result["rows"] == expected, script
        else:
            assert done.status == RunStatus.FAILED, script
            assert expected in done.error["message"], done.error
    # what alice wrote is in her tables as she saw it: the team admin reads no canary there either
    admin = token_client(UserFactory._meta.model.objects.get(username="admin"))
    status, answer = _preview(admin, "SELECT * FROM lake.scratch.stolen UNION ALL SELECT id, '', email, note, 0 "
                                     "FROM lake.scratch.sink")
    assert status == 200 and len(answer["rows"]) == 4


def test_the_metadata_browser_keeps_the_row_count(policy_worker: Worker, alice: APIClient) -> None:
    detail = alice.get(f"{API}/catalogs/lake/databases/sales/tables/orders/")
    assert detail.status_code == 200, detail.content
    assert detail.json()["row_count"] is None  # 4 would tell alice how many rows the filter keeps from her
    _clean(detail.json())
    listed = alice.get(f"{API}/row-filters/?table={TABLE}").json()["results"]
    assert [f["expression"] for f in listed] == [None]
