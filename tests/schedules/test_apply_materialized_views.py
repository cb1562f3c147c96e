"""`apply -f`'s `materialized_views` section: how existing views are refreshed (as ALTER MATERIALIZED VIEW), their
schedule kept with them; unknown views and bad crons refused, nothing applied; prune of jobs/schedules leaves the
views' refresh jobs and schedules."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from catalogs.models import Catalog, MaterializedView
from catalogs.secrets import seal_configuration
from jobs.models import SqlJob
from jobs.services.view_refresh import view_refresh_job
from lakeport_engine.catalog_types.delta import DeltaConfig
from schedules.models import Schedule
from teams.models import Role, Team

API = "/api/v1/teams/acme/apply/"
pytestmark = pytest.mark.django_db


@pytest.fixture
def view(team: Team, tmp_path: Path) -> MaterializedView:
    config = DeltaConfig.model_validate({"warehouse": str(tmp_path), "default-database": "shop"})
    catalog = Catalog.objects.create(team=team, catalog_type="delta", catalog_name="lake",
                                     configuration=seal_configuration(config))
    return MaterializedView.objects.create(catalog=catalog, database="shop", name="totals",
                                           query="SELECT 1 FROM `lake`.`shop`.`orders`",
                                           sources={"lake.shop.orders": 0})


def test_a_document_sets_how_views_are_refreshed_and_keeps_their_schedule(
        view: MaterializedView, client_for: Any) -> None:
    admin = client_for(Role.ADMIN)
    scheduled = {"materialized_views": [{"name": "lake.shop.totals", "refresh": "schedule", "cron": "*/10 * * * *",
                                         "time_zone": "Europe/Berlin"}]}
    response = admin.post(API, scheduled, format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["materialized_views"]["updated"] == ["lake.shop.totals"]
    schedule = Schedule.objects.get(materialized_view=view)
    assert (schedule.cron, schedule.time_zone, schedule.job.sql) == (
        "*/10 * * * *", "Europe/Berlin", "REFRESH MATERIALIZED VIEW `lake`.`shop`.`totals`")
    assert admin.post(API, scheduled, format="json").json()["materialized_views"]["unchanged"] == ["lake.shop.totals"]

    # prune of the jobs and schedules sections leaves what the view owns
    pruned = admin.post(API + "?prune=1", {"jobs": [], "schedules": []}, format="json")
    assert pruned.status_code == 200, pruned.json()
    assert pruned.json()["jobs"]["deleted"] == [] and pruned.json()["schedules"]["deleted"] == []
    assert Schedule.objects.filter(materialized_view=view).exists()

    on_commit = admin.post(API, {"materialized_views": [{"name": "lake.shop.totals", "refresh": "on_commit"}]},
                           format="json")
    assert on_commit.json()["materialized_views"]["updated"] == ["lake.shop.totals"]
    view.refresh_from_db()
    assert (view.refresh_mode, view.schedule_cron) == ("on_commit", "")
    assert not Schedule.objects.exists()


@pytest.mark.parametrize(("entry", "message"), [
    ({"name": "lake.shop.nope", "refresh": "manual"}, "create it with CREATE MATERIALIZED VIEW"),
    ({"name": "lake.shop.totals", "refresh": "hourly"}, "Use one of manual, schedule, on_commit"),
    ({"name": "lake.shop.totals", "refresh": "schedule"}, "needs a cron"),
    ({"name": "lake.shop.totals", "refresh": "schedule", "cron": "61 * * * *"}, "61 * * * *"),
    ({"name": "lake.shop.totals", "refresh": "schedule", "cron": "0 * * * *", "time_zone": "Mars/Base"}, "Mars/Base"),
    ({"name": "lake.shop.totals", "refresh": "manual", "cron": "0 * * * *"}, "Only a view refreshed on a schedule"),
    ({"name": "lake.shop.totals", "definition": "SELECT 2"}, "unknown fields: definition"),
])
def test_bad_entries_are_refused_naming_the_view_and_nothing_is_applied(
        view: MaterializedView, client_for: Any, entry: dict[str, Any], message: str) -> None:
    admin = client_for(Role.ADMIN)
    response = admin.post(API, {"jobs": [{"name": "j", "sql": "SELECT 1"}], "materialized_views": [entry]},
                          format="json")
    assert response.status_code == 400, response.json()
    assert message in response.json()["error"]["message"], response.json()
    assert entry["name"] in response.json()["error"]["message"]
    assert not SqlJob.objects.filter(name="j").exists()  # all or nothing
    view.refresh_from_db()
    assert view.refresh_mode == "manual" and not Schedule.objects.exists()


def test_a_schedule_the_team_refuses_is_a_400(view: MaterializedView, client_for: Any, team: Team) -> None:
    Schedule.objects.create(team=team, job=view_refresh_job(view=view), name="refresh lake.shop.totals",
                            cron="0 0 * * *")  # a schedule of that name the view does not own
    response = client_for(Role.ADMIN).post(API, {"materialized_views": [
        {"name": "lake.shop.totals", "refresh": "schedule", "cron": "0 1 * * *"}]}, format="json")
    assert response.status_code == 400
    assert "already exists" in response.json()["error"]["message"]
    view.refresh_from_db()
    assert view.refresh_mode == "manual"
