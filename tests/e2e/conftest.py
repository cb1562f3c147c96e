"""E2E fixtures: Debian's Chromium driven by Playwright, a live server, a real Celery worker, catalog sources.

Playwright's sync API keeps an event loop in the test thread, so Django's ORM would refuse to run there;
DJANGO_ALLOW_ASYNC_UNSAFE lets the test body keep using the ORM for setup (it never touches that loop).
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
import pytest
import redis
from django.conf import settings

from tests.support.paths import REPO
from tests.support.processes import stop_process_group
from tests.support.worker import Worker, celery_command, worker_env

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = "/usr/bin/chromium"
# The machine's network is closed: without these flags Chromium keeps trying to reach Google's services.
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
SCREENSHOTS = REPO / "test-artifacts" / "screenshots"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
PASSWORD = "pw-e2e-Browser-1"
PG_PASSWORD = "pg-Secret-e2e-7c1d"  # trust auth ignores it; it must never show up in a page


@dataclass
class ConsoleLog:
    """Console errors and uncaught exceptions of a page; `expect_failed()` whitelists one HTTP error status."""

    errors: list[str] = field(default_factory=list)
    expected: list[tuple[str, int]] = field(default_factory=list)

    def expect_failed(self, path_part: str, status: int) -> None:
        self.expected.append((path_part, status))

    def unexpected(self) -> list[str]:
        left = []
        for e in self.errors:
            # Chromium logs every 4xx as "Failed to load resource: … status of 400 (…)" with the URL after "@"
            if any(f"status of {status}" in e and part in e for part, status in self.expected):
                continue
            left.append(e)
        return left


def table_button(name: str) -> re.Pattern[str]:
    """A table's button in the tree: its name, then its kind when not a plain table ("trips (delta)")."""
    return re.compile(rf"^{re.escape(name)}( \(\w+\))?$")


@dataclass
class Browser:
    """One fresh Chromium profile with a page, its console log and a screenshot helper."""

    base_url: str
    page: Any
    console: ConsoleLog
    screenshots: Path = SCREENSHOTS

    def goto(self, path: str) -> None:
        self.page.goto(self.base_url + path)

    def shot(self, name: str) -> Path:
        """Save `<name>-<w>x<h>.png` of the full page under `screenshots` (test-artifacts/screenshots/)."""
        self.screenshots.mkdir(parents=True, exist_ok=True)
        size = self.page.viewport_size
        path = self.screenshots / f"{name}-{size['width']}x{size['height']}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path

    def open_table(self, catalog: str, database: str, table: str) -> Any:
        """Browse → the metadata tree → `catalog` → `database` → `table`; the table's details panel."""
        self.page.get_by_role("navigation", name="Sections").get_by_role("link", name="Browse").click()
        tree = self.page.get_by_test_id("metadata-tree")
        tree.get_by_role("button", name=catalog, exact=True).click()
        tree.get_by_role("button", name=database, exact=True).click()
        tree.get_by_role("button", name=table_button(table)).click()
        return self.page.get_by_test_id("table-details")

    def sign_in(self, username: str, password: str = PASSWORD, *, succeed: bool = True) -> None:
        """Sign in through the form; with `succeed`, wait until the app has left the sign-in page."""
        self.goto("/login")
        self.page.get_by_label("Username").fill(username)
        self.page.get_by_label("Password").fill(password)
        self.page.get_by_role("button", name="Sign in").click()
        if succeed:
            self.page.wait_for_url(lambda url: "/login" not in url)


# Package scope: Playwright's sync API leaves its asyncio loop marked running in this thread while it lives, so
# later tests calling asyncio.run() (the NATS client) would fail if it outlived the e2e package.
@pytest.fixture(scope="package")
def playwright_driver() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).exists(), "Debian's chromium is missing: bash platform/scripts/ensure-system.sh chromium"
    with sync_playwright() as p:
        yield p


@contextmanager
def chromium(playwright_driver: Any, base_url: str, profile: Path, *, name: str,
             screenshots: Path = SCREENSHOTS) -> Iterator[Browser]:
    """A new Chromium (fresh user-data-dir `profile`) at 1280×800 pointed at `base_url`; on exit a screenshot
    `last-<name>.png` and the console errors (the first things to read when a test fails)."""
    context = playwright_driver.chromium.launch_persistent_context(
        str(profile), executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True, viewport=DESKTOP,
    )
    context.set_default_timeout(30_000)
    page = context.pages[0] if context.pages else context.new_page()
    console = ConsoleLog()
    page.on("console", lambda m: m.type == "error" and console.errors.append(f"{m.text} @ {m.location.get('url', '')}"))
    page.on("pageerror", lambda exc: console.errors.append(f"uncaught: {exc}"))
    try:
        yield Browser(base_url=base_url, page=page, console=console, screenshots=screenshots)
    finally:
        screenshots.mkdir(parents=True, exist_ok=True)
        try:
            page.screenshot(path=str(screenshots / f"last-{name}.png"), full_page=True)
        except Exception as exc:  # a crashed page must not hide the test's own failure
            print(f"no final screenshot: {exc}")
        print("console errors:", console.errors)
        context.close()


@pytest.fixture
def browser(playwright_driver: Any, live_server: Any, tmp_path: Path, request: pytest.FixtureRequest,
            settings: Any) -> Iterator[Browser]:
    """A new Chromium (fresh user-data-dir) at 1280×800 pointed at the live server."""
    # Each browser test signs in; its worker would start engines the test never uses. The sign-in warm-up itself
    # is tested in tests/jobs/test_engine_warmup.py and runs in the default journey (its own server, defaults).
    settings.LAKEPORT_ENGINE_WARM_ON_SIGN_IN = False
    with chromium(playwright_driver, live_server.url, tmp_path / "chromium-profile", name=request.node.name) as b:
        yield b


@pytest.fixture
def make_user(db: Any) -> Callable[..., Any]:
    """`make_user("ann", team, "admin")` → a user with PASSWORD and, when given, a role in `team`."""
    from django.contrib.auth import get_user_model

    from teams.services import membership_set

    def make(username: str, team: Any = None, role: str | None = None) -> Any:
        user = get_user_model().objects.create_user(username=username, password=PASSWORD)
        if team is not None and role:
            membership_set(team=team, user=user, role=role)
        return user

    return make


@pytest.fixture
def sales_db(pg_source: Any) -> Any:
    """The PostgreSQL source with public.sales (region text, amount numeric) — something worth charting."""
    with psycopg.connect(pg_source.dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE public.sales (region text not null, amount integer, sold_on date)")
        conn.execute(
            "INSERT INTO public.sales VALUES ('north', 120, '2026-01-02'), ('south', 80, '2026-01-03'),"
            " ('east', 200, '2026-01-04'), ('west', 45, '2026-01-05')"
        )
    return pg_source


@pytest.fixture
def delta_warehouse(tmp_path: Path) -> Path:
    """A local Delta warehouse with `lake.trips`, partitioned by `city`, written with deltalake (delta-rs)."""
    import pyarrow as pa
    from deltalake import write_deltalake

    warehouse = tmp_path / "delta-warehouse"
    data = pa.table({"trip_id": pa.array([1, 2, 3], pa.int64()), "fare": pa.array([9.5, 12.0, 30.25]),
                     "city": ["oslo", "oslo", "rome"]})
    write_deltalake(str(warehouse / "lake" / "trips"), data, partition_by=["city"])
    return warehouse


@pytest.fixture
def hive_table(spark: Any) -> str:
    """`e2e_hive.events` in the session's Hive Metastore, partitioned by `day`."""
    spark.sql("CREATE DATABASE IF NOT EXISTS e2e_hive")
    spark.sql("CREATE TABLE IF NOT EXISTS e2e_hive.events (id INT, kind STRING) PARTITIONED BY (day STRING) STORED AS PARQUET")
    return "e2e_hive.events"


@pytest.fixture
def celery_worker(transactional_db: Any, tmp_path: Path) -> Iterator[Worker]:
    """A real Celery worker (threads pool; team engines as child processes) on this session's Redis db."""
    redis.Redis.from_url(settings.CELERY_BROKER_URL).flushdb()
    log_path = tmp_path / "worker.log"
    env = worker_env({
        "SPARK_MASTER": "local[1]",
        "LAKEPORT_SPARK_STATIC_CONF": "spark.ui.enabled=false,spark.driver.memory=1g,spark.sql.shuffle.partitions=2",
    })
    cmd = celery_command("worker", hostname="e2e-worker@%h", concurrency=1)
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    yield Worker(worker=proc, beat=None, log_path=log_path, hostname="e2e-worker@%h")
    stop_process_group(proc)  # the worker (its engines exit when their channel closes)
