"""What refreshes a materialized view by itself, through a real worker and team engine: its SCHEDULE CRON is a
schedule of its refresh job (created, moved, removed by CREATE/ALTER/DROP; firing it refreshes the view), and
REFRESH ON COMMIT views catch up after a run commits to their sources — cascades in order, a view never triggered
by its own refresh, at most one queued refresh per view."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from deltalake import DeltaTable

from catalogs.models import Catalog, MaterializedView
from catalogs.secrets import seal_configuration
from jobs.models import JobRun, RunStatus, SqlJob
from jobs.services.view_refresh import view_refresh_job
from lakeport_engine.catalog_types.delta import DeltaConfig
from schedules.models import Schedule
from schedules.services.tick import schedules_tick
from schedules.services.view_refresh import view_refresh_request
from teams.models import Role, Team
from tests.jobs.conftest import running_worker, wait_status
from tests.support.servers import wait_until
from tests.support.worker import Worker

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def worker(django_db_setup: Any, django_db_blocker: Any,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[Worker]:
    with running_worker(tmp_path_factory, "mview-triggers-worker", beat=False) as started:
        yield started


def _lake(team: Team, warehouse: Path) -> Catalog:
    (warehouse / "shop").mkdir(parents=True)
    config = DeltaConfig.model_validate({"warehouse": str(warehouse), "default-database": "shop"})
    return Catalog.objects.create(team=team, catalog_type="delta", catalog_name="lake",
                                  configuration=seal_configuration(config))


def _run(client: Any, team: Team, sql: str, status: str = RunStatus.SUCCEEDED) -> JobRun:
    job = SqlJob.objects.create(team=team, name=f"job{SqlJob.objects.count()}", sql=sql)
    response = client.post(f"/api/v1/teams/{team.name}/jobs/{job.id}/runs/", {}, format="json")
    assert response.status_code == 201, response.json()
    done = wait_status(response.json()["id"], RunStatus.SUCCEEDED, RunStatus.FAILED)
    assert done.status == status, done.error
    return done


def _rows(path: Path) -> list[tuple[Any, ...]]:
    return sorted(tuple(r.values()) for r in DeltaTable(str(path)).to_pyarrow_table().to_pylist())


def test_schedule_cron_is_a_schedule_of_the_refresh_job_that_refreshes_the_view(
        worker: Worker, team: Team, client_for: Any, tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    _lake(team, lake)
    dev = client_for(Role.DEVELOPER)
    _run(dev, team, "CREATE TABLE lake.shop.orders (id BIGINT, who STRING, amount BIGINT);\n"
                    "INSERT INTO lake.shop.orders VALUES (1, 'ann', 10), (2, 'bob', 20);\n"
                    "CREATE MATERIALIZED VIEW lake.shop.totals SCHEDULE CRON '*/5 * * * *' AT TIME ZONE "
                    "'Europe/Berlin' AS SELECT who, sum(amount) AS total FROM lake.shop.orders GROUP BY who")
    view = MaterializedView.objects.get(name="totals")
    schedule = Schedule.objects.get(materialized_view=view)
    assert (schedule.cron, schedule.time_zone, schedule.enabled) == ("*/5 * * * *", "Europe/Berlin", True)
    assert schedule.job.sql == "REFRESH MATERIALIZED VIEW `lake`.`shop`.`totals`"
    base = "/api/v1/teams/acme/catalogs/lake/materialized-views/shop/totals/"
    detail = dev.get(base).json()
    assert detail["schedule_id"] == schedule.id and detail["next_refresh"] is not None
    # the view's schedule is one of the team's schedules, listed like any other
    listed = dev.get("/api/v1/teams/acme/schedules/").json()["results"]
    assert [s["name"] for s in listed] == ["refresh lake.shop.totals"]
    described = _run(dev, team, "DESCRIBE MATERIALIZED VIEW lake.shop.totals").result
    assert described is not None
    info = {row[0]: row[1] for row in described["rows"]}
    assert info["next_refresh"] == schedule.next_fire_at.isoformat()
    assert info["refresh"].startswith("SCHEDULE CRON '*/5 * * * *'")

    _run(dev, team, "INSERT INTO lake.shop.orders VALUES (3, 'ann', 5)")
    assert dev.get(base).json()["stale"] is True
    assert schedule.next_fire_at is not None
    report = schedules_tick(now=schedule.next_fire_at)  # the beat's tick at the schedule's next tick
    assert [s for s, _ in report.submitted] == [schedule.id]
    run = JobRun.objects.get(job=schedule.job)
    done = wait_status(run.id, RunStatus.SUCCEEDED, RunStatus.FAILED)
    assert done.status == RunStatus.SUCCEEDED, done.error
    assert _rows(lake / "shop" / "totals") == [("ann", 15), ("bob", 20)]
    detail = dev.get(base).json()
    assert detail["stale"] is False and detail["sources"]["lake.shop.orders"]["reflected"] == 2
    assert [r["id"] for r in dev.get(f"{base}refresh/").json()["results"]] == [run.id]  # the refresh history

    # ALTER moves the same schedule; to manual removes it; DROP removes a view's schedule with it
    _run(dev, team, "ALTER MATERIALIZED VIEW lake.shop.totals SCHEDULE CRON '30 2 * * *'")
    moved = Schedule.objects.get(materialized_view=view)
    assert (moved.id, moved.cron, moved.time_zone) == (schedule.id, "30 2 * * *", "UTC")
    assert moved.next_fire_at is not None and (moved.next_fire_at.hour, moved.next_fire_at.minute) == (2, 30)
    _run(dev, team, "ALTER MATERIALIZED VIEW lake.shop.totals REFRESH MANUAL")
    assert not Schedule.objects.exists()
    assert dev.get(base).json()["next_refresh"] is None
    _run(dev, team, "ALTER MATERIALIZED VIEW lake.shop.totals SCHEDULE CRON '0 * * * *' AT TIME ZONE 'Asia/Tokyo'")
    assert Schedule.objects.get(materialized_view=view).time_zone == "Asia/Tokyo"
    _run(dev, team, "DROP MATERIALIZED VIEW lake.shop.totals")
    assert not Schedule.objects.exists() and not MaterializedView.objects.exists()

    # a schedule the team's schedules refuse fails the statement, and nothing is kept
    other = SqlJob.objects.create(team=team, name="other", sql="SELECT 1")
    Schedule.objects.create(team=team, job=other, name="refresh lake.shop.again", cron="0 0 * * *")
    failed = _run(dev, team, "CREATE MATERIALIZED VIEW lake.shop.again SCHEDULE CRON '0 1 * * *' AS "
                             "SELECT id FROM lake.shop.orders", RunStatus.FAILED)
    assert "SCHEDULE CRON '0 1 * * *' of lake.shop.again" in str(failed.error)
    assert "already exists" in str(failed.error)
    assert not MaterializedView.objects.exists() and not (lake / "shop" / "again").exists()


def test_on_commit_views_catch_up_after_a_run_commits_to_their_sources(
        worker: Worker, team: Team, client_for: Any, tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    _lake(team, lake)
    dev = client_for(Role.DEVELOPER)
    _run(dev, team, "CREATE TABLE lake.shop.orders (id BIGINT, who STRING, amount BIGINT);\n"
                    "INSERT INTO lake.shop.orders VALUES (1, 'ann', 10), (2, 'bob', 20), (3, 'cy', -4);\n"
                    "CREATE MATERIALIZED VIEW lake.shop.paid REFRESH ON COMMIT AS "
                    "SELECT id, who, amount FROM lake.shop.orders WHERE amount > 0;\n"
                    "CREATE MATERIALIZED VIEW lake.shop.totals REFRESH ON COMMIT AS "
                    "SELECT who, count(*) AS n, sum(amount) AS total FROM lake.shop.paid GROUP BY who;\n"
                    "CREATE MATERIALIZED VIEW lake.shop.manual AS SELECT id FROM lake.shop.orders")
    # creating the views committed to them (version 0) and made no refresh: they already reflect their sources
    assert not JobRun.objects.filter(job__name__startswith="refresh ").exists()

    for batch in ("(4, 'ann', 5), (5, 'dan', 1)", "(6, 'bob', -2)", "(7, 'dan', 7), (8, 'eve', 3)"):
        _run(dev, team, f"INSERT INTO lake.shop.orders VALUES {batch}")

    def settled() -> bool:
        if JobRun.objects.filter(job__name__startswith="refresh ",
                                 status__in=(RunStatus.QUEUED, RunStatus.RUNNING)).exists():
            return False
        paid = MaterializedView.objects.get(name="paid")
        totals = MaterializedView.objects.get(name="totals")
        return paid.sources == {"lake.shop.orders": 4} and totals.sources == {"lake.shop.paid": paid.table_version}

    wait_until(settled, what="the ON COMMIT views to reflect the last insert")
    # the oracle: the source as delta-rs reads it, the views' queries computed in Python
    orders = DeltaTable(str(lake / "shop" / "orders")).to_pyarrow_table().to_pylist()
    paid = sorted((o["id"], o["who"], o["amount"]) for o in orders if o["amount"] > 0)
    assert _rows(lake / "shop" / "paid") == paid
    totals: dict[str, list[int]] = {}
    for _, who, amount in paid:
        totals.setdefault(who, [0, 0])
        totals[who] = [totals[who][0] + 1, totals[who][1] + amount]
    assert _rows(lake / "shop" / "totals") == sorted((w, n, t) for w, (n, t) in totals.items())
    # the manual view was not refreshed; at most one refresh per commit (a queued one absorbs later commits), none
    # triggered by its own commit
    assert MaterializedView.objects.get(name="manual").sources == {"lake.shop.orders": 1}
    runs = Counter(JobRun.objects.filter(job__name__startswith="refresh ").values_list("job__name", flat=True))
    assert 1 <= runs["refresh lake.shop.paid"] <= 3 and 1 <= runs["refresh lake.shop.totals"] <= 3
    assert "refresh lake.shop.manual" not in runs
    assert all(r.status == RunStatus.SUCCEEDED for r in JobRun.objects.filter(job__name__startswith="refresh "))
    assert dev.get("/api/v1/teams/acme/catalogs/lake/materialized-views/shop/totals/").json()["stale"] is False


def test_a_commit_during_a_refresh_asks_for_exactly_one_more(team: Team, tmp_path: Path) -> None:
    catalog = _lake(team, tmp_path / "lake")
    view = MaterializedView.objects.create(catalog=catalog, database="shop", name="paid", query="SELECT 1",
                                           refresh_mode="on_commit", sources={"lake.shop.orders": 0})
    job = view_refresh_job(view=view)
    assert view_refresh_request(view=view) == "submitted"
    assert view_refresh_request(view=view) == "queued"  # the queued one will read the new commit: nothing more
    assert JobRun.objects.filter(job=job).count() == 1
    JobRun.objects.filter(job=job).update(status=RunStatus.RUNNING)
    assert view_refresh_request(view=view) == "again"
    assert view_refresh_request(view=view) == "again"
    view.refresh_from_db()
    assert view.refresh_again is True and JobRun.objects.filter(job=job).count() == 1
