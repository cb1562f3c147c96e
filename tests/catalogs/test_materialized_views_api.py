"""Materialized views through the platform: SQL runs on a real worker and team engine keep the definition in
PostgreSQL (asked for over the engine channel, one team's only), the API shows freshness and the last refresh,
and bad input is refused with a message that says why."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from deltalake import DeltaTable

from catalogs.models import Catalog, MaterializedView
from catalogs.secrets import seal_configuration
from jobs.models import JobRun, RunStatus, SqlJob
from lakeport_engine.catalog_types.delta import DeltaConfig
from lakeport_engine.catalog_types.jdbc import JdbcConfig
from teams.models import Role, Team
from tests.jobs.conftest import running_worker, wait_status
from tests.support.worker import Worker

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def worker(django_db_setup: Any, django_db_blocker: Any,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[Worker]:
    with running_worker(tmp_path_factory, "mviews-worker", beat=False) as started:
        yield started


def _delta(team: Team, name: str, warehouse: Path) -> Catalog:
    config = DeltaConfig.model_validate({"warehouse": str(warehouse), "default-database": "shop"})
    return Catalog.objects.create(team=team, catalog_type="delta", catalog_name=name,
                                  configuration=seal_configuration(config))


def _run(client: Any, team: Team, sql: str, status: str = RunStatus.SUCCEEDED) -> JobRun:
    job = SqlJob.objects.create(team=team, name=f"job{SqlJob.objects.count()}", sql=sql)
    response = client.post(f"/api/v1/teams/{team.name}/jobs/{job.id}/runs/", {}, format="json")
    assert response.status_code == 201, response.json()
    done = wait_status(response.json()["id"], RunStatus.SUCCEEDED, RunStatus.FAILED)
    assert done.status == status, done.error
    return done


def test_views_made_by_sql_are_kept_by_the_platform_with_their_freshness(
        worker: Worker, team: Team, other_team: Team, client_for: Any, tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    (lake / "shop").mkdir(parents=True)
    _delta(team, "lake", lake)
    _delta(other_team, "lake", tmp_path / "theirs")
    dev = client_for(Role.DEVELOPER)
    other = client_for(Role.DEVELOPER, in_team=other_team)
    _run(dev, team, "CREATE TABLE lake.shop.orders (id BIGINT, who STRING, amount BIGINT);\n"
                    "INSERT INTO lake.shop.orders VALUES (1, 'ann', 10), (2, 'bob', 20), (3, 'ann', 5);\n"
                    "CREATE MATERIALIZED VIEW lake.shop.totals SCHEDULE CRON '0 * * * *' AS "
                    "SELECT who, count(*) AS n, sum(amount) AS total FROM lake.shop.orders GROUP BY who;\n"
                    "INSERT INTO lake.shop.orders VALUES (4, 'cy', 7)")
    row = MaterializedView.objects.get()
    assert (row.catalog.team, row.database, row.name, row.refresh_mode) == (team, "shop", "totals", "schedule")
    assert row.sources == {"lake.shop.orders": 1}

    base = "/api/v1/teams/acme/catalogs/lake/materialized-views/"
    listed = dev.get(base).json()["results"]
    # `since`: when the first commit the view does not reflect (orders@2) landed, as delta-rs reads its log
    landed = {c["version"]: c["timestamp"] for c in DeltaTable(str(lake / "shop" / "orders")).history()}[2]
    assert [(v["name"], v["stale"], v["sources"]) for v in listed] == [
        ("totals", True, {"lake.shop.orders": {"reflected": 1, "latest": 2, "behind": 1,
                                               "since": datetime.fromtimestamp(landed / 1000, UTC).isoformat()}})]

    viewer = client_for(Role.VIEWER)
    assert viewer.post(f"{base}shop/totals/refresh/").status_code == 403  # viewers read, developers refresh
    queued = dev.post(f"{base}shop/totals/refresh/")
    assert queued.status_code == 201, queued.json()
    done = wait_status(queued.json()["id"], RunStatus.SUCCEEDED, RunStatus.FAILED)
    assert done.status == RunStatus.SUCCEEDED, done.error
    history = dev.get(f"{base}shop/totals/refresh/").json()["results"]
    assert [(r["id"], r["status"]) for r in history] == [(done.id, "SUCCEEDED")]
    lineage = dev.get(f"/api/v1/teams/acme/lineage/runs/{done.id}/").json()  # the refresh run's lineage
    assert [(d["name"], d["version"]) for d in lineage["inputs"]] == [("lake.shop.orders", 2)]
    assert [(d["name"], d["version"]) for d in lineage["outputs"]] == [("lake.shop.totals", 1)]
    detail = dev.get(f"{base}shop/totals/").json()
    assert detail["stale"] is False and detail["last_refresh"]["mode"] == "incremental"
    assert detail["sources"]["lake.shop.orders"] == {"reflected": 2, "latest": 2, "behind": 0, "since": None}
    rows = DeltaTable(str(lake / "shop" / "totals")).to_pyarrow_table().to_pylist()
    assert sorted((r["who"], r["n"], r["total"]) for r in rows) == [("ann", 2, 15), ("bob", 1, 20), ("cy", 1, 7)]

    # a direct write into the view fails the run and says why; the view is unchanged
    failed = _run(dev, team, "INSERT INTO lake.shop.totals VALUES ('eve', 1, 1)", RunStatus.FAILED)
    assert "is a materialized view" in str(failed.error)
    assert DeltaTable(str(lake / "shop" / "totals")).version() == 1  # created (0), refreshed once (1)

    # the other team has a catalog called lake too: acme's view is not there for it, nor over the API
    gone = _run(other, other_team, "REFRESH MATERIALIZED VIEW lake.shop.totals", RunStatus.FAILED)
    assert "does not exist" in str(gone.error)
    assert other.get("/api/v1/teams/globex/catalogs/lake/materialized-views/").json()["results"] == []
    assert other.get("/api/v1/teams/globex/catalogs/lake/materialized-views/shop/totals/").status_code == 404
    assert other.get(f"{base}shop/totals/").status_code in (403, 404)
    assert other.post(f"{base}shop/totals/refresh/").status_code in (403, 404)
    assert other.post("/api/v1/teams/globex/catalogs/lake/materialized-views/shop/totals/refresh/").status_code == 404

    _run(dev, team, "DROP MATERIALIZED VIEW lake.shop.totals")
    assert not MaterializedView.objects.exists()
    assert dev.get(base).json()["results"] == []


def test_the_api_refuses_unknown_and_non_delta_catalogs(team: Team, client_for: Any) -> None:
    config = JdbcConfig.model_validate({"type": "postgresql", "base-url": "jdbc:postgresql://127.0.0.1:5432/",
                                        "default-database": "postgres", "username": "postgres", "password": "pw-x"})
    Catalog.objects.create(team=team, catalog_type="jdbc", catalog_name="pg",
                           configuration=seal_configuration(config))
    viewer = client_for(Role.VIEWER)
    assert viewer.get("/api/v1/teams/acme/catalogs/nope/materialized-views/").status_code == 404
    refused = viewer.get("/api/v1/teams/acme/catalogs/pg/materialized-views/")
    assert refused.status_code == 400
    assert "materialized views live in Delta catalogs" in refused.json()["error"]["message"]
