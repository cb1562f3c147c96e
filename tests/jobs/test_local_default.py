"""`make run`'s default holds up: a real gunicorn and Celery worker on a fresh SQLite database and the filesystem
broker (config.settings.local, as `make run` starts them: tests/support/local_platform.py). The demo data
command is idempotent and its job returns rows; 20 runs submitted at once through the API all SUCCEED (no "database is locked")."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from tests.support.local_platform import LocalPlatform, local_platform_fixture  # noqa: F401 - the module's platform

RUNS = 20


def _api(platform: LocalPlatform, method: str, path: str, body: Any = None) -> Any:
    return platform.api(method, path, body)


def test_demo_data_is_created_once(local_platform: LocalPlatform) -> None:
    assert "created customers, orders, events, demo_lake, customer revenue, nightly revenue" in local_platform.first
    assert "already there" in local_platform.again
    schedules = _api(local_platform, "GET", "schedules/").json()["results"]
    assert [(s["name"], s["enabled"]) for s in schedules] == [("nightly revenue", False)]


def _wait_finished(platform: LocalPlatform, ids: list[int]) -> dict[int, str]:
    deadline = time.monotonic() + 600  # a safety net for runs on 2 shared cores, not a performance claim
    statuses: dict[int, str] = {}
    while time.monotonic() < deadline:
        runs = _api(platform, "GET", "runs/?page_size=100").json()["results"]
        statuses = {r["id"]: r["status"] for r in runs if r["id"] in ids}
        if len(statuses) == len(ids) and all(s in ("SUCCEEDED", "FAILED", "CANCELLED") for s in statuses.values()):
            break
        time.sleep(1)
    return statuses


def test_twenty_runs_submitted_at_once_all_succeed_and_the_demo_query_returns_rows(
        local_platform: LocalPlatform) -> None:
    demo = _api(local_platform, "GET", "jobs/").json()["results"][0]
    assert demo["name"] == "customer revenue"
    # A light job for the 20: the point is 20 runs' state writes at once on SQLite, not Spark's speed.
    light = _api(local_platform, "POST", "jobs/", {"name": "light", "sql": "SELECT ${i} AS i",
                                                   "parameters": {"i": {"type": "int"}}}).json()
    with ThreadPoolExecutor(max_workers=RUNS + 1) as pool:
        submitted = [pool.submit(_api, local_platform, "POST", f"jobs/{light['id']}/runs/", {"parameters": {"i": i}})
                     for i in range(RUNS)]
        demo_submit = pool.submit(_api, local_platform, "POST", f"jobs/{demo['id']}/runs/",
                                  {"parameters": {"min_amount": "5"}})
        responses = [f.result() for f in submitted]
        demo_run = demo_submit.result()
    assert [r.status for r in responses] == [201] * RUNS, [r.text[:300] for r in responses if r.status != 201]
    assert demo_run.status == 201, demo_run.text[:300]
    ids = [r.json()["id"] for r in responses]
    statuses = _wait_finished(local_platform, [*ids, demo_run.json()["id"]])
    failed = {i: _api(local_platform, "GET", f"runs/{i}/").json()["error"] for i, s in statuses.items()
              if s != "SUCCEEDED"}
    assert sorted(statuses.values()) == ["SUCCEEDED"] * (RUNS + 1), failed
    assert sorted(_api(local_platform, "GET", f"runs/{i}/result/").json()["rows"][0][0] for i in ids) == list(
        range(RUNS))
    result = _api(local_platform, "GET", f"runs/{demo_run.json()['id']}/result/").json()
    assert [c["name"] for c in result["columns"]][:3] == ["name", "country", "report_day"]
    assert len(result["rows"]) == 6  # every demo customer has orders of at least 5
    assert demo_run.json()["parameters"]["min_amount"] == {"type": "decimal", "value": "5"}
    log = (local_platform.data / "worker.log").read_text(errors="replace")
    assert "database is locked" not in log


def test_a_string_parameter_that_tries_to_break_out_comes_back_as_the_same_string(
        local_platform: LocalPlatform) -> None:
    job = _api(local_platform, "POST", "jobs/", {"name": "echo", "sql": "SELECT ${who} AS who",
                                                 "parameters": {"who": {"type": "string"}}}).json()
    attack = "x'; DROP TABLE demo_lake.shop.orders; -- \\' ${spark.app.name} ${env:HOME}"
    run = _api(local_platform, "POST", f"jobs/{job['id']}/runs/", {"parameters": {"who": attack}}).json()
    assert _wait_finished(local_platform, [run["id"]]) == {run["id"]: "SUCCEEDED"}
    result = _api(local_platform, "GET", f"runs/{run['id']}/result/").json()
    assert result["rows"] == [[attack]]  # one value, verbatim: no statement added, no ${…} substituted
    orders = _api(local_platform, "GET", "catalogs/demo_lake/databases/shop/tables/").json()
    assert "orders" in json.dumps(orders)
