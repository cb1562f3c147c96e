"""Schedules through the public API: create with next fire times, preview, pause/resume, clear 400s, team scoping,
and the OpenAPI operation ids."""

from __future__ import annotations

from typing import Any

import pytest

from jobs.models import SqlJob
from teams.models import Team

BASE = "/api/v1/teams/acme/schedules/"


@pytest.fixture
def dev(client_for: Any) -> Any:
    return client_for("developer")


@pytest.fixture
def job(team: Team) -> SqlJob:
    return SqlJob.objects.create(team=team, name="daily", sql="SELECT ${ds} AS day, ${n} AS n",
                                 parameters={"n": {"type": "int", "default": "1"}})


def _create(dev: Any, job: SqlJob, **fields: Any) -> Any:
    body = {"job": job.id, "name": "nightly", "cron": "30 2 * * *", "time_zone": "Europe/Berlin", **fields}
    return dev.post(BASE, body, format="json")


def test_create_shows_the_next_five_fire_times_then_pause_and_resume(dev: Any, job: SqlJob) -> None:
    response = _create(dev, job, parameters={"n": 7}, concurrency="queue", catchup="latest", max_retries=2)
    assert response.status_code == 201, response.json()
    body = response.json()
    assert len(body["next_fire_times"]) == 5
    assert all(t[11:19] == "02:30:00" and t[-6:] in ("+01:00", "+02:00") for t in body["next_fire_times"])
    assert body["parameters"] == {"n": 7} and body["enabled"] is True and body["next_fire_at"]
    paused = dev.post(f"{BASE}{body['id']}/pause/").json()
    assert paused["enabled"] is False and paused["next_fire_times"] == [] and paused["next_fire_at"] is None
    resumed = dev.post(f"{BASE}{body['id']}/resume/").json()
    assert resumed["enabled"] is True and len(resumed["next_fire_times"]) == 5
    listed = dev.get(f"{BASE}?job={job.id}").json()
    assert [s["name"] for s in listed["results"]] == ["nightly"]
    changed = dev.patch(f"{BASE}{body['id']}/", {"cron": "0 6 * * 1"}, format="json").json()
    assert changed["cron"] == "0 6 * * 1" and changed["next_fire_times"][0][11:16] == "06:00"
    assert dev.delete(f"{BASE}{body['id']}/").status_code == 204


def test_preview_as_you_type(dev: Any, team: Team) -> None:
    response = dev.get(BASE + "preview/", {"cron": "0 9 * * 1-5", "time_zone": "America/New_York"})
    assert response.status_code == 200
    assert len(response.json()["next_fire_times"]) == 5
    bad = dev.get(BASE + "preview/", {"cron": "0 9 * *", "time_zone": "UTC"}).json()  # half-typed: 200, not valid
    assert bad["valid"] is False and bad["error"]["field"] == "cron" and "use 5" in bad["error"]["message"]


@pytest.mark.parametrize(("fields", "named", "text"), [
    ({"cron": "61 * * * *"}, "cron", "61 * * * *"),
    ({"cron": "every day"}, "cron", "every day"),
    ({"cron": "0 0 31 2 *"}, "cron", "never fires"),
    ({"time_zone": "Europe/Atlantis"}, "time_zone", "Europe/Atlantis"),
    ({"parameters": {"nope": 1}}, "parameters", "'nope'"),
    ({"parameters": {"n": "1; DROP TABLE t"}}, "parameters", "'n'"),
])
def test_bad_input_is_a_400_naming_it(dev: Any, job: SqlJob, fields: dict, named: str, text: str) -> None:
    response = _create(dev, job, **fields)
    assert response.status_code == 400, response.json()
    error = response.json()["error"]
    assert text in error["message"]
    assert named in error["details"]


def test_viewers_read_and_other_teams_see_nothing(dev: Any, client_for: Any, job: SqlJob, other_team: Team) -> None:
    created = _create(dev, job).json()
    viewer = client_for("viewer")
    assert viewer.get(f"{BASE}{created['id']}/").status_code == 200
    assert viewer.post(f"{BASE}{created['id']}/pause/").status_code == 403
    stranger = client_for("admin", in_team=other_team)
    assert stranger.get(f"/api/v1/teams/globex/schedules/{created['id']}/").status_code == 404
    other_job = SqlJob.objects.create(team=other_team, name="theirs", sql="SELECT 1")
    assert _create(dev, other_job).status_code == 404  # another team's job


def test_openapi_operations(dev: Any) -> None:
    schema = dev.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    ops = {op["operationId"]: op for path in schema["paths"].values() for op in path.values() if "operationId" in op}
    for name in ("schedules_list", "schedules_create", "schedules_get", "schedules_update", "schedules_delete",
                 "schedules_pause", "schedules_resume"):
        assert ops[name]["tags"] == ["schedules"]
