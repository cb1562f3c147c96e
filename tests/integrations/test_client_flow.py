"""A REST integration's provisioning flow through the typed client, against a live server on the test database
with a real Celery worker on Redis running the team's engine: catalogs of each type, test connection, browse,
apply (YAML, prune, dry run), a job submitted with an idempotency key, waited for and read, a run cancelled,
and errors as typed exceptions. Then raw HTTP: form and multipart bodies are refused with 415."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.integrations.conftest import PG_PASSWORD, Integration
from tests.jobs.conftest import Worker, running_worker
from tests.streaming.conftest import NATS_URL, RedisServer, nats_stream, redis_server  # noqa: F401 - fixtures
from tests.support.servers import wait_until

pytestmark = [pytest.mark.spark]

LONG_QUERY = "SELECT count(*) AS n FROM range(0, 200000000000, 1, 4) a"  # minutes of work: cancelled first


@pytest.fixture(scope="module")
def worker(django_db_setup: Any, django_db_blocker: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Worker]:
    with running_worker(tmp_path_factory, "client-worker", beat=False) as started:
        yield started


def test_provisioning_flow_through_the_typed_client(integration: Integration, worker: Worker) -> None:
    from lakeport_client.api.catalogs import (
        catalogs_create,
        catalogs_get,
        catalogs_list,
        catalogs_put,
        catalogs_test_connection,
        databases_list,
        tables_get,
        tables_list,
    )
    from lakeport_client.api.jobs import jobs_create
    from lakeport_client.api.runs import runs_cancel, runs_get, runs_submit
    from lakeport_client.api.sql import sql_preview, sql_validate
    from lakeport_client.models import (
        CatalogInputRequest,
        CatalogTypeEnum,
        JobInputRequest,
        PreviewInputRequest,
        ValidateInputRequest,
    )
    from lakeport_client_ext import Conflict, InvalidInput, Lakeport, NotFound, PreconditionFailed, unwrap

    team = integration.team
    lp = Lakeport(integration.base_url, integration.token)
    c = lp.client

    # ---- a catalog of each type -----------------------------------------------------------------------------
    jdbc = CatalogInputRequest(catalog_name="orders_db", catalog_type=CatalogTypeEnum.JDBC, description="Orders",
                               configuration={"type": "postgresql", "base-url": "jdbc:postgresql://127.0.0.1:5432/",
                                              "default-database": integration.pg_database, "username": "postgres",
                                              "password": PG_PASSWORD})
    hive = CatalogInputRequest(catalog_name="warehouse", catalog_type=CatalogTypeEnum.HIVE,
                               configuration={"metastore-uris": integration.metastore_uri, "default-database": "default"})
    delta = CatalogInputRequest(catalog_name="lake", catalog_type=CatalogTypeEnum.DELTA,
                                configuration={"warehouse": str(integration.delta_warehouse)})
    created = catalogs_create.sync_detailed(team, client=c, body=jdbc)
    orders_db = unwrap(created)
    assert created.status_code == 201 and created.headers["ETag"] == f'"{orders_db.version}"'
    assert orders_db.secrets_set == ["password"] and "password" not in orders_db.configuration
    for body in (hive, delta):
        assert unwrap(catalogs_create.sync_detailed(team, client=c, body=body)).catalog_type == body.catalog_type

    # ---- test connection and browse ---------------------------------------------------------------------------
    for name in ("orders_db", "warehouse", "lake"):
        result = unwrap(catalogs_test_connection.sync_detailed(team, name, client=c))
        assert result.ok, f"{name}: {result.message}"
    assert "public" in unwrap(databases_list.sync_detailed(team, "orders_db", client=c)).databases
    tables = unwrap(tables_list.sync_detailed(team, "orders_db", "public", client=c)).tables
    assert [t.name for t in tables] == ["orders"]
    assert unwrap(databases_list.sync_detailed(team, "lake", client=c)).databases == ["sales"]
    orders = unwrap(tables_get.sync_detailed(team, "lake", "sales", "orders", client=c))
    assert [col.name for col in orders.columns] == ["id"] and orders.version == 0

    # ---- errors arrive as typed exceptions with the envelope's code and details -----------------------------------
    with pytest.raises(InvalidInput) as invalid:
        unwrap(catalogs_create.sync_detailed(team, client=c, body=CatalogInputRequest(
            catalog_name="Bad Name!", catalog_type=CatalogTypeEnum.DELTA, configuration={"warehouse": "/tmp/x"})))
    assert invalid.value.code == "invalid" and "catalog_name" in invalid.value.details
    with pytest.raises(NotFound) as missing:
        unwrap(catalogs_get.sync_detailed(team, "nope", client=c))
    assert missing.value.code == "not_found"
    with pytest.raises(Conflict):
        unwrap(catalogs_create.sync_detailed(team, client=c, body=delta))
    jdbc.description = "Orders (primary)"
    with pytest.raises(PreconditionFailed) as stale:
        unwrap(catalogs_put.sync_detailed(team, "orders_db", client=c, body=jdbc, if_match='"999"'))
    assert stale.value.code == "precondition_failed"
    replaced = catalogs_put.sync_detailed(team, "orders_db", client=c, body=jdbc, if_match=created.headers["ETag"])
    assert unwrap(replaced).version == orders_db.version + 1 and replaced.headers["ETag"] != created.headers["ETag"]

    # ---- apply: YAML, dry run first, then for real with prune ------------------------------------------------------
    document = f"""
catalogs:
  - catalog_name: orders_db
    catalog_type: jdbc
    description: Orders (primary)
    configuration:
      type: postgresql
      base-url: "jdbc:postgresql://127.0.0.1:5432/"
      default-database: {integration.pg_database}
      username: postgres
  - catalog_name: lake
    catalog_type: delta
    description: The lake
    configuration: {{warehouse: "{integration.delta_warehouse}"}}
  - catalog_name: lake_copy
    catalog_type: delta
    configuration: {{warehouse: "{integration.delta_warehouse}"}}
"""
    plan = lp.apply(team, document, prune=True, dry_run=True)
    assert (plan.created, plan.updated, plan.deleted) == (["lake_copy"], ["lake"], ["warehouse"])
    names = [x.catalog_name for x in unwrap(catalogs_list.sync_detailed(team, client=c)).results]
    assert sorted(names) == ["lake", "orders_db", "warehouse"]  # a dry run changes nothing
    done = lp.apply(team, document, prune=True)
    assert (done.created, done.updated, done.deleted, done.unchanged) == (["lake_copy"], ["lake"], ["warehouse"],
                                                                          ["orders_db"])
    listed = {x.catalog_name: x for x in unwrap(catalogs_list.sync_detailed(team, client=c)).results}
    assert sorted(listed) == ["lake", "lake_copy", "orders_db"]
    assert listed["orders_db"].secrets_set == ["password"]  # a secret left out of the document is kept

    # ---- a job: submit with an idempotency key, wait with progress, read the result ---------------------------------
    job = unwrap(jobs_create.sync_detailed(team, client=c, body=JobInputRequest(
        name="orders by customer", sql="SELECT id, customer FROM orders_db.public.orders ORDER BY id")))
    first = runs_submit.sync_detailed(team, job.id, client=c, idempotency_key="nightly-2026-01-31")
    again = runs_submit.sync_detailed(team, job.id, client=c, idempotency_key="nightly-2026-01-31")
    assert (first.status_code, again.status_code) == (201, 200)
    assert unwrap(again).id == unwrap(first).id  # the retried submit is the same run
    seen: list[str] = []
    finished = lp.wait_for_run(team, unwrap(first).id, poll=0.5, on_progress=lambda run: seen.append(run.status))
    assert finished.status == "SUCCEEDED", finished.error
    assert seen[-1] == "SUCCEEDED" and finished.catalogs == ["orders_db"]
    result = lp.run_result(team, finished.id)
    assert result.rows == [[1, "ann"], [2, "bob"], [3, "cy"]] and result.truncated is False

    # ---- the editor's calls take a default catalog: a name it does not qualify reads as a run of such a job -------
    unqualified = "SELECT id, customer FROM public.orders ORDER BY id"
    checked = unwrap(sql_validate.sync_detailed(team, client=c, body=ValidateInputRequest(
        sql=unqualified, default_catalog="orders_db")))
    assert checked.valid and [col["name"] for col in checked.schema] == ["id", "customer"], checked.errors
    previewed = unwrap(sql_preview.sync_detailed(team, client=c, body=PreviewInputRequest(
        sql=unqualified, default_catalog="orders_db")))
    assert previewed.rows == result.rows
    with pytest.raises(InvalidInput) as no_catalog:
        unwrap(sql_validate.sync_detailed(team, client=c, body=ValidateInputRequest(sql=unqualified,
                                                                                  default_catalog="ghost")))
    assert "default_catalog" in no_catalog.value.details

    # ---- cancel a running run; a second cancel is a Conflict -------------------------------------------------------
    slow = unwrap(jobs_create.sync_detailed(team, client=c, body=JobInputRequest(name="slow", sql=LONG_QUERY)))
    running = lp.submit_run(team, slow.id)
    wait_until(lambda: unwrap(runs_get.sync_detailed(team, running.id, client=c)).status == "RUNNING",
             what="the slow run to start")
    cancelling = runs_cancel.sync_detailed(team, running.id, client=c)
    assert cancelling.status_code == 202 and unwrap(cancelling).cancel_requested
    assert lp.wait_for_run(team, running.id, poll=0.5).status == "CANCELLED"
    with pytest.raises(Conflict) as finished_already:
        unwrap(runs_cancel.sync_detailed(team, running.id, client=c))
    assert finished_already.value.code == "conflict"
    lp.close()


def test_form_and_multipart_bodies_are_refused_with_415_and_the_envelope(integration: Integration) -> None:
    api = f"{integration.base_url}/api/v1/teams/{integration.team}"
    auth = {"Authorization": f"Bearer {integration.token}"}
    with httpx.Client(headers=auth, timeout=30) as http:
        form = http.post(f"{api}/jobs/", data={"name": "form job", "sql": "SELECT 1"})
        multipart = http.post(f"{api}/jobs/", files={"sql": ("q.sql", b"SELECT 1", "text/plain")}, data={"name": "m"})
        applied = http.post(f"{api}/apply/", data={"catalogs": "[]"})
        as_json = http.post(f"{api}/jobs/", json={"name": "json job", "sql": "SELECT 1"})
    for response in (form, multipart, applied):
        assert response.status_code == 415, response.text
        error = response.json()["error"]
        assert error["code"] == "unsupported_media_type" and set(error) == {"code", "message", "details"}
    assert "multipart/form-data" in multipart.json()["error"]["message"]
    assert as_json.status_code == 201
    assert http_jobs(api, auth) == ["json job"]  # nothing was created from the refused bodies


def http_jobs(api: str, auth: dict[str, str]) -> list[str]:
    return [job["name"] for job in httpx.get(f"{api}/jobs/", headers=auth, timeout=30).json()["results"]]


GUIDE = Path(__file__).resolve().parents[2] / "docs" / "integrations.md"


def guide_blocks() -> list[str]:
    """The ```python blocks of docs/integrations.md, in order."""
    return re.findall(r"^```python\n(.*?)^```", GUIDE.read_text(), re.MULTILINE | re.DOTALL)


def test_every_snippet_of_the_integration_guide_runs(integration: Integration, worker: Worker,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """The guide's blocks run in order in one namespace, as a reader would paste them, against the live server."""
    for key, value in {"LAKEPORT_URL": integration.base_url, "LAKEPORT_TOKEN": integration.token,
                       "LAKEPORT_TEAM": integration.team, "ORDERS_DATABASE": integration.pg_database,
                       "ORDERS_PASSWORD": PG_PASSWORD, "LAKE_WAREHOUSE": str(integration.delta_warehouse)}.items():
        monkeypatch.setenv(key, value)
    blocks = guide_blocks()
    assert len(blocks) >= 7
    namespace: dict[str, Any] = {"__name__": "integrations_guide"}
    for number, block in enumerate(blocks, start=1):
        exec(compile(block, f"docs/integrations.md, python block {number}", "exec"), namespace)  # noqa: S102
    printed = capsys.readouterr().out
    assert "orders_db version 1 secrets set: ['password']" in printed
    assert "404 not_found" in printed and "would create ['lake']" in printed
    assert "SUCCEEDED 1/1 statements" in printed and "['customer', 'amount']" in printed and "'ann'" in printed
    assert "signed in as integrator" in printed and "the old token is revoked" in printed


def test_stream_catalogs_through_the_typed_client(integration: Integration, tmp_path: Path,
                                                  redis_server: RedisServer,  # noqa: F811
                                                  nats_stream: Any) -> None:  # noqa: F811
    from lakeport_client.api.catalogs import (
        catalogs_create,
        catalogs_test_connection,
        tables_get,
        tables_list,
        tables_sample,
    )
    from lakeport_client.api.jobs import jobs_create
    from lakeport_client.api.streams import streams_get, streams_metrics
    from lakeport_client.models import (
        CatalogInputRequest,
        CatalogTableSampleApiInputRequest,
        CatalogTypeEnum,
        JobInputRequest,
        KindEnum,
    )
    from lakeport_client_ext import InvalidInput, Lakeport, unwrap

    team = integration.team
    lp = Lakeport(integration.base_url, integration.token)
    c = lp.client
    conn = redis_server.client()
    conn.delete("clicks")
    for n in range(5):
        conn.xadd("clicks", {"data": f'{{"room": "r{n}", "ts": "2026-01-01T00:00:0{n}Z", "v": {n}}}'})
    subject = nats_stream([{"id": n} for n in range(3)])
    landing = tmp_path / "landing" / "web" / "hits"
    landing.mkdir(parents=True)
    (landing / "part-0.json").write_text('{"page": "/a", "at": "2026-01-01T00:00:00Z"}\n', encoding="utf-8")
    bodies = [
        CatalogInputRequest(catalog_name="events", catalog_type=CatalogTypeEnum.REDIS_STREAMS, configuration={
            "url": redis_server.url, "password": redis_server.password, "tables": {"default.clicks": {
                "columns": [{"name": "room", "type": "string"}, {"name": "ts", "type": "timestamp"},
                            {"name": "v", "type": "int"}], "event-time": "ts"}}}),
        CatalogInputRequest(catalog_name="bus", catalog_type=CatalogTypeEnum.NATS_JETSTREAM,
                            configuration={"servers": [NATS_URL]}),
        CatalogInputRequest(catalog_name="drops", catalog_type=CatalogTypeEnum.FILES,
                            configuration={"root": str(tmp_path / "landing")}),
    ]
    for body in bodies:
        made = unwrap(catalogs_create.sync_detailed(team, client=c, body=body))
        assert made.catalog_type == body.catalog_type
        assert unwrap(catalogs_test_connection.sync_detailed(team, body.catalog_name, client=c)).ok
    assert made.secrets_set == [] and redis_server.password not in str(
        unwrap(catalogs_test_connection.sync_detailed(team, "events", client=c)))

    assert "clicks" in [t.name for t in unwrap(tables_list.sync_detailed(team, "events", "default", client=c)).tables]
    assert subject in [t.name for t in unwrap(tables_list.sync_detailed(team, "bus", "default", client=c)).tables]
    hits = unwrap(tables_get.sync_detailed(team, "drops", "web", "hits", client=c))
    assert [(col.name, col.type_) for col in hits.columns] == [("page", "string"), ("at", "timestamp")]
    assert hits.properties["schema"] == "inferred" and hits.properties["event-time"] == "at"
    sample = unwrap(tables_sample.sync_detailed(team, "events", "default", "clicks", client=c,
                                                body=CatalogTableSampleApiInputRequest(limit=3)))
    assert sample.schema.value == "declared" and [r[2] for r in sample.rows] == [2, 3, 4]  # the newest, oldest first
    with pytest.raises(InvalidInput):  # a sample larger than the API allows
        unwrap(tables_sample.sync_detailed(team, "events", "default", "clicks", client=c,
                                           body=CatalogTableSampleApiInputRequest(limit=100_000)))

    job = unwrap(jobs_create.sync_detailed(team, client=c, body=JobInputRequest(
        name="clicks copy", kind=KindEnum.STREAMING,
        sql="INSERT INTO lake.sales.orders SELECT v FROM STREAM(events.default.clicks)")))
    assert job.kind == KindEnum.STREAMING
    state = unwrap(streams_get.sync_detailed(team, job.id, client=c))
    assert state.status == "STOPPED" and state.desired == "stopped"
    assert unwrap(streams_metrics.sync_detailed(team, job.id, client=c)).results == []
    lp.close()
