"""`snapshot: {"consistent": true}` through a real worker and team engine (seed 001's V11/V21/V31).

A base table, a view over it and a view over that view, refreshed at different moments with base commits in
between: a run joining the three with `consistent: true` reads versions that reflect one base version (its rows
equal a recompute from the base read with delta-rs at that version), and records them in its lineage snapshot; a
two-statement script is one cut over both statements' tables;
the same run without it reads the newest of each, which disagree. A view that itself reflects two base versions
fails a consistent run naming it; bad `consistent` values are a 400.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from deltalake import DeltaTable

from catalogs.models import Catalog
from catalogs.secrets import seal_configuration
from jobs.models import JobRun, RunStatus, SqlJob
from lakeport_engine.catalog_types.delta import DeltaConfig
from teams.models import Role, Team
from tests.jobs.conftest import running_worker, wait_status
from tests.support.worker import Worker

pytestmark = pytest.mark.django_db(transaction=True)

SETUP = """
CREATE TABLE lake.sales.orders (id BIGINT, amount BIGINT);
INSERT INTO lake.sales.orders VALUES (1, 10), (2, -5);
CREATE MATERIALIZED VIEW lake.sales.mv1 AS SELECT id, amount FROM lake.sales.orders WHERE amount > 0;
CREATE MATERIALIZED VIEW lake.sales.mv2 AS SELECT count(*) AS n, sum(amount) AS total FROM lake.sales.mv1;
INSERT INTO lake.sales.orders VALUES (3, 7);
REFRESH MATERIALIZED VIEW lake.sales.mv1;
INSERT INTO lake.sales.orders VALUES (4, 100), (5, -1);
REFRESH MATERIALIZED VIEW lake.sales.mv2;
REFRESH MATERIALIZED VIEW lake.sales.mv1;
INSERT INTO lake.sales.orders VALUES (6, 1000);
CREATE MATERIALIZED VIEW lake.sales.mv3 AS SELECT a.n AS n1, b.n AS n2
  FROM (SELECT count(*) AS n FROM lake.sales.mv1) a CROSS JOIN lake.sales.mv2 b
"""

JOIN = """
SELECT b.n AS base_n, b.total AS base_total, b.kept AS base_kept, v1.n AS mv1_n, v1.total AS mv1_total,
       v2.n AS mv2_n, v2.total AS mv2_total
FROM (SELECT count(*) AS n, sum(amount) AS total, sum(CASE WHEN amount > 0 THEN amount END) AS kept
      FROM lake.sales.orders) b
CROSS JOIN (SELECT count(*) AS n, sum(amount) AS total FROM lake.sales.mv1) v1
CROSS JOIN lake.sales.mv2 v2
"""


@pytest.fixture(scope="module")
def worker(django_db_setup: Any, django_db_blocker: Any,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[Worker]:
    with running_worker(tmp_path_factory, "consistent-reads-worker", beat=False) as started:
        yield started


def _run(client: Any, team: Team, sql: str, status: str = RunStatus.SUCCEEDED, **body: Any) -> JobRun:
    job = SqlJob.objects.create(team=team, name=f"job{SqlJob.objects.count()}", sql=sql)
    response = client.post(f"/api/v1/teams/{team.name}/jobs/{job.id}/runs/", body, format="json")
    assert response.status_code == 201, response.json()
    done = wait_status(response.json()["id"], RunStatus.SUCCEEDED, RunStatus.FAILED)
    assert done.status == status, done.error
    return done


def _row(client: Any, run: JobRun) -> dict[str, Any]:
    result = client.get(f"/api/v1/teams/acme/runs/{run.id}/result/").json()
    assert len(result["rows"]) == 1, result
    return dict(zip([c["name"] if isinstance(c, dict) else c for c in result["columns"]], result["rows"][0],
                    strict=True))


def _recompute(orders: Path, version: int) -> dict[str, int]:
    """The pipeline's numbers from the base table alone, read with delta-rs at `version`."""
    amounts = [r["amount"] for r in DeltaTable(str(orders), version=version).to_pyarrow_table().to_pylist()]
    kept = [a for a in amounts if a > 0]
    return {"base_n": len(amounts), "base_total": sum(amounts), "base_kept": sum(kept),
            "mv1_n": len(kept), "mv1_total": sum(kept), "mv2_n": len(kept), "mv2_total": sum(kept)}


def test_consistent_snapshot_reads_one_cut_of_the_pipeline(worker: Worker, team: Team, client_for: Any,
                                                           tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    (lake / "sales").mkdir(parents=True)
    config = DeltaConfig.model_validate({"warehouse": str(lake), "default-database": "sales"})
    Catalog.objects.create(team=team, catalog_type="delta", catalog_name="lake",
                           configuration=seal_configuration(config))
    dev = client_for(Role.DEVELOPER)
    _run(dev, team, SETUP)
    orders = lake / "sales" / "orders"
    assert DeltaTable(str(orders)).version() == 4

    _check_freshness_in_the_lineage_graph(dev, lake)

    consistent = _run(dev, team, JOIN, snapshot={"consistent": True})
    got = _row(dev, consistent)
    # mv2's newest version reflects mv1@1, which reflects orders@2: the cut is orders@2, mv1@1, mv2@1
    assert got == _recompute(orders, 2), got
    lineage = dev.get(f"/api/v1/teams/acme/lineage/runs/{consistent.id}/").json()
    read = {d["name"]: d["version"] for d in lineage["inputs"]}
    assert read == {"lake.sales.orders": 2, "lake.sales.mv1": 1, "lake.sales.mv2": 1}, read
    snapshot = lineage["snapshot"]
    assert snapshot["consistent"] is True
    assert sorted(snapshot["versions"].values()) == [1, 1, 2] and len(snapshot["versions"]) == 3, snapshot

    # the editor's preview takes the same switch, and reads the same cut; without it, the newest of each
    preview = dev.post("/api/v1/teams/acme/sql/preview/", {"sql": JOIN, "snapshot": {"consistent": True}},
                       format="json")
    assert preview.status_code == 200, preview.json()
    body = preview.json()
    assert [dict(zip([c["name"] for c in body["columns"]], r, strict=True)) for r in body["rows"]] == [
        _recompute(orders, 2)], body
    plain_preview = dev.post("/api/v1/teams/acme/sql/preview/", {"sql": JOIN}, format="json").json()
    assert dict(zip([c["name"] for c in plain_preview["columns"]], plain_preview["rows"][0], strict=True))["base_n"] == 6
    for bad in ({"consistent": False}, {"consistent": True, "as_of": "2026-01-01T00:00:00Z"}, {"like_run": 1}):
        refused = dev.post("/api/v1/teams/acme/sql/preview/", {"sql": JOIN, "snapshot": bad}, format="json")
        assert refused.status_code == 400 and "snapshot" in str(refused.json()["error"]["details"]), refused.json()

    # the cut covers every statement of the script: the first one, reading only the base, already reads it at the
    # version the second one's view reflects (statement by statement, orders@4 would leave mv2 no version to agree)
    two = _run(dev, team, "SELECT count(*) AS n FROM lake.sales.orders;\nSELECT n, total FROM lake.sales.mv2",
               snapshot={"consistent": True})
    lineage = dev.get(f"/api/v1/teams/acme/lineage/runs/{two.id}/").json()
    assert [(d["name"], d["statement"], d["version"]) for d in lineage["inputs"]] == [
        ("lake.sales.orders", 0, 2), ("lake.sales.mv2", 1, 1)], lineage["inputs"]

    plain = _row(dev, _run(dev, team, JOIN))
    newest = _recompute(orders, 4)
    assert (plain["base_n"], plain["base_total"]) == (newest["base_n"], newest["base_total"])
    assert (plain["mv1_n"], plain["mv1_total"]) == (_recompute(orders, 3)["mv1_n"], _recompute(orders, 3)["mv1_total"])
    assert (plain["mv2_n"], plain["mv2_total"]) == (2, 17)
    # without the switch the three disagree: the invariants of one cut do not hold
    assert plain["base_kept"] != plain["mv1_total"] and plain["mv1_total"] != plain["mv2_total"]

    # mv3 was computed from mv1 (orders@3) and mv2 (orders@2): no version of it reflects one base version
    failed = _run(dev, team, "SELECT * FROM lake.sales.mv3", RunStatus.FAILED, snapshot={"consistent": True})
    message = failed.error["message"]
    assert "lake.sales.mv3" in message and '"consistent": true' in message, message
    assert "Traceback" not in message and "at org.apache" not in message
    assert _run(dev, team, "SELECT * FROM lake.sales.mv3").status == RunStatus.SUCCEEDED

    for bad in ({"consistent": False}, {"consistent": "yes"}, {"consistent": True, "as_of": "2026-01-01T00:00:00Z"}):
        job = SqlJob.objects.filter(team=team).first()
        assert job is not None
        response = dev.post(f"/api/v1/teams/acme/jobs/{job.id}/runs/", {"snapshot": bad}, format="json")
        assert response.status_code == 400, (bad, response.json())
        assert "snapshot" in str(response.json()["error"]["details"])


def _check_freshness_in_the_lineage_graph(client: Any, lake: Path) -> None:
    """The lineage graph marks each view fresh or stale, with how far behind (versions, and since when: the first
    source commit it does not reflect, as delta-rs reads it); a plain table is not marked."""
    def history(table: str) -> dict[int, int]:
        return {int(c["version"]): int(c["timestamp"]) for c in DeltaTable(str(lake / "sales" / table)).history()}

    found = client.get("/api/v1/teams/acme/lineage/datasets/?name=lake.sales.mv3").json()
    assert len(found) == 1, found
    graph = client.get(f"/api/v1/teams/acme/lineage/datasets/{found[0]['id']}/upstream/?depth=3").json()
    marked = {d["name"]: d["view"] for d in graph["datasets"]}
    assert marked["lake.sales.orders"] is None
    # mv1 reflects orders@3 (latest 4), mv2 mv1@1 (latest 2); mv3 was created last, over both as they are
    for name, source, reflected, latest in (("mv1", "orders", 3, 4), ("mv2", "mv1", 1, 2)):
        view = marked[f"lake.sales.{name}"]
        assert view is not None and view["stale"] is True and view["behind"] == latest - reflected, view
        since = history(source)[reflected + 1] / 1000
        assert view["sources"] == [{"name": f"lake.sales.{source}", "reflected": reflected, "latest": latest,
                                    "behind": latest - reflected, "since": view["sources"][0]["since"]}], view
        assert abs(dt.datetime.fromisoformat(view["stale_since"]).timestamp() - since) < 0.002, (view, since)
    mv3 = marked["lake.sales.mv3"]
    assert mv3 is not None and mv3["stale"] is False and mv3["behind"] == 0 and mv3["stale_since"] is None, mv3
    assert {s["name"]: s["reflected"] for s in mv3["sources"]} == {"lake.sales.mv1": 2, "lake.sales.mv2": 1}


PLAIN_JOB = """
CREATE TABLE lake.sales.orders (id BIGINT, amount BIGINT);
INSERT INTO lake.sales.orders VALUES (1, 10), (2, -5);
CREATE TABLE lake.sales.paid AS SELECT id, amount FROM lake.sales.orders WHERE amount > 0;
INSERT INTO lake.sales.orders VALUES (3, 7), (4, -2);
INSERT INTO lake.sales.paid SELECT id, amount FROM lake.sales.orders
  WHERE amount > 0 AND id > (SELECT max(id) FROM lake.sales.paid);
INSERT INTO lake.sales.orders VALUES (5, 30)
"""

PAID = """
SELECT o.kept, p.total AS paid_total{extra}
FROM (SELECT sum(CASE WHEN amount > 0 THEN amount END) AS kept FROM lake.sales.orders) o
CROSS JOIN (SELECT sum(amount) AS total FROM lake.sales.paid) p{join}
"""


def test_a_table_written_by_a_plain_job_is_traced_to_the_versions_it_read(worker: Worker, team: Team,
                                                                          client_for: Any, tmp_path: Path) -> None:
    """`paid` is derived from `orders` only by plain statements (CTAS, INSERT … SELECT reading new rows, INSERT
    OVERWRITE): each of its commits records the version of `orders` it read, so a consistent read pairs them."""
    lake = tmp_path / "lake"
    (lake / "sales").mkdir(parents=True)
    config = DeltaConfig.model_validate({"warehouse": str(lake), "default-database": "sales"})
    Catalog.objects.create(team=team, catalog_type="delta", catalog_name="lake",
                           configuration=seal_configuration(config))
    dev = client_for(Role.DEVELOPER)
    _run(dev, team, PLAIN_JOB)
    paid, orders = DeltaTable(str(lake / "sales" / "paid")), lake / "sales" / "orders"
    assert [c.get("lakeport.job.sources") for c in paid.history()] == [
        '{"lake.sales.orders": 2}', '{"lake.sales.orders": 1}']  # newest first: the append read orders@2

    def kept(version: int) -> int:
        return sum(r["amount"] for r in DeltaTable(str(orders), version=version).to_pyarrow_table().to_pylist()
                   if r["amount"] > 0)

    query = PAID.format(extra="", join="")
    consistent = _run(dev, team, query, snapshot={"consistent": True})
    assert _row(dev, consistent) == {"kept": kept(2), "paid_total": kept(2)}  # 17: orders@2 with paid@1
    read = {d["name"]: d["version"] for d in dev.get(f"/api/v1/teams/acme/lineage/runs/{consistent.id}/")
            .json()["inputs"]}
    assert read == {"lake.sales.orders": 2, "lake.sales.paid": 1}, read
    plain = _row(dev, _run(dev, team, query))
    assert plain == {"kept": kept(3), "paid_total": kept(2)}  # 47 against 17: the plain read breaks the invariant

    # an overwrite reflects what it read; a view over the job's table reaches `orders` through it
    _run(dev, team, "INSERT OVERWRITE lake.sales.paid SELECT id, amount FROM lake.sales.orders WHERE amount > 0;\n"
                    "CREATE MATERIALIZED VIEW lake.sales.paid_sum AS SELECT sum(amount) AS s FROM lake.sales.paid;\n"
                    "INSERT INTO lake.sales.orders VALUES (6, 100);\n"
                    "INSERT INTO lake.sales.paid SELECT id, amount FROM lake.sales.orders\n"
                    "  WHERE amount > 0 AND id > (SELECT max(id) FROM lake.sales.paid)")
    three = PAID.format(extra=", v.s AS view_total", join=" CROSS JOIN lake.sales.paid_sum v")
    got = _row(dev, _run(dev, team, three, snapshot={"consistent": True}))
    assert got == {"kept": kept(3), "paid_total": kept(3), "view_total": kept(3)}, got  # 47: paid@2, paid_sum@0
    plain_three = _row(dev, _run(dev, team, three))
    assert plain_three == {"kept": kept(4), "paid_total": kept(4), "view_total": kept(3)}, plain_three
