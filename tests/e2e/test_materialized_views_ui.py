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
from deltalake import DeltaTable, write_deltalake
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


SPARK_WAIT = 600_000  # ms: a safety net for a cold team engine on a shared two-core machine, not a performance claim


@pytest.mark.spark
def test_a_view_made_in_the_editor_goes_stale_in_the_lineage_graph_and_fresh_after_refresh(
        browser: Browser, team: Any, make_user: Any, delta_warehouse: Path, celery_worker: Any) -> None:
    """The whole loop on a real worker and team engine: CREATE MATERIALIZED VIEW run from the SQL editor, an append
    to its source (delta-rs, outside any run), the lineage graph's stale mark, Refresh in the table panel, the
    refresh run succeeding in its history, and the graph's fresh mark."""
    make_user("dora", team, "developer")
    config = DeltaConfig.model_validate({"warehouse": str(delta_warehouse), "default-database": "lake"})
    Catalog.objects.create(team=team, catalog_type="delta", catalog_name="wh", configuration=seal_configuration(config))
    b, page = browser, browser.page
    # the test's worker has one thread: while it runs the CREATE (starting the team's engine), an editor
    # validation queued behind it may answer 503, and the editor asks again
    b.console.expect_failed("/api/v1/teams/acme/sql/validate/", 503)
    b.sign_in("dora")
    page.get_by_role("navigation", name="Sections").get_by_role("link", name="SQL").click()
    page.get_by_role("button", name="New script").click()
    page.locator(".cm-content").click()
    page.keyboard.insert_text("CREATE MATERIALIZED VIEW wh.lake.city_fares AS "
                              "SELECT city, count(*) AS n, sum(fare) AS total FROM wh.lake.trips GROUP BY city")
    page.keyboard.press("Escape")
    page.get_by_label("Job name").fill("make city fares")
    page.get_by_role("button", name="Run", exact=True).click()
    expect(page.get_by_test_id("run-status")).to_contain_text("Succeeded", timeout=SPARK_WAIT)

    write_deltalake(str(delta_warehouse / "lake" / "trips"), mode="append", partition_by=["city"],
                    data=pa.table({"trip_id": pa.array([4], pa.int64()), "fare": [7.0], "city": ["rome"]}))
    b.goto("/t/acme/lineage?table=wh.lake.city_fares")
    graph = page.get_by_test_id("lineage-graph")
    expect(graph.get_by_text(re.compile(r"^wh\.lake\.city_fares · MV stale \(1 version(, .+)? behind\)$"))).to_be_visible(
        timeout=30_000)
    expect(graph.locator(".lineage-node.mv-stale")).to_have_count(1)  # amber
    expect(page.get_by_test_id("lineage-view-freshness")).to_contain_text("Materialized view: stale")
    b.shot("mv-stale-in-lineage")

    b.goto("/t/acme/browse")
    tree = page.get_by_test_id("metadata-tree")
    tree.get_by_role("button", name="wh", exact=True).click()
    tree.get_by_role("button", name=re.compile("Materialized views")).click()
    row = page.get_by_test_id("materialized-views").get_by_test_id("mview-lake.city_fares")
    expect(row.get_by_test_id("freshness")).to_have_text("stale (1 version behind)")
    row.get_by_role("button", name="Refresh", exact=True).click()
    history = page.get_by_test_id("refresh-history")
    expect(history.locator("tbody tr").first).to_contain_text("SUCCEEDED", ignore_case=True, timeout=SPARK_WAIT)
    expect(row.get_by_test_id("freshness")).to_have_text("fresh", timeout=30_000)  # the list polls every 15 s

    b.goto("/t/acme/lineage?table=wh.lake.city_fares")
    graph = page.get_by_test_id("lineage-graph")
    expect(graph.get_by_text("wh.lake.city_fares · MV fresh", exact=True)).to_be_visible(timeout=30_000)
    expect(graph.locator(".lineage-node.mv-fresh")).to_have_count(1)  # green
    expect(graph.locator(".lineage-node.mv-stale")).to_have_count(0)
    expect(page.get_by_test_id("lineage-view-freshness")).to_contain_text("Materialized view: fresh")
    b.shot("mv-fresh-in-lineage")
    assert DeltaTable(str(delta_warehouse / "lake" / "city_fares")).to_pyarrow_table().sort_by("city").to_pylist() \
        == [{"city": "oslo", "n": 2, "total": 21.5}, {"city": "rome", "n": 2, "total": 37.25}]
    assert b.console.unexpected() == [], b.console.unexpected()
