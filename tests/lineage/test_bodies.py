"""Lineage, run log and run result bodies are what the OpenAPI schema says, key for key, on a graph stored directly.

The bodies are serialized by the serializers the schema is generated from; these tests fail if a view goes back to
a hand-built dict that adds, drops or renames a key, and pin the values an integrator reads (order included).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from catalogs.models import Catalog
from jobs.models import JobRun, JobRunLogLine, RunStatus, SqlJob
from lineage.models import ColumnEdge, Dataset, DatasetAlias, Direction, JobEdge, RunEdge, RunSnapshot
from teams.models import Team
from tests.support.schema import conforms, response_schema

UTC = dt.UTC


@pytest.fixture
def graph(team: Team) -> dict[str, Any]:
    """t0 → job0 → t1 → job1 → t2 → job2 → t3, column `c` copied along; t0 and t2 have a second name."""
    catalog = Catalog.objects.create(team=team, catalog_type="jdbc", catalog_name="pg", configuration="{}")
    ds = [Dataset.objects.create(namespace="postgres://h:5432", name=f"db.s.t{i}", kind="jdbc-postgresql")
          for i in range(5)]
    for i, d in enumerate(ds):
        DatasetAlias.objects.create(dataset=d, team=team, catalog=catalog, name=f"pg.s.t{i}")
        if i % 2 == 0:
            DatasetAlias.objects.create(dataset=d, team=team, catalog=catalog, name=f"pg.a.t{i}")
    jobs = [SqlJob.objects.create(team=team, name=f"job{i}", sql="SELECT 1") for i in range(3)]
    run = JobRun.objects.create(job=jobs[0], team=team, sql="SELECT 1", status=RunStatus.SUCCEEDED,
                                finished_at=timezone.now(), result={"columns": [{"name": "a", "type": "int"}],
                                                                    "rows": [[1], [None]], "truncated": True})
    running = JobRun.objects.create(job=jobs[1], team=team, sql="SELECT 1", status=RunStatus.RUNNING)
    for j in range(3):
        JobEdge.objects.create(job=jobs[j], team=team, dataset=ds[j], direction=Direction.IN,
                               last_run=run if j == 0 else None, last_status="SUCCEEDED")
        JobEdge.objects.create(job=jobs[j], team=team, dataset=ds[j + 1], direction=Direction.OUT,
                               last_status="FAILED")
        ColumnEdge.objects.create(job=jobs[j], team=team, dataset=ds[j + 1], column="c", input_dataset=ds[j],
                                  input_column="c", kind="identity")
    RunEdge.objects.create(run=run, job=jobs[0], team=team, dataset=ds[0], direction=Direction.IN, statement=0,
                           version=3, run_status="SUCCEEDED")
    RunEdge.objects.create(run=run, job=jobs[0], team=team, dataset=ds[1], direction=Direction.OUT, statement=1,
                           run_status="SUCCEEDED")
    RunSnapshot.objects.create(run=run, as_of=dt.datetime(2026, 1, 1, tzinfo=UTC), like_run=running,
                               versions={"file:/w/t0": 3})
    for seq in range(3):
        JobRunLogLine.objects.create(run=run, seq=seq, message=f"line {seq}",
                                     ts=dt.datetime(2026, 1, 2, 3, 4, 5, 1000 * seq, tzinfo=UTC))
    return {"ds": [d.id for d in ds], "jobs": [j.id for j in jobs], "run": run.id, "running": running.id}


def test_every_body_has_exactly_the_keys_its_schema_names(schema: dict[str, Any], graph: dict[str, Any],
                                                          team: Team, client_for: Callable[..., APIClient]) -> None:
    client = client_for("viewer")
    d0, d1 = graph["ds"][:2]
    urls = ["lineage/datasets/", "lineage/datasets/?q=t1", f"lineage/datasets/{d1}/",
            f"lineage/datasets/{d0}/downstream/", f"lineage/datasets/{d1}/upstream/?depth=1",
            f"lineage/datasets/{d0}/impact/", f"lineage/datasets/{graph['ds'][3]}/columns/c/",
            f"lineage/jobs/{graph['jobs'][0]}/", f"lineage/runs/{graph['run']}/", f"lineage/runs/{graph['running']}/",
            f"runs/{graph['run']}/log/", f"runs/{graph['run']}/result/"]
    for url in urls:
        response = client.get(f"/api/v1/teams/{team.name}/{url}")
        assert response.status_code == 200, (url, response.content)
        assert conforms(response.json(), response_schema(schema, f"/api/v1/teams/{{team}}/{url}"), schema) == [], url


def test_bodies_carry_the_graph_in_order(graph: dict[str, Any], team: Team,
                                         client_for: Callable[..., APIClient]) -> None:
    client = client_for("viewer")
    base = f"/api/v1/teams/{team.name}/lineage/"
    d0, d1, d2, d3, _ = graph["ds"]
    j0, j1, j2 = graph["jobs"]

    detail = client.get(f"{base}datasets/{d2}/").json()
    assert detail == {"id": d2, "name": "pg.a.t2", "aliases": ["pg.a.t2", "pg.s.t2"],
                      "namespace": "postgres://h:5432", "physical_name": "db.s.t2", "kind": "jdbc-postgresql",
                      "columns": ["c"], "writers": [{"id": j1, "name": "job1"}], "readers": [{"id": j2, "name": "job2"}]}

    down = client.get(f"{base}datasets/{d0}/downstream/?depth=2").json()
    assert (down["start"], down["direction"], down["depth"]) == (d0, "downstream", 2)
    assert sorted((d["id"], d["depth"]) for d in down["datasets"]) == [(d0, 0), (d1, 1), (d2, 2)]
    assert sorted(j["id"] for j in down["jobs"]) == [j0, j1]
    assert {"job": j0, "dataset": d0, "direction": "in", "last_run": graph["run"],
            "last_status": "SUCCEEDED"} in down["edges"]

    impact = client.get(f"{base}datasets/{d0}/impact/").json()
    assert impact["dataset"]["id"] == d0 and impact["dataset"]["depth"] == 0
    assert [d["id"] for d in impact["datasets"]] == [d1, d2, d3]  # by depth, then name
    assert [j["name"] for j in impact["jobs"]] == ["job0", "job1", "job2"]

    column = client.get(f"{base}datasets/{d3}/columns/c/").json()
    assert column["dataset"]["name"] == "pg.s.t3" and column["column"] == "c"
    assert [(e["dataset"], e["input_dataset"], e["job"]["name"], e["depth"]) for e in column["edges"]] == [
        ("pg.s.t3", "pg.a.t2", "job2", 1), ("pg.a.t2", "pg.s.t1", "job1", 2), ("pg.s.t1", "pg.a.t0", "job0", 3)]

    run = client.get(f"{base}runs/{graph['run']}/").json()
    assert [(d["id"], d["statement"], d["version"]) for d in run["inputs"]] == [(d0, 0, 3)]
    assert [(d["id"], d["statement"], d["version"]) for d in run["outputs"]] == [(d1, 1, None)]
    assert run["snapshot"] == {"as_of": "2026-01-01T00:00:00Z", "like_run": graph["running"],
                               "versions": {"file:/w/t0": 3}, "consistent": False}
    assert client.get(f"{base}runs/{graph['running']}/").json()["snapshot"] is None


def test_run_log_and_result_bodies(graph: dict[str, Any], team: Team, client_for: Callable[..., APIClient]) -> None:
    client = client_for("viewer")
    runs = f"/api/v1/teams/{team.name}/runs/"
    log = client.get(f"{runs}{graph['run']}/log/?offset=1").json()
    assert log == {"offset": 1, "next_offset": 3, "finished": True, "status": "SUCCEEDED", "lines": [
        {"seq": 1, "ts": "2026-01-02T03:04:05.001000Z", "level": "INFO", "message": "line 1"},
        {"seq": 2, "ts": "2026-01-02T03:04:05.002000Z", "level": "INFO", "message": "line 2"}]}
    assert client.get(f"{runs}{graph['running']}/log/").json()["status"] == "RUNNING"
    assert client.get(f"{runs}{graph['run']}/result/").json() == {
        "columns": [{"name": "a", "type": "int"}], "rows": [[1], [None]], "truncated": True}
    unfinished = client.get(f"{runs}{graph['running']}/result/")
    assert unfinished.status_code == 409 and unfinished.json()["error"]["code"] == "conflict"
