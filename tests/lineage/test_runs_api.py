"""Lineage through the platform: real runs on a real worker and team engine, stored in PostgreSQL, served by the API.

Two catalogs of one team on one PostgreSQL database meet in one dataset node; a failed run keeps its edges
(marked) and sends FAIL; another team's jobs never show; OpenLineage events go to a file transport and are checked
against the client's spec classes; `snapshot: {"like_run": …}` / `{"as_of": …}` re-reads the earlier Delta versions.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pyarrow as pa
import pytest
from deltalake import DeltaTable, write_deltalake
from django.utils import timezone
from openlineage.client.event_v2 import InputDataset, Job, OutputDataset, Run, RunEvent, RunState

from catalogs.models import Catalog
from catalogs.secrets import seal_configuration
from jobs.models import RunStatus, SqlJob
from lakeport_engine.catalog_types.delta import DeltaConfig
from lakeport_engine.catalog_types.jdbc import JdbcConfig
from teams.models import Role, Team
from tests.jobs.conftest import running_worker, wait_status
from tests.support.worker import Worker

pytestmark = pytest.mark.django_db(transaction=True)
OL_FILE = "ol-events.jsonl"


@pytest.fixture(scope="module")
def ol_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("openlineage")


@pytest.fixture(scope="module")
def worker(django_db_setup: Any, django_db_blocker: Any, tmp_path_factory: pytest.TempPathFactory,
           ol_dir: Path) -> Iterator[Worker]:
    transport = json.dumps({"type": "file", "log_file_path": str(ol_dir / OL_FILE), "append": True})
    with running_worker(tmp_path_factory, "lineage-worker", beat=False,
                        env={"LAKEPORT_OPENLINEAGE_TRANSPORT": transport}) as started:
        yield started


def _pg(team: Team, name: str, database: str) -> Catalog:
    config = JdbcConfig.model_validate({"type": "postgresql", "base-url": "jdbc:postgresql://127.0.0.1:5432/",
                                        "default-database": database, "username": "postgres",
                                        "password": "pg-Lineage-5ecret"})
    return Catalog.objects.create(team=team, catalog_type="jdbc", catalog_name=name,
                                  configuration=seal_configuration(config))


def _delta(team: Team, name: str, warehouse: Path) -> Catalog:
    config = DeltaConfig.model_validate({"warehouse": str(warehouse), "default-database": "sales"})
    return Catalog.objects.create(team=team, catalog_type="delta", catalog_name=name,
                                  configuration=seal_configuration(config))


def _run(client: Any, team: str, job: SqlJob, status: str = RunStatus.SUCCEEDED, **body: Any) -> dict[str, Any]:
    response = client.post(f"/api/v1/teams/{team}/jobs/{job.id}/runs/", body, format="json")
    assert response.status_code == 201, response.json()
    done = wait_status(response.json()["id"], RunStatus.SUCCEEDED, RunStatus.FAILED)
    assert done.status == status, done.error
    return client.get(f"/api/v1/teams/{team}/runs/{done.id}/").json()


def _dataset_id(client: Any, team: str, name: str) -> int:
    found = client.get(f"/api/v1/teams/{team}/lineage/datasets/", {"name": name}).json()
    assert len(found) == 1, found
    return found[0]["id"]


def test_lineage_graph_through_real_runs(worker: Worker, team: Team, other_team: Team, client_for: Any,
                                         pg_source: Any, tmp_path: Path, ol_dir: Path) -> None:
    with psycopg.connect(pg_source.dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE public.orders (id int, customer text, amount numeric(10,2))")
        conn.execute("INSERT INTO public.orders VALUES (1, 'ann', 10.50), (2, 'bob', 20.00), (3, 'ann', 5.25)")
        conn.execute("CREATE TABLE public.summary (customer text, total numeric(20,2))")
        conn.execute("CREATE TABLE public.report (who text, total numeric(20,2))")
        conn.execute("CREATE TABLE public.loot (who text)")
    _pg(team, "pg", pg_source.name)
    _pg(team, "pg_copy", pg_source.name)  # a second catalog of the team on the same database
    _pg(other_team, "theirs", pg_source.name)  # another team's catalog on it too
    dev = client_for(Role.DEVELOPER)
    other = client_for(Role.DEVELOPER, in_team=other_team)

    load = SqlJob.objects.create(team=team, name="load", sql=(
        "INSERT INTO pg.public.summary SELECT customer, sum(amount) FROM pg.public.orders GROUP BY customer"))
    report = SqlJob.objects.create(team=team, name="report", sql=(
        "INSERT INTO pg_copy.public.report SELECT upper(customer), total FROM pg_copy.public.summary"))
    broken = SqlJob.objects.create(team=team, name="broken", sql=(
        "INSERT INTO pg.public.report SELECT customer, amount FROM pg.public.orders;\nSELECT * FROM pg.public.nope"))
    spy = SqlJob.objects.create(team=other_team, name="spy", sql=(
        "INSERT INTO theirs.public.loot SELECT customer FROM theirs.public.summary"))
    first = _run(dev, "acme", load)
    _run(dev, "acme", report)
    failed = _run(dev, "acme", broken, RunStatus.FAILED)
    _run(other, "globex", spy)

    base = "/api/v1/teams/acme/lineage"
    summary = _dataset_id(dev, "acme", "pg.public.summary")
    assert summary == _dataset_id(dev, "acme", "pg_copy.public.summary")  # one node for both catalogs
    detail = dev.get(f"{base}/datasets/{summary}/").json()
    assert detail["aliases"] == ["pg.public.summary", "pg_copy.public.summary"]
    assert (detail["namespace"], detail["physical_name"]) == ("postgres://127.0.0.1:5432",
                                                              f"{pg_source.name}.public.summary")
    assert [j["name"] for j in detail["writers"]] == ["load"] and [j["name"] for j in detail["readers"]] == ["report"]
    assert detail["columns"] == ["customer", "total"]

    orders = _dataset_id(dev, "acme", "pg.public.orders")
    down = dev.get(f"{base}/datasets/{orders}/downstream/", {"depth": 2}).json()
    names = {d["name"] for d in down["datasets"]}
    assert names == {"pg.public.orders", "pg.public.summary", "pg.public.report"}
    assert {j["name"] for j in down["jobs"]} == {"load", "report", "broken"}  # never globex's spy
    failed_edges = [e for e in down["edges"] if e["job"] == broken.id]
    assert failed_edges and all(e["last_status"] == "FAILED" for e in failed_edges)
    impact = dev.get(f"{base}/datasets/{orders}/impact/").json()
    assert [j["name"] for j in impact["jobs"]] == ["broken", "load", "report"]

    up = dev.get(f"{base}/datasets/{_dataset_id(dev, 'acme', 'pg.public.report')}/upstream/", {"depth": 5}).json()
    assert {d["name"] for d in up["datasets"]} == {"pg.public.report", "pg.public.summary", "pg.public.orders"}

    column = dev.get(f"{base}/datasets/{_dataset_id(dev, 'acme', 'pg.public.report')}/columns/total/").json()
    steps = {(e["input_dataset"], e["input_column"], e["kind"], e["job"]["name"]) for e in column["edges"]}
    assert steps == {("pg.public.summary", "total", "identity", "report"),
                     ("pg.public.orders", "amount", "aggregation", "load"),
                     ("pg.public.orders", "amount", "identity", "broken")}

    job = dev.get(f"{base}/jobs/{load.id}/").json()
    assert [d["name"] for d in job["inputs"]] == ["pg.public.orders"]
    assert [d["name"] for d in job["outputs"]] == ["pg.public.summary"]
    run = dev.get(f"{base}/runs/{failed['id']}/").json()
    assert run["status"] == "FAILED" and [d["run_status"] for d in run["outputs"]] == ["FAILED"]

    # the other team: sees the shared table under its own name, only its own job; acme's jobs and runs are 404
    theirs = _dataset_id(other, "globex", "theirs.public.summary")
    assert theirs == summary
    seen = other.get(f"/api/v1/teams/globex/lineage/datasets/{theirs}/").json()
    assert seen["aliases"] == ["theirs.public.summary"]
    assert [j["name"] for j in seen["readers"]] == ["spy"] and seen["writers"] == []
    assert other.get(f"/api/v1/teams/globex/lineage/jobs/{load.id}/").status_code == 404
    assert other.get(f"/api/v1/teams/globex/lineage/runs/{first['id']}/").status_code == 404
    assert other.get(f"/api/v1/teams/globex/lineage/datasets/{orders}/").status_code == 404
    assert "spy" not in json.dumps(dev.get(f"{base}/datasets/{summary}/downstream/", {"depth": 5}).json())

    # OpenLineage: START and COMPLETE/FAIL per run, valid for the client's spec classes, no secret
    lines = (ol_dir / OL_FILE).read_text().splitlines()
    assert "pg-Lineage-5ecret" not in "\n".join(lines)
    events = [json.loads(line) for line in lines]
    by_job: dict[str, list[str]] = {}
    for event in events:
        _check_event(event)
        by_job.setdefault(event["job"]["name"], []).append(event["eventType"])
    assert by_job["load"] == ["START", "COMPLETE"] and by_job["broken"] == ["START", "FAIL"]
    complete = next(e for e in events if e["job"]["name"] == "load" and e["eventType"] == "COMPLETE")
    assert complete["job"]["namespace"] == "lakeport.acme"
    (out,) = complete["outputs"]
    assert (out["namespace"], out["name"]) == ("postgres://127.0.0.1:5432", f"{pg_source.name}.public.summary")
    assert out["facets"]["symlinks"]["identifiers"][0]["name"] == "pg.public.summary"
    total = out["facets"]["columnLineage"]["fields"]["total"]["inputFields"][0]
    assert (total["name"], total["field"]) == (f"{pg_source.name}.public.orders", "amount")
    fail = next(e for e in events if e["job"]["name"] == "broken" and e["eventType"] == "FAIL")
    assert "nope" in fail["run"]["facets"]["errorMessage"]["message"]


def _check_event(event: dict[str, Any]) -> None:
    """Rebuild the event with the client's generated spec classes (their validators check the spec's formats)."""
    RunEvent(eventType=RunState[event["eventType"]], eventTime=event["eventTime"],
             run=Run(runId=event["run"]["runId"]), job=Job(namespace=event["job"]["namespace"],
                                                         name=event["job"]["name"]),
             inputs=[InputDataset(namespace=d["namespace"], name=d["name"]) for d in event["inputs"]],
             outputs=[OutputDataset(namespace=d["namespace"], name=d["name"]) for d in event["outputs"]],
             producer=event["producer"])
    assert event["schemaURL"].startswith("https://openlineage.io/spec/") and "#/$defs/RunEvent" in event["schemaURL"]
    for dataset in [*event["inputs"], *event["outputs"]]:
        for facet in dataset["facets"].values():
            assert facet["_producer"] == event["producer"] and facet["_schemaURL"].startswith(
                "https://openlineage.io/spec/facets/")


def test_like_run_and_as_of_read_the_earlier_delta_versions(worker: Worker, team: Team, client_for: Any,
                                                            tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    table = lake / "sales" / "events"
    write_deltalake(str(table), pa.table({"id": pa.array([1, 2], pa.int64())}))
    _delta(team, "lake", lake)
    dev = client_for(Role.DEVELOPER)
    count = SqlJob.objects.create(team=team, name="count", sql="SELECT count(*) AS n FROM lake.sales.events")

    first = _run(dev, "acme", count)
    before_append = timezone.now()
    write_deltalake(str(table), pa.table({"id": pa.array([3], pa.int64())}), mode="append")

    def rows(run: dict[str, Any]) -> Any:
        return dev.get(f"/api/v1/teams/acme/runs/{run['id']}/result/").json()["rows"]

    assert rows(first) == [[2]]
    again = _run(dev, "acme", count, snapshot={"like_run": first["id"]})
    assert rows(again) == [[2]]
    lineage = dev.get(f"/api/v1/teams/acme/lineage/runs/{again['id']}/").json()
    assert [(d["name"], d["version"]) for d in lineage["inputs"]] == [("lake.sales.events", 0)]
    assert lineage["snapshot"]["like_run"] == first["id"]
    assert rows(_run(dev, "acme", count, snapshot={"as_of": before_append.isoformat()})) == [[2]]
    assert rows(_run(dev, "acme", count)) == [[3]]
    bad = dev.post(f"/api/v1/teams/acme/jobs/{count.id}/runs/", {"snapshot": {"like_run": 999999}}, format="json")
    assert bad.status_code == 400 and "snapshot.like_run" in bad.json()["error"]["details"]


def test_a_run_reads_its_own_delta_writes_and_its_lineage_is_there_when_it_ends(worker: Worker, team: Team,
                                                                                 client_for: Any,
                                                                                 tmp_path: Path) -> None:
    """The issue's script through a real worker: the last count sees both writes; the run's lineage lists the
    versions delta-rs lists for its commits, readable in the same moment `?wait=` answers the run's end."""
    lake = tmp_path / "lake"
    (lake / "shop").mkdir(parents=True)
    _delta(team, "demo_lake", lake)
    dev = client_for(Role.DEVELOPER)
    job = SqlJob.objects.create(team=team, name="ryw", sql=(
        "CREATE TABLE demo_lake.shop.ryw (id BIGINT, v STRING);\n"
        "INSERT INTO demo_lake.shop.ryw VALUES (1, 'a');\n"
        "SELECT count(*) AS n FROM demo_lake.shop.ryw;\n"
        "INSERT INTO demo_lake.shop.ryw VALUES (2, 'b');\n"
        "SELECT count(*) AS n2 FROM demo_lake.shop.ryw"))
    checked = 0
    for _ in range(4):  # a race between the run's end and its lineage would show in one of a few tries
        shutil.rmtree(lake / "shop" / "ryw", ignore_errors=True)
        submitted = dev.post(f"/api/v1/teams/acme/jobs/{job.id}/runs/?wait=30", {}, format="json").json()
        run_id = submitted["id"]
        lineage = dev.get(f"/api/v1/teams/acme/lineage/runs/{run_id}/").json()
        body = dev.get(f"/api/v1/teams/acme/runs/{run_id}/").json()
        if body["status"] != "SUCCEEDED":  # ?wait= answered before the end (a loaded machine): wait it out
            assert wait_status(run_id, RunStatus.SUCCEEDED, RunStatus.FAILED).status == RunStatus.SUCCEEDED
            continue
        assert dev.get(f"/api/v1/teams/acme/runs/{run_id}/result/").json()["rows"] == [[2]]  # the last count
        committed = sorted(d["version"] for d in lineage["outputs"])
        table = DeltaTable(str(lake / "shop" / "ryw"))
        assert committed[-2:] == [table.version() - 1, table.version()]
        assert table.to_pyarrow_table().num_rows == 2
        checked += 1
    assert checked >= 2, "?wait= answered before the run ended in most tries"
