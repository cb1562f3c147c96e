"""Benchmark: listing catalogs over HTTP against a bare endpoint of the same server.

Seeds 1,000 catalogs (JDBC with sealed passwords, Hive, Delta with sealed storage options) in a scratch
PostgreSQL database, serves the app with gunicorn on 127.0.0.1 (a free port), and has 16 concurrent clients
(threads with keep-alive http.client connections) measure p50/p95 latency of

    GET /api/v1/teams/bench/catalogs/?page_size=50     (and a full ?page_size=1000 listing)

against the bare baseline GET /api/v1/me/ (same auth, a couple of queries, a tiny body): every client thread
alternates the two request by request, so both see the same load. Prints `name, contender, baseline, ratio, rounds, spread`. Target: list-50 p95 ≤ 2× bare.

    .venv/bin/python bench/catalog_list.py [--rounds 5] [--requests 320] [--clients 16]
"""

from __future__ import annotations

import argparse
import http.client
import os
import platform
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

import psycopg
from _common import REPO, SideBySide, percentile, print_header, print_row
from cryptography.fernet import Fernet

ADMIN_DSN = os.environ.get("LAKEPORT_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/postgres")
TEAM = "bench"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise TimeoutError(f"gunicorn did not listen on {port}")


def seed(count: int) -> str:
    """Migrate the scratch database and create team, admin token and `count` catalogs; return the token."""
    import django

    django.setup()
    from django.core.management import call_command

    from catalogs.models import Catalog
    from catalogs.secrets import seal_configuration
    from catalogs.types import get_catalog_type
    from teams.models import Role
    from teams.services import api_token_create, membership_set, team_create, user_get_or_create

    call_command("migrate", verbosity=0)
    team = team_create(name=TEAM)
    user = user_get_or_create(username="bench-admin")
    membership_set(team=team, user=user, role=Role.ADMIN)
    warehouse = Path(tempfile.gettempdir()) / "lp-bench-warehouse"
    rows = []
    for i in range(count):
        kind = ("jdbc", "hive", "delta")[i % 3]
        if kind == "jdbc":
            raw = {"type": "postgresql", "base-url": "jdbc:postgresql://127.0.0.1:5432/", "default-database": f"db{i}",
                   "username": "etl", "password": secrets.token_urlsafe(12), "properties": {"connectTimeout": "5"}}
        elif kind == "hive":
            raw = {"metastore-uris": f"thrift://127.0.0.1:{9000 + i % 100}", "default-database": "default"}
        else:
            raw = {"warehouse": str(warehouse / f"w{i}"),
                   "storage-options": {"AWS_ACCESS_KEY_ID": secrets.token_hex(8),
                                       "AWS_SECRET_ACCESS_KEY": secrets.token_hex(16)}}
        config = get_catalog_type(kind).config_model.model_validate(raw)
        rows.append(Catalog(team=team, user=user, created_by=user, catalog_type=kind, catalog_name=f"cat_{i:04d}",
                            configuration=seal_configuration(config), description=f"Benchmark catalog {i}"))
    Catalog.objects.bulk_create(rows, batch_size=500)
    return api_token_create(user=user, name="bench").raw


def start_server(port: int, workers: int, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """gunicorn serving the app on 127.0.0.1:`port` (gthread, 8 threads a worker) in its own process group."""
    return subprocess.Popen(
        [str(Path(sys.executable).parent / "gunicorn"), "config.wsgi:application", "--bind", f"127.0.0.1:{port}",
         "--workers", str(workers), "--worker-class", "gthread", "--threads", "8",
         "--log-level", "warning", "--keep-alive", "30"],
        cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
    )


def stop_server(server: subprocess.Popen[bytes] | None, db: str) -> None:
    """Stop the bench's gunicorn group and drop its scratch database."""
    if server is not None:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
    from django.db import connections

    connections.close_all()
    with psycopg.connect(ADMIN_DSN, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')


def run_mixed(port: int, token: str, paths: list[str], per_path: int, clients: int) -> dict[str, list[float]]:
    """`clients` threads, each with a keep-alive connection, alternating between `paths` (each thread starts at a
    different one) until every path got `per_path` requests; latencies in seconds by path. Alternating request by
    request means contender and baseline see the same server and machine load."""
    per_client = max(1, per_path // clients)

    def client(index: int) -> dict[str, list[float]]:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        latencies: dict[str, list[float]] = {p: [] for p in paths}
        try:
            for n in range(per_client * len(paths)):
                path = paths[(index + n) % len(paths)]
                start = time.perf_counter()
                conn.request("GET", path, headers={"Authorization": f"Bearer {token}", "Host": "127.0.0.1"})
                resp = conn.getresponse()
                body = resp.read()
                latencies[path].append(time.perf_counter() - start)
                if resp.status != 200:
                    raise RuntimeError(f"{path} answered {resp.status}: {body[:200]!r}")
        finally:
            conn.close()
        return latencies

    merged: dict[str, list[float]] = {p: [] for p in paths}
    with ThreadPoolExecutor(max_workers=clients) as pool:
        for result in pool.map(client, range(clients)):
            for path, values in result.items():
                merged[path].extend(values)
    return merged


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalogs", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--requests", type=int, default=320, help="requests per side per round (page_size=50)")
    parser.add_argument("--full-requests", type=int, default=64, help="requests per side per round (page_size=1000)")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--sequential-requests", type=int, default=20, help="per path per round, one client")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn worker processes (gthread, 8 threads each)")
    args = parser.parse_args()

    db = f"lp_bench_catalogs_{secrets.token_hex(4)}"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.local",
        "DJANGO_DEBUG": "false",
        "DATABASE_URL": f"{ADMIN_DSN.rsplit('/', 1)[0]}/{db}",
        "LAKEPORT_SECRET_KEYS": Fernet.generate_key().decode(),
        "LOG_LEVEL": "WARNING",
        "CELERY_BROKER_URL": os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/14"),
    }
    os.environ.update({k: env[k] for k in ("DJANGO_SETTINGS_MODULE", "DJANGO_DEBUG", "DATABASE_URL",
                                           "LAKEPORT_SECRET_KEYS", "LOG_LEVEL", "CELERY_BROKER_URL")})
    with psycopg.connect(ADMIN_DSN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{db}"')
    server = None
    try:
        token = seed(args.catalogs)
        port = free_port()
        server = start_server(port, args.workers, env)
        wait_for_port(port)
        list50 = f"/api/v1/teams/{TEAM}/catalogs/?page_size=50"
        list1000 = f"/api/v1/teams/{TEAM}/catalogs/?page_size=1000"
        bare = "/api/v1/me/"
        run_mixed(port, token, [list50, list1000, bare], args.clients * 2, args.clients)  # warm every path

        p50_50, p95_50, p50_1000, p95_1000 = SideBySide(), SideBySide(), SideBySide(), SideBySide()
        seq_50, seq_1000 = SideBySide(), SideBySide()
        for _ in range(args.rounds):
            lat = run_mixed(port, token, [list50, bare], args.requests, args.clients)
            p50_50.add(percentile(lat[list50], 50), percentile(lat[bare], 50))
            p95_50.add(percentile(lat[list50], 95), percentile(lat[bare], 95))
            lat = run_mixed(port, token, [list1000, bare], args.full_requests, args.clients)
            p50_1000.add(percentile(lat[list1000], 50), percentile(lat[bare], 50))
            p95_1000.add(percentile(lat[list1000], 95), percentile(lat[bare], 95))
            # One client alone: the per-request cost without queueing behind other requests.
            lat = run_mixed(port, token, [list50, list1000, bare], args.sequential_requests, 1)
            seq_50.add(percentile(lat[list50], 50), percentile(lat[bare], 50))
            seq_1000.add(percentile(lat[list1000], 50), percentile(lat[bare], 50))

        print(f"# {args.catalogs} catalogs, {args.clients} concurrent clients, gunicorn {args.workers}×8 gthread, "
              f"{os.cpu_count()} CPUs, Python {platform.python_version()}, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC")
        print_header()
        print_row("list page_size=50 p50 vs /me/", p50_50)
        print_row("list page_size=50 p95 vs /me/", p95_50)
        print_row("list page_size=1000 p50 vs /me/", p50_1000)
        print_row("list page_size=1000 p95 vs /me/", p95_1000)
        print_row("list page_size=50 p50 vs /me/, 1 client", seq_50)
        print_row("list page_size=1000 p50 vs /me/, 1 client", seq_1000)
        verdict = "meets" if p95_50.ratio <= 2 else "MISSES"
        print(f"# target list-50 p95 <= 2x bare: {verdict} ({p95_50.ratio:.2f}x)")
    finally:
        stop_server(server, db)


if __name__ == "__main__":
    main()
