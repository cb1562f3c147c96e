"""Benchmark: Iceberg REST `loadTable` over HTTP against the bare authenticated endpoint of the same server.

Seeds team `bench` with an `iceberg` catalog whose warehouse holds one table (`--rows` rows, a few snapshots) in
a scratch PostgreSQL database, serves the app with gunicorn on 127.0.0.1, and has `--clients` concurrent clients
(keep-alive connections) measure p50/p95 latency of

    GET /api/iceberg/bench/ice/v1/namespaces/bench/tables/events      (loadTable, what every client does first)

against the bare baseline GET /api/v1/me/ (same token, same auth); each client alternates the two request by
request (bench/catalog_list.py's `run_mixed`), so both see the same load. Prints
`name, contender, baseline, ratio, rounds, spread`. Target: loadTable p95 ≤ 2× bare.

    .venv/bin/python bench/iceberg_rest_load.py [--rounds 5] [--requests 160] [--clients 8] [--rows 10000]
"""

from __future__ import annotations

import argparse
import os
import platform
import secrets
import shutil
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import psycopg
from _common import SideBySide, percentile, print_header, print_row
from catalog_list import ADMIN_DSN, free_port, run_mixed, start_server, stop_server, wait_for_port
from cryptography.fernet import Fernet

TEAM = "bench"
SNAPSHOTS = 5  # appends: the metadata a client loads carries a short history, as a live table's does


def seed(warehouse: Path, rows: int) -> str:
    """Migrate the scratch database, create team, admin token, the catalog and its table; return the token."""
    import django

    django.setup()
    import pyarrow as pa
    from django.core.management import call_command

    from catalogs.models import Catalog
    from catalogs.secrets import seal_configuration
    from lakeport_engine.catalog_types.iceberg import IcebergConfig
    from lakeport_engine.iceberg.catalog import open_catalog
    from teams.models import Role
    from teams.services import api_token_create, membership_set, team_create, user_get_or_create

    call_command("migrate", verbosity=0)
    team = team_create(name=TEAM)
    user = user_get_or_create(username="bench-admin")
    membership_set(team=team, user=user, role=Role.ADMIN)
    Catalog.objects.create(team=team, user=user, created_by=user, catalog_type="iceberg", catalog_name="ice",
                           configuration=seal_configuration(IcebergConfig.model_validate({"warehouse": str(warehouse)})))
    catalog = open_catalog(str(warehouse))
    catalog.create_namespace("bench")
    per = max(1, rows // SNAPSHOTS)
    batch = pa.table({"id": pa.array(range(per), pa.int64()), "kind": pa.array([f"k{i % 7}" for i in range(per)])})
    table = catalog.create_table(("bench", "events"), schema=batch.schema)
    for _ in range(SNAPSHOTS):
        table.append(batch)
    catalog.engine.dispose()
    return api_token_create(user=user, name="bench").raw


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--requests", type=int, default=160, help="requests per side per round")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--sequential-requests", type=int, default=20, help="per path per round, one client")
    parser.add_argument("--rows", type=int, default=10_000, help="rows of the loaded table (metadata size barely "
                                                                  "depends on it)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn worker processes (gthread, 8 threads each)")
    args = parser.parse_args()

    db = f"lp_bench_iceberg_rest_{secrets.token_hex(4)}"
    roots = Path(tempfile.mkdtemp(prefix="lp-bench-iceberg-rest-"))
    warehouse = roots / TEAM / "ice"
    warehouse.mkdir(parents=True)
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.local",
        "DJANGO_DEBUG": "false",
        "DATABASE_URL": f"{ADMIN_DSN.rsplit('/', 1)[0]}/{db}",
        "LAKEPORT_SECRET_KEYS": Fernet.generate_key().decode(),
        "LAKEPORT_TEAM_DATA_ROOTS": str(roots / "{team}"),
        "LOG_LEVEL": "WARNING",
        "CELERY_BROKER_URL": os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/14"),
    }
    os.environ.update({k: env[k] for k in ("DJANGO_SETTINGS_MODULE", "DJANGO_DEBUG", "DATABASE_URL",
                                           "LAKEPORT_SECRET_KEYS", "LAKEPORT_TEAM_DATA_ROOTS", "LOG_LEVEL",
                                           "CELERY_BROKER_URL")})
    with psycopg.connect(ADMIN_DSN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{db}"')
    server = None
    try:
        token = seed(warehouse, args.rows)
        port = free_port()
        server = start_server(port, args.workers, env)
        wait_for_port(port)
        load = f"/api/iceberg/{TEAM}/ice/v1/namespaces/bench/tables/events"
        bare = "/api/v1/me/"
        run_mixed(port, token, [load, bare], args.clients * 2, args.clients)  # warm both paths

        p50, p95, seq = SideBySide(), SideBySide(), SideBySide()
        for _ in range(args.rounds):
            lat = run_mixed(port, token, [load, bare], args.requests, args.clients)
            p50.add(percentile(lat[load], 50), percentile(lat[bare], 50))
            p95.add(percentile(lat[load], 95), percentile(lat[bare], 95))
            # One client alone: the per-request cost without queueing behind other requests.
            lat = run_mixed(port, token, [load, bare], args.sequential_requests, 1)
            seq.add(percentile(lat[load], 50), percentile(lat[bare], 50))

        print(f"# loadTable of a {args.rows}-row, {SNAPSHOTS}-snapshot table, {args.clients} concurrent clients, "
              f"gunicorn {args.workers}×8 gthread, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
              f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, load {os.getloadavg()[0]:.1f}")
        print_header()
        print_row("iceberg rest loadTable p50 vs /me/", p50)
        print_row("iceberg rest loadTable p95 vs /me/", p95)
        print_row("iceberg rest loadTable p50 vs /me/, 1 client", seq)
        verdict = "meets" if p95.ratio <= 2 else "MISSES"
        print(f"# target loadTable p95 <= 2x bare: {verdict} ({p95.ratio:.2f}x)")
    finally:
        stop_server(server, db)
        shutil.rmtree(roots, ignore_errors=True)


if __name__ == "__main__":
    main()
