"""The metadata browser's Materialized views panel in a real Chromium: a Delta catalog's views with their
freshness, Refresh / Refresh FULL for developers (queuing refresh runs shown in the view's refresh history), none
for viewers. The view's data and its source are real Delta tables (delta-rs); no worker runs the queued refresh
here (the refresh itself is tested with a worker in tests/catalogs/)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from deltalake import write_deltalake
from playwright.sync_api import expect

from catalogs.models import Catalog, MaterializedView
from catalogs.secrets import seal_configuration
from jobs.models import JobRun, RunStatus
from lakeport_engine.catalog_types.delta import DeltaConfig
from tests.e2e.conftest import Browser

pytestmark = pytest.mark.django_db(transaction=True)


def test_developers_see_stale_views_and_refresh_them_viewers_only_read(
        browser: Browser, team: Any, make_user: Any, delta_warehouse: Path) -> None:
    make_user("dora", team, "developer")
    make_user("vic", team, "viewer")
    config = DeltaConfig.model_validate({"warehouse": str(delta_warehouse), "default-database": "lake"})
    catalog = Catalog.objects.create(team=team, catalog_type="delta", catalog_name="wh",
                                     configuration=seal_configuration(config))
    write_deltalake(str(delta_warehouse / "lake" / "trip_totals"), pa.table({"city": ["oslo"], "n": [2]}))
    MaterializedView.objects.create(
        catalog=catalog, database="lake", name="trip_totals", refresh_mode="manual",
        query="SELECT city, count(*) AS n FROM `wh`.`lake`.`trips` GROUP BY city", sources={"wh.lake.trips": 0},
        table_version=0, last_refresh={"at": "2026-01-05T09:00:00+00:00", "mode": "full", "reason": "created"})
    write_deltalake(str(delta_warehouse / "lake" / "trips"),  # a commit the view does not reflect
                    pa.table({"trip_id": pa.array([4], pa.int64()), "fare": [7.0], "city": ["rome"]}), mode="append")

    b, page = browser, browser.page
    b.sign_in("dora")
    b.goto("/t/acme/browse")
    tree = page.get_by_test_id("metadata-tree")
    tree.get_by_role("button", name="wh", exact=True).click()
    tree.get_by_role("button", name=re.compile("Materialized views")).click()
    panel = page.get_by_test_id("materialized-views")
    row = panel.get_by_test_id("mview-lake.trip_totals")
    expect(row.get_by_test_id("freshness")).to_have_text("stale (1 version behind)")
    expect(row).to_contain_text("manual")
    row.get_by_role("button", name="Refresh", exact=True).click()
    history = page.get_by_test_id("refresh-history")
    expect(history.locator("tbody tr")).to_have_count(1)
    run = JobRun.objects.get()
    assert (run.job.name, run.status) == ("refresh wh.lake.trip_totals", RunStatus.QUEUED)
    expect(history).to_contain_text(f"#{run.id}")
    row.get_by_role("button", name="Refresh FULL").click()
    expect(history.locator("tbody tr")).to_have_count(2)
    expect(history).to_contain_text("full")
    assert sorted(JobRun.objects.values_list("sql", flat=True)) == [
        "REFRESH MATERIALIZED VIEW `wh`.`lake`.`trip_totals`",
        "REFRESH MATERIALIZED VIEW `wh`.`lake`.`trip_totals` FULL"]
    expect(page.get_by_role("table", name="Sources of wh.lake.trip_totals")).to_contain_text("wh.lake.trips")
    b.shot("materialized-views")
    assert b.console.unexpected() == [], b.console.unexpected()

    page.context.clear_cookies()
    b.sign_in("vic")
    b.goto("/t/acme/browse")
    tree = page.get_by_test_id("metadata-tree")
    tree.get_by_role("button", name="wh", exact=True).click()
    tree.get_by_role("button", name=re.compile("Materialized views")).click()
    row = page.get_by_test_id("mview-lake.trip_totals")
    expect(row.get_by_test_id("freshness")).to_have_text("stale (1 version behind)")
    expect(row.get_by_role("button", name=re.compile("Refresh"))).to_have_count(0)
