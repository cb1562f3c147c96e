"""PostgreSQL stops for 10 s while clients keep writing catalogs through a real gunicorn.

Requests fail cleanly (503 with the standard error body, never a 500 or a dropped connection), no catalog is
half-written (every row has its audit entry, decrypts, and its version matches its history), and the same
server processes serve writes again once the database is back, with no restart.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from catalogs.secrets import secret_fields, stored_plain
from lakeport_engine.catalog_types.jdbc import JdbcConfig
from tests.faults.conftest import Platform, prepare_platform
from tests.support.postgres import PrivatePostgres
from tests.support.secrets import register_secret
from tests.support.servers import LiveServer, http, start_gunicorn, wait_until

OUTAGE_SECONDS = 10
CATALOG_PASSWORD = register_secret("outage-Secr3t-4d5e6f70")
API = "/api/v1/teams/acme"


def jdbc_body(name: str, description: str = "") -> dict[str, Any]:
    return {"catalog_name": name, "catalog_type": "jdbc", "description": description, "configuration": {
        "type": "postgresql", "base-url": "jdbc:postgresql://db.internal:5432/", "default-database": "sales",
        "username": "reader", "password": CATALOG_PASSWORD}}


@pytest.fixture(scope="module")
def platform(private_pg: PrivatePostgres, tmp_path_factory: pytest.TempPathFactory) -> Platform:
    # Production settings: persistent database connections (CONN_MAX_AGE), as a deployment runs them.
    return prepare_platform(private_pg, broker_url="memory://", workdir=tmp_path_factory.mktemp("outage"),
                            settings="config.settings.production")


@pytest.fixture(scope="module")
def server(platform: Platform) -> Iterator[LiveServer]:
    live = start_gunicorn(platform.env, platform.workdir / "gunicorn.log", workers=2, threads=4)
    yield live
    live.stop()


class Writers:
    """Threads that create catalogs (POST) and patch one catalog (PATCH) until stopped, recording every answer."""

    def __init__(self, server: LiveServer, token: str, threads: int = 4) -> None:
        self.server, self.token = server, token
        self.stop_event = threading.Event()
        self.results: list[tuple[str, str, int | None, Any, float]] = []  # (kind, name, status, body, finished)
        self.errors: list[str] = []
        self.threads = [threading.Thread(target=self._loop, args=(i,), daemon=True) for i in range(threads)]
        self._lock = threading.Lock()

    def _loop(self, index: int) -> None:
        n = 0
        while not self.stop_event.is_set():
            n += 1
            name = f"w{index}_{n}"
            try:
                if n % 3 == 0:
                    resp = http("PATCH", f"{self.server.url}{API}/catalogs/shared/", token=self.token,
                                body={"description": f"writer {index} pass {n}"}, timeout=60)
                    kind, name = "patch", "shared"
                else:
                    resp = http("POST", f"{self.server.url}{API}/catalogs/", token=self.token, body=jdbc_body(name),
                                timeout=60)
                    kind = "create"
            except Exception as exc:  # a dropped connection or a hang is exactly what must not happen
                with self._lock:
                    self.errors.append(f"{name}: {type(exc).__name__}: {exc}")
                continue
            with self._lock:
                self.results.append((kind, name, resp.status, resp.data, time.monotonic()))
            time.sleep(0.05)

    def __enter__(self) -> Writers:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop_event.set()
        for t in self.threads:
            t.join(timeout=120)


def db_rows(platform: Platform) -> tuple[dict[str, tuple[str, int]], dict[str, list[tuple[str, int]]]]:
    """Catalog rows (name → (configuration, version)) and audit entries (name → [(action, version)])."""
    with psycopg.connect(platform.dsn()) as conn:
        rows = {name: (config, version) for name, config, version in
                conn.execute("SELECT catalog_name, configuration, version FROM t_spark_catalog")}
        trail: dict[str, list[tuple[str, int]]] = {}
        for name, action, version in conn.execute(
                "SELECT catalog_name, action, version FROM t_spark_catalog_change ORDER BY id"):
            trail.setdefault(name, []).append((action, version))
    return rows, trail


def gunicorn_pids(server: LiveServer) -> set[int]:
    import subprocess

    out = subprocess.run(["pgrep", "-g", str(server.process.pid)], capture_output=True, text=True).stdout
    return {int(p) for p in out.split()}


def test_database_outage_during_catalog_writes(platform: Platform, server: LiveServer) -> None:
    created = http("POST", f"{server.url}{API}/catalogs/", token=platform.admin_token, body=jdbc_body("shared"))
    assert created.status == 201, created.text
    pids_before = gunicorn_pids(server)

    with Writers(server, platform.admin_token) as writers:
        wait_until(lambda: len(writers.results) >= 20, what="writes before the outage")
        platform.pg.stop("fast")  # every open session is terminated; new connections are refused
        stopped_at = time.monotonic()
        time.sleep(OUTAGE_SECONDS)
        starting_at = time.monotonic()  # the server may accept connections before start() returns
        platform.pg.start()
        restarted_at = time.monotonic()
        # Keep writing until each writer has been answered a few times by the restored database.
        wait_until(lambda: sum(1 for r in writers.results if r[4] > restarted_at and r[2] in (200, 201)) >= 12,
                   what="writes after the database came back")

    assert not writers.errors, writers.errors[:5]  # no dropped connection, no timeout: every request was answered
    statuses = [status for _k, _n, status, _b, _t in writers.results]
    during = [r for r in writers.results if stopped_at + 1 < r[4] < starting_at]
    assert during and all(r[2] == 503 for r in during), {r[2] for r in during}
    assert set(statuses) <= {200, 201, 503}, sorted(set(statuses))
    for _kind, _name, status, body, _t in writers.results:
        if status == 503:
            assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "details"}, body
            assert body["error"]["code"] == "service_unavailable"

    # Recovered without a restart: the same gunicorn processes answer, and every write now succeeds.
    assert server.process.poll() is None and gunicorn_pids(server) == pids_before
    after = [http("POST", f"{server.url}{API}/catalogs/", token=platform.admin_token, body=jdbc_body(f"after_{i}"))
             for i in range(16)]
    assert [r.status for r in after] == [201] * 16, [(r.status, r.text[:200]) for r in after if r.status != 201]

    # No half-written catalog: every row decrypts, has its create entry and one audit entry per version.
    rows, trail = db_rows(platform)
    answered_created = {name for kind, name, status, _b, _t in writers.results if kind == "create" and status == 201}
    assert answered_created <= set(rows)  # a 201 was really committed
    for name, (config, version) in rows.items():
        plain = stored_plain(config)
        assert plain["password"] == CATALOG_PASSWORD and CATALOG_PASSWORD not in config, name
        assert set(secret_fields(JdbcConfig).scalars) == {"password"}
        actions = trail.get(name, [])
        assert actions and actions[0] == ("create", 1), (name, actions)
        assert [v for _a, v in actions] == list(range(1, version + 1)), (name, actions, version)
    # A 503'd create either never happened or happened completely (the commit can win before the answer is lost).
    for kind, name, status, _b, _t in writers.results:
        if kind == "create" and status == 503 and name in rows:
            assert trail[name][0] == ("create", 1)
    # Each PATCH sets a new description: answered 200s all count, a 503'd one may or may not have committed.
    patches = [r for r in writers.results if r[0] == "patch"]
    ok_patches = [r for r in patches if r[2] == 200]
    assert len(ok_patches) <= rows["shared"][1] - 1 <= len(patches)


def test_health_reports_the_database_and_recovers(platform: Platform, server: LiveServer) -> None:
    platform.pg.stop("fast")
    try:
        down = http("GET", f"{server.url}/healthz")
        assert down.status == 503 and down.data == {"status": "unavailable"}  # detail: platform admins only
        listing = http("GET", f"{server.url}{API}/catalogs/", token=platform.admin_token)
        assert listing.status == 503 and listing.data["error"]["code"] == "service_unavailable"
    finally:
        platform.pg.start()
    up = wait_until(lambda: (r := http("GET", f"{server.url}{API}/catalogs/?page_size=1",
                                       token=platform.admin_token)).status == 200 and r, what="listing after restart")
    assert up.data["count"] >= 1
    assert Path(platform.workdir / "gunicorn.log").exists()
