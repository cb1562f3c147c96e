"""`apply -f` documents that declare materialized views (a `query` in their `materialized_views` entries), through a
real worker and team engine: a document creates views (rows equal to the query recomputed with delta-rs over the
source), applying it again changes nothing, a changed query redefines the view, prune drops the views documents
made (never one made by SQL), dry runs run nothing, and a bad query is a 400 naming the view with nothing of the
document kept — judged by the CREATE statement's own rules (unknown column, `rand()`, another team's catalog)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from deltalake import DeltaTable

from catalogs.models import Catalog, MaterializedView
from catalogs.secrets import seal_configuration
from declarative.views import APPLY_JOB
from jobs.models import JobRun, RunStatus, SqlJob
from lakeport_engine.catalog_types.delta import DeltaConfig
from schedules.models import Schedule
from teams.models import Role, Team
from tests.jobs.conftest import running_worker, wait_status
from tests.support.worker import Worker

pytestmark = pytest.mark.django_db(transaction=True)
API = "/api/v1/teams/acme/apply/"


@pytest.fixture(scope="module")
def worker(django_db_setup: Any, django_db_blocker: Any,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[Worker]:
    with running_worker(tmp_path_factory, "apply-views-worker", beat=False) as started:
        yield started


def _run(client: Any, team: Team, sql: str) -> JobRun:
    job = SqlJob.objects.create(team=team, name=f"job{SqlJob.objects.count()}", sql=sql)
    response = client.post(f"/api/v1/teams/{team.name}/jobs/{job.id}/runs/", {}, format="json")
    assert response.status_code == 201, response.json()
    done = wait_status(response.json()["id"], RunStatus.SUCCEEDED, RunStatus.FAILED)
    assert done.status == RunStatus.SUCCEEDED, done.error
    return done


def _rows(path: Path) -> list[tuple[Any, ...]]:
    return sorted(tuple(r.values()) for r in DeltaTable(str(path)).to_pyarrow_table().to_pylist())


def _apply_runs() -> int:
    return JobRun.objects.filter(job__name=APPLY_JOB).count()


def test_a_document_creates_changes_and_prunes_views(worker: Worker, team: Team, client_for: Any,
                                                     tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    (lake / "shop").mkdir(parents=True)
    config = DeltaConfig.model_validate({"warehouse": str(lake), "default-database": "shop"})
    Catalog.objects.create(team=team, catalog_type="delta", catalog_name="lake",
                           configuration=seal_configuration(config))
    admin = client_for(Role.ADMIN)
    rng = random.Random(7)
    values = ", ".join(f"({i}, '{rng.choice('abc')}', {rng.randint(-20, 50)})" for i in range(60))
    _run(admin, team, "CREATE TABLE lake.shop.orders (id BIGINT, who STRING, amount BIGINT);\n"
                      f"INSERT INTO lake.shop.orders VALUES {values};\n"
                      "CREATE MATERIALIZED VIEW lake.shop.by_sql AS SELECT id FROM lake.shop.orders")
    orders = DeltaTable(str(lake / "shop" / "orders")).to_pyarrow_table().to_pylist()

    def paid(floor: int) -> list[tuple[Any, ...]]:
        return sorted((o["id"], o["amount"]) for o in orders if o["amount"] > floor)

    def totals() -> list[tuple[Any, ...]]:
        by: dict[str, list[int]] = {}
        for o in orders:
            by.setdefault(o["who"], []).append(o["amount"])
        return sorted((w, len(a), sum(a)) for w, a in by.items())

    doc: dict[str, Any] = {"materialized_views": [
        {"name": "lake.shop.paid", "query": "SELECT id, amount FROM lake.shop.orders WHERE amount > 0",
         "refresh": "on_commit"},
        {"name": "lake.shop.totals", "query": "SELECT who, count(*) AS n, sum(amount) AS total\n"
                                              "FROM lake.shop.orders GROUP BY who;",
         "partitioned_by": ["who"], "refresh": "schedule", "cron": "0 * * * *", "time_zone": "Europe/Berlin"},
    ]}
    # a dry run reports what would be made and runs nothing
    dry = admin.post(API + "?dry_run=1", doc, format="json")
    assert dry.status_code == 200, dry.json()
    assert dry.json()["materialized_views"]["created"] == ["lake.shop.paid", "lake.shop.totals"]
    assert _apply_runs() == 0 and not MaterializedView.objects.filter(name="paid").exists()

    made = admin.post(API, doc, format="json")
    assert made.status_code == 200, made.json()
    assert made.json()["materialized_views"]["created"] == ["lake.shop.paid", "lake.shop.totals"]
    assert _rows(lake / "shop" / "paid") == paid(0)
    assert _rows(lake / "shop" / "totals") == totals()
    views = {v.name: v for v in MaterializedView.objects.all()}
    assert views["paid"].refresh_mode == "on_commit" and views["totals"].partition_by == ["who"]
    schedule = Schedule.objects.get(materialized_view=views["totals"])
    assert (schedule.cron, schedule.time_zone) == ("0 * * * *", "Europe/Berlin")
    assert set(views) == {"paid", "totals", "by_sql"}  # the check's scratch views are gone, data and definition
    assert sorted(p.name for p in (lake / "shop").iterdir()) == ["by_sql", "orders", "paid", "totals"]
    runs = _apply_runs()
    assert runs == 2  # the check, then the apply

    again = admin.post(API, doc, format="json")
    assert again.status_code == 200, again.json()
    assert again.json()["materialized_views"]["unchanged"] == ["lake.shop.paid", "lake.shop.totals"]
    assert _apply_runs() == runs  # nothing to compute

    doc["materialized_views"][0]["query"] = "SELECT id, amount FROM lake.shop.orders WHERE amount > 10"
    changed = admin.post(API, doc, format="json")
    assert changed.status_code == 200, changed.json()
    assert changed.json()["materialized_views"] == {"created": [], "updated": ["lake.shop.paid"], "deleted": [],
                                                    "unchanged": ["lake.shop.totals"]}
    assert _rows(lake / "shop" / "paid") == paid(10)
    assert MaterializedView.objects.get(name="paid").refresh_mode == "on_commit"

    # bad queries: a 400 naming the view, by the statement's own rules; nothing of the document is kept
    before = {v.name: (v.query, v.declared, v.table_version) for v in MaterializedView.objects.all()}
    for query, message in (("SELECT id, nope FROM lake.shop.orders", "nope"),
                           ("SELECT id, rand() AS r FROM lake.shop.orders", "rand"),
                           ("SELECT id FROM other.shop.orders", "other"),
                           ("SELECT 1; DROP TABLE lake.shop.orders", "one statement")):
        bad = {"jobs": [{"name": "kept-not", "sql": "SELECT 1"}], "materialized_views": [
            *doc["materialized_views"], {"name": "lake.shop.broken", "query": query}]}
        response = admin.post(API, bad, format="json")
        assert response.status_code == 400, (query, response.json())
        error = response.json()["error"]["message"]
        assert "lake.shop.broken" in error and message in error.lower(), (query, error)
        assert "Traceback" not in error and "at org.apache" not in error
        assert not SqlJob.objects.filter(name="kept-not").exists()
        assert {v.name: (v.query, v.declared, v.table_version) for v in MaterializedView.objects.all()} == before
        assert not (lake / "shop" / "broken").exists()
        assert not any(p.name.startswith("lakeport_apply_check") for p in (lake / "shop").iterdir())

    # prune drops the views a document made and no longer lists; the one made by SQL stays
    pruned = admin.post(API + "?prune=1", {"materialized_views": [doc["materialized_views"][1]]}, format="json")
    assert pruned.status_code == 200, pruned.json()
    assert pruned.json()["materialized_views"]["deleted"] == ["lake.shop.paid"]
    assert sorted(MaterializedView.objects.values_list("name", flat=True)) == ["by_sql", "totals"]
    assert not (lake / "shop" / "paid").exists()
    # a prune of the jobs section keeps the job that applies the views
    assert admin.post(API + "?prune=1", {"jobs": []}, format="json").status_code == 200
    assert SqlJob.objects.filter(name=APPLY_JOB).exists()
