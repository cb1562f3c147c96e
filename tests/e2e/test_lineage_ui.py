"""The lineage view in a real Chromium: a table's upstream job and downstream table, click-through, column lineage.

Lineage is stored through the same service the worker calls after a run, with the statement lineage the engine
sends (the capture itself is tested with real Spark in tests/lineage/).
"""

from __future__ import annotations

import re
import shutil
from typing import Any

import pytest
from playwright.sync_api import expect

from catalogs.models import Catalog
from jobs.models import JobRun, RunStatus, SqlJob
from lineage.services import lineage_record_run
from tests.e2e.conftest import Browser
from tests.support.paths import REPO

pytestmark = pytest.mark.django_db(transaction=True)
PG = "postgres://127.0.0.1:5432"


def _ds(name: str, physical: str) -> dict[str, Any]:
    return {"name": name, "catalog": "pg", "kind": "jdbc-postgresql", "namespace": PG, "physical_name": physical,
            "version": None}


def _finished_run(job: SqlJob, lineage: dict[str, Any]) -> None:
    run = JobRun.objects.create(job=job, team=job.team, sql=job.sql, status=RunStatus.SUCCEEDED)
    lineage_record_run(run=run, statements=[{"index": 0, "status": "succeeded", "lineage": lineage}])


def test_open_a_tables_lineage_and_click_through(browser: Browser, team: Any, make_user: Any) -> None:
    make_user("lena", team, "viewer")
    Catalog.objects.create(team=team, catalog_type="jdbc", catalog_name="pg", configuration="{}")
    orders, summary, report = (_ds("pg.shop.orders", "sales.shop.orders"),
                               _ds("pg.shop.summary", "sales.shop.summary"), _ds("pg.shop.report", "sales.shop.report"))
    load = SqlJob.objects.create(team=team, name="load_summary", sql="INSERT INTO pg.shop.summary …")
    publish = SqlJob.objects.create(team=team, name="publish_report", sql="INSERT INTO pg.shop.report …")
    _finished_run(load, {"inputs": [orders], "outputs": [summary], "columns": [
        {"dataset": f"{PG}/sales.shop.summary", "column": "total", "kind": "aggregation",
         "inputs": [[f"{PG}/sales.shop.orders", "amount"]]}]})
    _finished_run(publish, {"inputs": [summary], "outputs": [report], "columns": []})

    b, page = browser, browser.page
    b.sign_in("lena")
    b.goto("/t/acme/lineage?table=pg.shop.summary")
    graph = page.get_by_test_id("lineage-graph")
    expect(page.get_by_role("heading", name=re.compile("Lineage of pg.shop.summary"))).to_be_visible()
    expect(graph.get_by_text("job: load_summary")).to_be_visible()  # upstream job
    expect(graph.get_by_text("pg.shop.orders")).to_be_visible()
    expect(graph.get_by_text("job: publish_report")).to_be_visible()
    expect(graph.get_by_text("pg.shop.report")).to_be_visible()  # downstream table
    page.get_by_role("button", name="total").click()
    expect(page.get_by_test_id("column-lineage")).to_contain_text("pg.shop.orders.amount")
    expect(page.get_by_test_id("column-lineage")).to_contain_text("aggregation")
    path = b.shot("lineage")
    (REPO / "docs" / "screenshots").mkdir(exist_ok=True)
    shutil.copy(path, REPO / "docs" / "screenshots" / "lineage.png")

    graph.get_by_text("pg.shop.report").click()  # the downstream table's own lineage
    expect(page.get_by_role("heading", name=re.compile("Lineage of pg.shop.report"))).to_be_visible()
    page.get_by_test_id("lineage-graph").get_by_text("job: publish_report").click()  # through to the job
    expect(page).to_have_url(re.compile(rf"/t/acme/jobs/{publish.id}$"))
    expect(page.get_by_test_id("job-lineage")).to_contain_text("pg.shop.summary")
    assert b.console.unexpected() == [], b.console.unexpected()
