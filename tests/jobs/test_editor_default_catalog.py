"""The editor's validate and preview resolve names in the chosen default catalog exactly as a run of the job does.

Before, validate and preview had no `default_catalog` (the editor's picker went only into the job a run uses): a
name that is not qualified by its catalog validated against Spark's session catalog and failed, then ran fine.
"""

from __future__ import annotations

from typing import Any

import pytest

from catalogs.models import Catalog
from jobs.models import RunStatus
from tests.jobs.conftest import wait_status
from tests.jobs.test_jobs_api import error_of

pytestmark = [pytest.mark.django_db(transaction=True)]

TEAM = "/api/v1/teams/acme/"
SQL = "SELECT id, customer FROM public.orders ORDER BY id"  # `public.orders` of the default catalog


@pytest.fixture(autouse=True)
def _worker(celery_worker: Any) -> None:
    """Editor calls go to a worker, which runs them in the team's engine."""


def test_unqualified_names_validate_preview_and_run_in_the_default_catalog(developer_client: Any,
                                                                          pg_catalog: Catalog) -> None:
    validated = developer_client.post(f"{TEAM}sql/validate/", {"sql": SQL, "default_catalog": "pg"},
                                      format="json").json()
    assert validated["valid"] is True, validated["errors"]
    assert validated["schema"] == [{"name": "id", "type": "int"}, {"name": "customer", "type": "string"}]
    without = developer_client.post(f"{TEAM}sql/validate/", {"sql": SQL}, format="json").json()
    assert without["valid"] is False and "orders" in without["errors"][0]["message"]  # the session catalog has none

    preview = developer_client.post(f"{TEAM}sql/preview/", {"sql": SQL, "default_catalog": "pg"}, format="json")
    assert preview.status_code == 200, preview.content
    assert preview.json()["rows"] == [[1, "ann"], [2, "bob"], [3, "cy"]]
    assert developer_client.post(f"{TEAM}sql/preview/", {"sql": SQL}, format="json").status_code == 400

    job = developer_client.post(f"{TEAM}jobs/", {"name": "unqualified", "sql": SQL, "default_catalog": "pg"},
                                format="json").json()
    run = developer_client.post(f"{TEAM}jobs/{job['id']}/runs/").json()
    assert wait_status(run["id"], RunStatus.SUCCEEDED, RunStatus.FAILED).status == RunStatus.SUCCEEDED
    result = developer_client.get(f"{TEAM}runs/{run['id']}/result/").json()
    assert (result["columns"], result["rows"]) == (preview.json()["columns"], preview.json()["rows"])

    # the script's own USE CATALOG still wins over the default, in the editor as in a run
    moved = developer_client.post(f"{TEAM}sql/validate/", {"sql": f"USE CATALOG spark_catalog;\n{SQL}",
                                                          "default_catalog": "pg"}, format="json").json()
    assert moved["valid"] is False and moved["errors"][0]["statement"] == 1


@pytest.mark.parametrize("path", ["sql/validate/", "sql/preview/", "sql/preview/live/"])
def test_a_default_catalog_the_team_does_not_have_is_a_400_naming_the_field(
        developer_client: Any, client_for: Any, other_team: Any, pg_catalog: Catalog, path: str) -> None:
    Catalog.objects.create(team=other_team, catalog_type="jdbc", catalog_name="theirs", configuration="{}")
    for name, text in [("ghost", "No catalog named 'ghost' in team 'acme'"),
                       ("theirs", "No catalog named 'theirs' in team 'acme'"),  # another team's: as unknown
                       ("x" * 64, "no more than 63 characters")]:
        response = developer_client.post(f"{TEAM}{path}", {"sql": "SELECT 1", "default_catalog": name}, format="json")
        assert response.status_code == 400, response.content
        error = error_of(response)
        assert error["code"] == "invalid" and text in str(error["details"]["default_catalog"]), error
