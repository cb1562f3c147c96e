"""OPTIMIZE and VACUUM of a Delta table from the metadata browser's table panel: a team admin queues a run of the
table's maintenance job on a real worker and team engine; the run's result holds Delta's metrics, delta-rs reads
the compacted table with the same rows, the table's maintenance history lists the runs, and bad input is refused
with a message that says why."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from deltalake import DeltaTable

from catalogs.models import Catalog
from catalogs.secrets import seal_configuration
from jobs.models import JobRun, RunStatus, SqlJob
from lakeport_engine.catalog_types.delta import DeltaConfig
from lakeport_engine.catalog_types.jdbc import JdbcConfig
from teams.models import Role, Team
from tests.jobs.conftest import running_worker, wait_status
from tests.support.worker import Worker

pytestmark = pytest.mark.django_db(transaction=True)
BASE = "/api/v1/teams/acme/catalogs/lake/databases/shop/tables/orders/maintenance/"


@pytest.fixture(scope="module")
def worker(django_db_setup: Any, django_db_blocker: Any,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[Worker]:
    with running_worker(tmp_path_factory, "maintenance-worker", beat=False) as started:
        yield started


def _delta(team: Team, name: str, warehouse: Path) -> Catalog:
    config = DeltaConfig.model_validate({"warehouse": str(warehouse), "default-database": "shop"})
    return Catalog.objects.create(team=team, catalog_type="delta", catalog_name=name,
                                  configuration=seal_configuration(config))


def _run(client: Any, team: Team, sql: str) -> JobRun:
    job = SqlJob.objects.create(team=team, name=f"job{SqlJob.objects.count()}", sql=sql)
    response = client.post(f"/api/v1/teams/{team.name}/jobs/{job.id}/runs/", {}, format="json")
    assert response.status_code == 201, response.json()
    done = wait_status(response.json()["id"], RunStatus.SUCCEEDED, RunStatus.FAILED)
    assert done.status == RunStatus.SUCCEEDED, done.error
    return done


def test_an_admin_optimizes_and_vacuums_a_table_from_its_panel(
        worker: Worker, team: Team, other_team: Team, client_for: Any, tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    (lake / "shop").mkdir(parents=True)
    _delta(team, "lake", lake)
    admin, dev, viewer = client_for(Role.ADMIN), client_for(Role.DEVELOPER), client_for(Role.VIEWER)
    _run(dev, team, "CREATE TABLE lake.shop.orders (id BIGINT, who STRING);\n"
                    "INSERT INTO lake.shop.orders VALUES (1, 'ann');\n"
                    "INSERT INTO lake.shop.orders VALUES (2, 'bob');\n"
                    "INSERT INTO lake.shop.orders VALUES (3, 'cy')")
    path = str(lake / "shop" / "orders")
    rows = sorted(DeltaTable(path).to_pyarrow_table().to_pylist(), key=repr)
    assert len(DeltaTable(path).file_uris()) == 3

    assert dev.post(BASE, {"operation": "optimize"}, format="json").status_code == 403  # admins only
    queued = admin.post(BASE, {"operation": "optimize"}, format="json")
    assert queued.status_code == 201, queued.json()
    done = wait_status(queued.json()["id"], RunStatus.SUCCEEDED, RunStatus.FAILED)
    assert done.status == RunStatus.SUCCEEDED, done.error
    result = admin.get(f"/api/v1/teams/acme/runs/{done.id}/result/").json()
    metrics = dict(zip([c["name"] for c in result["columns"]], result["rows"][0], strict=True))["metrics"]
    assert (metrics["numFilesRemoved"], metrics["numFilesAdded"]) == (3, 1)
    table = DeltaTable(path)
    assert table.history(1)[0]["operation"] == "OPTIMIZE" and len(table.file_uris()) == 1
    assert sorted(table.to_pyarrow_table().to_pylist(), key=repr) == rows

    # VACUUM under the retention fails the run, naming the rule; the default retention succeeds
    refused = admin.post(BASE, {"operation": "vacuum", "retain_hours": 0}, format="json")
    assert refused.status_code == 201
    failed = wait_status(refused.json()["id"], RunStatus.SUCCEEDED, RunStatus.FAILED)
    assert failed.status == RunStatus.FAILED
    message = (failed.error or {})["message"]
    assert message.startswith("VACUUM lake.shop.orders RETAIN 0 HOURS") and "deletedFileRetentionDuration" in message
    vacuumed = admin.post(BASE, {"operation": "vacuum"}, format="json")
    assert wait_status(vacuumed.json()["id"], RunStatus.SUCCEEDED, RunStatus.FAILED).status == RunStatus.SUCCEEDED

    history = viewer.get(BASE).json()["results"]  # every member reads the table's maintenance runs
    assert [r["id"] for r in history] == [vacuumed.json()["id"], refused.json()["id"], done.id]

    # another team's admin cannot reach this table through their team or this one
    other = client_for(Role.ADMIN, in_team=other_team)
    assert other.post(BASE, {"operation": "optimize"}, format="json").status_code in (403, 404)
    assert other.post(BASE.replace("/acme/", "/globex/"), {"operation": "optimize"},
                      format="json").status_code == 404


@pytest.mark.parametrize(("url", "body", "status", "text"), [
    (BASE, {"operation": "analyze"}, 400, "operation"),
    (BASE, {}, 400, "operation"),
    (BASE, {"operation": "optimize", "retain_hours": 5}, 400, "VACUUM only"),
    (BASE, {"operation": "vacuum", "retain_hours": -1}, 400, "retain_hours"),
    (BASE.replace("/orders/", "/bad%60name/"), {"operation": "optimize"}, 400, "not a valid table name"),
    (BASE.replace("/lake/", "/nope/"), {"operation": "optimize"}, 404, "No catalog 'nope'"),
    (BASE.replace("/lake/", "/pg/"), {"operation": "optimize"}, 400, "run on Delta catalogs"),
])
def test_bad_requests_are_refused_with_the_reason(team: Team, client_for: Any, tmp_path: Path, url: str,
                                                  body: dict[str, Any], status: int, text: str) -> None:
    _delta(team, "lake", tmp_path / "lake")
    config = JdbcConfig.model_validate({"type": "postgresql", "base-url": "jdbc:postgresql://127.0.0.1:5432/",
                                        "default-database": "postgres", "username": "postgres", "password": "pw-x"})
    Catalog.objects.create(team=team, catalog_type="jdbc", catalog_name="pg", configuration=seal_configuration(config))
    response = client_for(Role.ADMIN).post(url, body, format="json")
    assert response.status_code == status, response.content
    assert text in response.content.decode()
    assert not JobRun.objects.exists()
