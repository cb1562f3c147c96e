"""Job CRUD over the REST API: roles, team isolation and every kind of bad input."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from catalogs.models import Catalog
from core.errors import InvalidInput
from jobs.models import JobRun, SqlJob
from jobs.services.jobs import job_create
from teams.models import Team

pytestmark = pytest.mark.django_db

URL = "/api/v1/teams/acme/jobs/"
BODY = {"name": "daily orders", "sql": "SELECT 1 AS one", "spark_conf": {"spark.sql.shuffle.partitions": 4},
        "default_catalog": "", "engine": "warm"}


def error_of(response: Any) -> dict[str, Any]:
    body = response.json()
    assert set(body) == {"error"} and {"code", "message", "details"} <= set(body["error"]), body
    return body["error"]


def test_developer_creates_reads_updates_and_deletes_a_job(developer_client: Any) -> None:
    created = developer_client.post(URL, BODY, format="json")
    assert created.status_code == 201, created.json()
    job = created.json()
    assert job["name"] == "daily orders" and job["sql"] == "SELECT 1 AS one" and job["engine"] == "warm"
    assert job["spark_conf"] == {"spark.sql.shuffle.partitions": "4"}  # stored as Spark reads it: a string

    listed = developer_client.get(URL).json()
    assert [j["name"] for j in listed["results"]] == ["daily orders"]

    patched = developer_client.patch(f"{URL}{job['id']}/", {"sql": "SELECT 2 AS two"}, format="json")
    assert patched.status_code == 200
    assert patched.json()["sql"] == "SELECT 2 AS two"
    assert patched.json()["name"] == "daily orders" and patched.json()["engine"] == "warm"  # untouched fields kept

    assert developer_client.delete(f"{URL}{job['id']}/").status_code == 204
    assert developer_client.get(f"{URL}{job['id']}/").status_code == 404


@pytest.mark.parametrize(
    ("body", "field", "text"),
    [
        ({**BODY, "sql": ""}, "sql", "empty"),
        ({**BODY, "sql": "   \n  "}, "sql", "empty"),
        ({**BODY, "spark_conf": {"spark.driver.extraJavaOptions": "-Dx=1"}}, "spark_conf", "allow-list"),
        ({**BODY, "spark_conf": {"spark.sql.shuffle.partitions": {"nested": 1}}}, "spark_conf", "value"),
        ({**BODY, "default_catalog": "nope"}, "default_catalog", "No catalog named 'nope'"),
        ({**BODY, "engine": "turbo"}, "engine", ""),
        ({**BODY, "name": ""}, "name", ""),
    ],
)
def test_bad_job_input_is_a_clear_400_and_stores_nothing(developer_client: Any, body: dict, field: str, text: str) -> None:
    response = developer_client.post(URL, body, format="json")
    assert response.status_code == 400, response.json()
    error = error_of(response)
    assert error["code"] == "invalid"
    assert field in error["details"]
    assert text in str(error["details"][field])
    assert SqlJob.objects.count() == 0


def test_non_object_body_is_400(developer_client: Any) -> None:
    response = developer_client.post(URL, ["SELECT 1"], format="json")
    assert response.status_code == 400
    assert error_of(response)["code"] == "invalid"


def test_script_over_one_mib_is_refused(developer_client: Any, team: Team) -> None:
    big = "SELECT 1;\n" * (1024 * 1024 // 10 + 10)
    response = developer_client.post(URL, {**BODY, "sql": big}, format="json")
    assert response.status_code == 413
    assert "limit" in error_of(response)["message"]
    # The same limit holds off the HTTP path (manage.py runjob, services).
    with pytest.raises(InvalidInput) as refused:
        job_create(team=team, user=None, name="big", sql=big)
    assert "limit is 1048576 bytes" in refused.value.details["sql"][0]
    assert SqlJob.objects.count() == 0


def test_duplicate_name_in_a_team_is_400_but_another_team_may_use_it(
    developer_client: Any, client_for: Callable[..., Any], other_team: Team
) -> None:
    assert developer_client.post(URL, BODY, format="json").status_code == 201
    again = developer_client.post(URL, BODY, format="json")
    assert again.status_code == 400 and "already exists" in str(error_of(again)["details"])
    globex = client_for("developer", in_team=other_team)
    assert globex.post("/api/v1/teams/globex/jobs/", BODY, format="json").status_code == 201


def test_default_catalog_must_be_the_teams(developer_client: Any, team: Team, other_team: Team) -> None:
    Catalog.objects.create(team=other_team, catalog_type="jdbc", catalog_name="theirs", configuration="{}")
    Catalog.objects.create(team=team, catalog_type="jdbc", catalog_name="ours", configuration="{}")
    assert developer_client.post(URL, {**BODY, "default_catalog": "theirs"}, format="json").status_code == 400
    assert developer_client.post(URL, {**BODY, "default_catalog": "ours"}, format="json").status_code == 201


def test_update_with_bad_input_changes_nothing(developer_client: Any) -> None:
    job = developer_client.post(URL, BODY, format="json").json()
    response = developer_client.patch(f"{URL}{job['id']}/", {"sql": "SELECT 9", "spark_conf": {"spark.master": "yarn"}},
                                      format="json")
    assert response.status_code == 400
    stored = SqlJob.objects.get(id=job["id"])
    assert stored.sql == "SELECT 1 AS one" and stored.spark_conf == {"spark.sql.shuffle.partitions": "4"}


def test_job_with_an_active_run_cannot_be_deleted(developer_client: Any) -> None:
    job = developer_client.post(URL, BODY, format="json").json()
    run = developer_client.post(f"{URL}{job['id']}/runs/").json()
    response = developer_client.delete(f"{URL}{job['id']}/")
    assert response.status_code == 409 and error_of(response)["code"] == "conflict"
    assert JobRun.objects.filter(id=run["id"]).exists()


def test_another_teams_job_is_404(developer_client: Any, client_for: Callable[..., Any], other_team: Team) -> None:
    globex = client_for("admin", in_team=other_team)
    theirs = globex.post("/api/v1/teams/globex/jobs/", BODY, format="json").json()
    # Through our team's URL the id does not exist; through theirs we are not a member.
    assert developer_client.get(f"{URL}{theirs['id']}/").status_code == 404
    assert developer_client.patch(f"{URL}{theirs['id']}/", {"sql": "SELECT 2"}, format="json").status_code == 404
    assert developer_client.post(f"{URL}{theirs['id']}/runs/").status_code == 404
    assert developer_client.get(f"/api/v1/teams/globex/jobs/{theirs['id']}/").status_code == 404
    assert SqlJob.objects.get(id=theirs["id"]).sql == "SELECT 1 AS one"


# ---- role matrix ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("role", "can_write"), [("viewer", False), ("developer", True), ("admin", True)]
)
def test_role_matrix_for_job_and_run_endpoints(client_for: Callable[..., Any], role: str, can_write: bool) -> None:
    owner = client_for("developer")
    job = owner.post(URL, BODY, format="json").json()
    queued = owner.post(f"{URL}{job['id']}/runs/").json()
    client = client_for(role)

    # Everyone in the team reads.
    for path in (URL, f"{URL}{job['id']}/", f"{URL}{job['id']}/runs/", "/api/v1/teams/acme/runs/",
                 f"/api/v1/teams/acme/runs/{queued['id']}/", f"/api/v1/teams/acme/runs/{queued['id']}/log/"):
        assert client.get(path).status_code == 200, path

    expected = (lambda ok: ok) if can_write else (lambda ok: 403)
    assert client.post(URL, {**BODY, "name": f"by {role}"}, format="json").status_code == expected(201)
    assert client.patch(f"{URL}{job['id']}/", {"sql": "SELECT 3"}, format="json").status_code == expected(200)
    assert client.post(f"{URL}{job['id']}/runs/").status_code == expected(201)
    assert client.post(f"/api/v1/teams/acme/runs/{queued['id']}/cancel/").status_code == expected(202)
    assert client.post("/api/v1/teams/acme/sql/preview/", {"sql": "INSERT INTO t VALUES (1)"},
                       format="json").status_code == (400 if can_write else 403)
    if not can_write:
        assert JobRun.objects.get(id=queued["id"]).status == "QUEUED"


def test_outsiders_and_anonymous_get_404_and_401(client_for: Callable[..., Any], other_team: Team, client: Any) -> None:
    outsider = client_for("admin", in_team=other_team)
    assert outsider.get(URL).status_code == 404
    assert outsider.post(URL, BODY, format="json").status_code == 404
    assert client.get(URL).status_code in (401, 403)
