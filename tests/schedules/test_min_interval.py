"""The minimum schedule interval (LAKEPORT_MIN_SCHEDULE_INTERVAL_SECONDS): a developer cannot make the platform fire
a job every minute. Through the API (create, update), `apply -f` and its API, with cron spellings that fire often only
some of the time; an operator's per-team exception; an unchanged cron saved before the rule stays editable."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.test import override_settings

from jobs.models import SqlJob
from schedules.models import Schedule
from teams.models import Team

BASE = "/api/v1/teams/acme/schedules/"
RULE = "LAKEPORT_MIN_SCHEDULE_INTERVAL_SECONDS"

pytestmark = pytest.mark.usefixtures("five_minutes")


@pytest.fixture
def five_minutes() -> Any:
    with override_settings(LAKEPORT_MIN_SCHEDULE_INTERVAL_SECONDS=300, LAKEPORT_TEAM_LIMITS={}):
        yield


@pytest.fixture
def dev(client_for: Any) -> Any:
    return client_for("developer")


@pytest.fixture
def job(team: Team) -> SqlJob:
    return SqlJob.objects.create(team=team, name="often", sql="SELECT 1")


def _create(dev: Any, job: SqlJob, cron: str, name: str = "often") -> Any:
    return dev.post(BASE, {"job": job.id, "name": name, "cron": cron, "time_zone": "UTC"}, format="json")


@pytest.mark.parametrize("cron", ["* * * * *", "*/2 * * * *", "0-4 * * * *", "0,1 3 * * *", "*/4 * * * 1",
                                  "58,59,0 * * * *"])
def test_a_cron_firing_more_often_than_the_minimum_is_a_400_naming_the_rule(dev: Any, job: SqlJob, cron: str) -> None:
    response = _create(dev, job, cron)
    assert response.status_code == 400, response.json()
    body = response.json()["error"]
    assert RULE in body["message"] and "300 s" in body["message"]
    assert RULE in " ".join(body["details"]["cron"])
    assert not Schedule.objects.exists()


@pytest.mark.parametrize("cron", ["*/5 * * * *", "0 * * * *", "30 2 * * *", "0,5 3 * * *"])
def test_a_cron_at_or_above_the_minimum_is_created(dev: Any, job: SqlJob, cron: str) -> None:
    assert _create(dev, job, cron).status_code == 201


def test_an_update_to_a_faster_cron_is_refused_and_changes_nothing(dev: Any, job: SqlJob) -> None:
    created = _create(dev, job, "*/10 * * * *").json()
    response = dev.patch(f"{BASE}{created['id']}/", {"cron": "* * * * *"}, format="json")
    assert response.status_code == 400 and RULE in response.json()["error"]["message"]
    assert Schedule.objects.get(id=created["id"]).cron == "*/10 * * * *"


def test_an_operator_exception_lets_one_team_fire_more_often(dev: Any, job: SqlJob, client_for: Any,
                                                             other_team: Team) -> None:
    with override_settings(LAKEPORT_TEAM_LIMITS={"acme": {"min_schedule_interval_seconds": 60}}):
        assert _create(dev, job, "* * * * *").status_code == 201
        other_job = SqlJob.objects.create(team=other_team, name="often", sql="SELECT 1")
        other = client_for("developer", other_team)
        refused = other.post("/api/v1/teams/globex/schedules/", {"job": other_job.id, "name": "often",
                                                                  "cron": "* * * * *"}, format="json")
        assert refused.status_code == 400 and RULE in refused.json()["error"]["message"]


def test_a_schedule_saved_before_the_rule_can_still_be_renamed_or_paused(dev: Any, job: SqlJob) -> None:
    with override_settings(LAKEPORT_MIN_SCHEDULE_INTERVAL_SECONDS=60):
        created = _create(dev, job, "* * * * *").json()
    renamed = dev.patch(f"{BASE}{created['id']}/", {"name": "renamed"}, format="json")
    assert renamed.status_code == 200, renamed.json()
    assert dev.post(f"{BASE}{created['id']}/pause/").status_code == 200


def test_apply_f_refuses_an_every_minute_schedule_and_applies_nothing(client_for: Any, team: Team,
                                                                     tmp_path: Path) -> None:
    admin = client_for("admin")
    doc = {"jobs": [{"name": "often", "sql": "SELECT 1"}],
           "schedules": [{"name": "often", "job": "often", "cron": "* * * * *", "time_zone": "UTC"}]}
    response = admin.post("/api/v1/teams/acme/apply/", doc, format="json")
    assert response.status_code == 400, response.json()
    assert RULE in str(response.json()["error"])
    assert not Schedule.objects.exists() and not SqlJob.objects.filter(name="often").exists()
