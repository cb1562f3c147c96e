"""The metadata browser's table panel in a real Chromium: a team admin runs OPTIMIZE and VACUUM of a Delta table on a
real worker and team engine and sees each run in the table's maintenance history with Delta's metrics, while the
panel's version follows the commits; a viewer sees the same history and no buttons. The table is written by delta-rs
and checked by delta-rs afterwards (same rows, one data file left on disk)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from deltalake import DeltaTable, write_deltalake
from playwright.sync_api import expect

from catalogs.models import Catalog
from catalogs.secrets import seal_configuration
from jobs.models import JobRun, RunStatus
from lakeport_engine.catalog_types.delta import DeltaConfig
from tests.e2e.conftest import Browser
from tests.support.worker import Worker

pytestmark = pytest.mark.django_db(transaction=True)
SPARK_WAIT = 240_000  # ms; a safety net for a cold Spark on 2 shared cores, not a performance claim


def _data_files(table: Path) -> list[Path]:
    return sorted(p for p in table.rglob("*.parquet") if "_delta_log" not in p.parts)


def test_an_admin_optimizes_and_vacuums_from_the_table_panel_and_sees_the_history(
        browser: Browser, team: Any, make_user: Any, celery_worker: Worker, tmp_path: Path) -> None:
    make_user("ada", team, "admin")
    make_user("vic", team, "viewer")
    warehouse = tmp_path / "wh"
    config = DeltaConfig.model_validate({"warehouse": str(warehouse), "default-database": "lake"})
    Catalog.objects.create(team=team, catalog_type="delta", catalog_name="wh", configuration=seal_configuration(config))
    path = warehouse / "lake" / "orders"
    for n in range(3):  # three small files; a zero retention lets VACUUM delete the compacted ones at once
        write_deltalake(str(path), pa.table({"id": pa.array([n], pa.int64()), "who": [f"w{n}"]}), mode="append",
                        configuration={"delta.deletedFileRetentionDuration": "interval 0 hours"})
    rows = sorted(DeltaTable(str(path)).to_pyarrow_table().to_pylist(), key=repr)
    assert len(_data_files(path)) == 3

    b, page = browser, browser.page
    b.sign_in("ada")
    details = b.open_table("wh", "lake", "orders")
    expect(details).to_contain_text("version 2")
    panel = details.get_by_test_id("table-maintenance")
    expect(panel).to_contain_text("No OPTIMIZE or VACUUM run yet.")

    panel.get_by_role("button", name="Run OPTIMIZE").click()
    history = panel.get_by_test_id("maintenance-history")
    expect(history.locator("tbody tr")).to_have_count(1)  # the queued run is listed at once
    optimize = JobRun.objects.get()
    first = history.get_by_test_id(f"maintenance-run-{optimize.id}")
    expect(first).to_contain_text("OPTIMIZE")
    expect(first.locator(".status")).to_have_text("SUCCEEDED", timeout=SPARK_WAIT)
    expect(first.get_by_test_id("outcome")).to_have_text("3 files compacted into 1")
    expect(details).to_contain_text("version 3")  # the panel read the table again when the run ended

    panel.get_by_label("Retain hours").fill("0")
    panel.get_by_role("button", name="Run VACUUM").click()
    expect(history.locator("tbody tr")).to_have_count(2)
    vacuum = JobRun.objects.exclude(id=optimize.id).get()
    assert vacuum.sql == "VACUUM `wh`.`lake`.`orders` RETAIN 0 HOURS"
    second = history.locator("tbody tr").first  # newest first
    expect(second).to_contain_text(f"#{vacuum.id}")
    expect(second).to_contain_text("VACUUM")
    expect(second.locator(".status")).to_have_text("SUCCEEDED", timeout=SPARK_WAIT)
    expect(second.get_by_test_id("outcome")).to_have_text("3 files deleted")
    expect(details).to_contain_text("version 5")  # VACUUM START and VACUUM END
    b.shot("table-maintenance")
    assert b.console.unexpected() == [], b.console.unexpected()

    table = DeltaTable(str(path))
    operations = [h["operation"] for h in table.history()]  # newest first
    assert "OPTIMIZE" in operations and operations[0].startswith("VACUUM"), operations
    assert sorted(table.to_pyarrow_table().to_pylist(), key=repr) == rows
    assert len(_data_files(path)) == 1 and [str(p) for p in _data_files(path)] == [
        u.removeprefix("file://") for u in table.file_uris()]
    assert {r.status for r in JobRun.objects.all()} == {RunStatus.SUCCEEDED}

    page.context.clear_cookies()  # a viewer reads the same history and gets no buttons
    b.sign_in("vic")
    details = b.open_table("wh", "lake", "orders")
    panel = details.get_by_test_id("table-maintenance")
    expect(panel.get_by_test_id("maintenance-history").locator("tbody tr")).to_have_count(2)
    expect(panel.get_by_test_id(f"maintenance-run-{optimize.id}").get_by_test_id("outcome")).to_have_text(
        "3 files compacted into 1")
    expect(panel.get_by_role("button", name="Run OPTIMIZE")).to_have_count(0)
    expect(panel.get_by_role("button", name="Run VACUUM")).to_have_count(0)
