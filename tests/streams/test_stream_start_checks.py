"""A start (or restart) of a streaming job whose statement cannot run is a 400 at once, naming the statement, its
line and the rule, and changes nothing; no worker is needed to hear it. Through the public API only."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from jobs.models import JobKind, SqlJob
from streams.models import StreamAudit, StreamState
from teams.models import Team
from tests.jobs.conftest import flush_broker
from tests.streams.conftest import API

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("stream_catalogs")]

PRELUDE = "SET spark.sql.shuffle.partitions = 2;\nCREATE TABLE IF NOT EXISTS lake.db.t (id BIGINT);\n"
GOOD = PRELUDE + "INSERT INTO lake.db.t SELECT id FROM STREAM(events.default.clicks)"


@pytest.fixture(autouse=True)
def _empty_broker() -> Any:
    flush_broker()
    yield
    flush_broker()


def _job(client: APIClient, sql: str, **fields: Any) -> int:
    body = {"name": fields.pop("name", "clicks"), "sql": sql, "kind": "streaming", **fields}
    response = client.post(f"{API}/jobs/", body, format="json")
    assert response.status_code == 201, response.content  # saving accepts it: only a start can judge the catalogs
    return int(response.json()["id"])


def _start(client: APIClient, job_id: int, action: str = "start") -> Any:
    return client.post(f"{API}/jobs/{job_id}/stream/{action}/")


def _refused(client: APIClient, job_id: int, action: str = "start") -> dict[str, Any]:
    response = _start(client, job_id, action)
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "invalid" and error["message"].startswith("The stream of job ")
    return dict(error)


def _state(client: APIClient, job_id: int) -> dict[str, Any]:
    return dict(client.get(f"{API}/jobs/{job_id}/stream/").json())


def _audit(job_id: int) -> list[str]:
    """The stream's audit trail (it has no endpoint: read where the API writes it)."""
    return list(StreamAudit.objects.filter(job_id=job_id).order_by("id").values_list("action", flat=True))


BAD_EMIT = [
    (GOOD + " EMIT AFTER DELAY INTERVAL 'soon' SECONDS", "emit", "the delay must be a number"),
    (GOOD + " EMIT AFTER LUNCH", "emit", "is not an EMIT clause this runtime knows at 'LUNCH'"),
    ("-- clicks by id\n" + PRELUDE + "INSERT INTO lake.db.t SELECT c.id FROM STREAM(events.default.clicks) c\n"
     "JOIN STREAM(events.default.clicks) d ON c.id = d.id\n  WHERE c.id > 0 EMIT STREAM AFTER", "emit",
     "is not an EMIT clause"),
]


def _names_statement_line_and_rule(detail: str, sql: str, rule: str, says: str) -> None:
    line = sql.split("INSERT INTO")[0].count("\n") + 1
    assert detail.startswith(f"Statement 3 (line {line}): ") and detail.endswith(f"(rule: {rule})"), detail
    assert says in detail


@pytest.mark.parametrize(("sql", "rule", "says"), [*BAD_EMIT, (
    PRELUDE + "SELECT id FROM STREAM(events.default.clicks)", "streaming-script",
    "A streaming statement is an INSERT INTO a table")])
def test_a_statement_the_runtime_cannot_read_is_refused_when_the_job_is_saved(
        developer_client: APIClient, sql: str, rule: str, says: str) -> None:
    response = developer_client.post(f"{API}/jobs/", {"name": "clicks", "sql": sql, "kind": "streaming"}, format="json")
    assert response.status_code == 400, response.content
    [detail] = response.json()["error"]["details"]["sql"]
    _names_statement_line_and_rule(detail, sql, rule, says)
    assert developer_client.get(f"{API}/jobs/").json()["count"] == 0
    # an edit that would make a saved job's EMIT unreadable is refused the same way, and leaves the job as it was
    job_id = _job(developer_client, GOOD)
    patched = developer_client.patch(f"{API}/jobs/{job_id}/", {"sql": sql}, format="json")
    assert patched.status_code == 400 and patched.json()["error"]["details"]["sql"] == [detail]
    assert developer_client.get(f"{API}/jobs/{job_id}/").json()["sql"] == GOOD


@pytest.mark.parametrize(("sql", "rule", "says"), [
    BAD_EMIT[0],  # saved before saves checked EMIT clauses (written to the table directly here)
    (PRELUDE + "INSERT INTO lake.db.t SELECT id FROM STREAM(nope.default.clicks)", "unknown-catalog",
     "STREAM(nope.default.clicks): the team has no catalog named 'nope' (its catalogs: events, lake)"),
    (PRELUDE + "INSERT INTO nowhere.db.t SELECT id FROM STREAM(events.default.clicks)", "unknown-catalog",
     "INSERT INTO nowhere.db.t: the team has no catalog named 'nowhere'"),
    (PRELUDE + "INSERT INTO lake.db.t SELECT id FROM STREAM(default.clicks)", "qualified-name",
     "'default.clicks' does not say which catalog it is in"),
])
def test_a_statement_that_cannot_start_is_a_400_naming_statement_line_and_rule(
        developer_client: APIClient, team: Team, sql: str, rule: str, says: str) -> None:
    if rule == "emit":
        job_id = SqlJob.objects.create(team=team, name="clicks", sql=sql, kind=JobKind.STREAMING).id
    else:
        job_id = _job(developer_client, sql)
    error = _refused(developer_client, job_id)
    [detail] = error["details"]["sql"]
    _names_statement_line_and_rule(detail, sql, rule, says)
    assert detail in error["message"]
    state = _state(developer_client, job_id)
    assert (state["status"], state["desired"], state["last_error"]) == ("STOPPED", "stopped", None)
    assert _audit(job_id) == []  # nothing was started, so nothing is audited


def test_a_stream_of_a_catalog_that_cannot_stream(developer_client: APIClient, admin_client: APIClient) -> None:
    body = {"catalog_name": "sales", "catalog_type": "jdbc", "configuration": {
        "type": "postgresql", "base-url": "jdbc:postgresql://127.0.0.1:5432/", "default-database": "sales",
        "username": "reporting", "password": "never-used"}}
    assert admin_client.post(f"{API}/catalogs/", body, format="json").status_code == 201
    job_id = _job(developer_client, PRELUDE + "INSERT INTO lake.db.t SELECT id FROM STREAM(sales.public.orders)")
    [detail] = _refused(developer_client, job_id)["details"]["sql"]
    assert "STREAM(sales.public.orders): catalog 'sales' is a jdbc catalog, which cannot be read as a stream" in detail
    assert "redis-streams" in detail and detail.endswith("(rule: stream-catalog-type)")


def test_a_parameter_without_a_default_is_a_400_naming_it(developer_client: APIClient) -> None:
    sql = GOOD + " WHERE id > ${since}"
    job_id = _job(developer_client, sql, parameters={"since": {"type": "int"}})
    error = _refused(developer_client, job_id)
    [message] = error["details"]["parameters"]["since"]
    assert "Parameter 'since' has no default" in message and "(rule: parameters)" in message
    assert _state(developer_client, job_id)["status"] == "STOPPED"
    # with a default it renders, and the start goes through
    patched = developer_client.patch(f"{API}/jobs/{job_id}/", {"parameters": {"since": {"type": "int", "default": "5"}}},
                                     format="json")
    assert patched.status_code == 200, patched.content
    assert _start(developer_client, job_id).status_code == 202


def test_names_resolved_by_the_default_catalog_or_a_use_are_left_to_the_driver(developer_client: APIClient) -> None:
    unqualified = PRELUDE + "INSERT INTO lake.db.t SELECT id FROM STREAM(default.clicks)"
    with_default = _job(developer_client, unqualified, name="with default", default_catalog="events")
    assert _start(developer_client, with_default).status_code == 202
    after_use = _job(developer_client, "USE events.default;\n" + unqualified, name="after use")
    assert _start(developer_client, after_use).status_code == 202
    # the default catalog is the team's: a stream of it is judged like a named one
    in_lake = _job(developer_client, unqualified.replace("STREAM(default.clicks)", "STREAM(db.t)"), name="lake",
                   default_catalog="lake")
    assert _start(developer_client, in_lake).status_code == 202  # delta streams


def test_a_failed_stream_whose_catalog_went_away_is_refused_at_start(developer_client: APIClient,
                                                                     admin_client: APIClient) -> None:
    job_id = _job(developer_client, GOOD)
    assert _start(developer_client, job_id).status_code == 202
    # FAILED as its supervisor leaves it (no Spark here)
    StreamState.objects.filter(job_id=job_id).update(status="FAILED", last_error="The stream's driver stopped.")
    assert admin_client.delete(f"{API}/catalogs/events/").status_code == 204
    [detail] = _refused(developer_client, job_id)["details"]["sql"]
    assert "STREAM(events.default.clicks): the team has no catalog named 'events' (its catalogs: lake)" in detail
    assert _refused(developer_client, job_id, "restart")["details"]["sql"] == [detail]
    state = _state(developer_client, job_id)
    assert (state["status"], state["last_error"]) == ("FAILED", "The stream's driver stopped.")  # as it was
    assert _audit(job_id) == ["start"]

    events = {"catalog_name": "events", "catalog_type": "redis-streams", "configuration": {"url": "redis://127.0.0.1:1/0"}}
    assert admin_client.post(f"{API}/catalogs/", events, format="json").status_code == 201
    assert _start(developer_client, job_id).status_code == 202
    assert _audit(job_id) == ["start", "start"]


def test_a_restart_of_a_running_stream_into_a_statement_that_cannot_start_keeps_it(
        developer_client: APIClient, admin_client: APIClient) -> None:
    job_id = _job(developer_client, GOOD)
    assert _start(developer_client, job_id).status_code == 202
    StreamState.objects.filter(job_id=job_id).update(status="RUNNING")
    seq = StreamState.objects.get(job_id=job_id).restart_seq
    assert admin_client.delete(f"{API}/catalogs/events/").status_code == 204
    assert "no catalog named 'events'" in _refused(developer_client, job_id, "restart")["message"]
    assert StreamState.objects.get(job_id=job_id).restart_seq == seq  # the running driver is not replaced
    assert (_state(developer_client, job_id)["status"], _audit(job_id)) == ("RUNNING", ["start"])


def test_the_schema_documents_the_400_of_start_and_restart() -> None:
    schema = json.loads(Client().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").content)
    operations = {op["operationId"]: op for item in schema["paths"].values() for op in item.values()
                  if isinstance(op, dict) and "operationId" in op}
    for operation_id in ("streams_start", "streams_restart"):
        response = operations[operation_id]["responses"]["400"]
        assert response["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/ApiError"}
    assert "cannot start" in operations["streams_start"]["description"]
