"""Benchmark: submit-to-first-row of a run on the warm engine vs the isolated engine (a driver of its own per run).

A scratch PostgreSQL database gets the platform's tables, a team and a JDBC catalog over a second scratch
database holding a small table. Each round submits the same job twice — once with engine "warm", once with
engine "isolated" — and times `run_submit` → claim → engine → the run row holding its first result row
(the worker's path, executed in this process, without the broker hop that both sides would pay alike).
The warm engine is warmed by one untimed run first: that is what a worker's warm engine is.
Target: warm ≤ 0.1× isolated, for `SELECT 1` and for a JDBC query.

    .venv/bin/python bench/submit_to_first_row.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from _common import REPO, SideBySide, print_header, print_row
from cryptography.fernet import Fernet

ADMIN_DSN = os.environ.get("LAKEPORT_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/postgres")
TEAM = "bench"


@contextmanager
def scratch_platform(*, env: dict[str, str] | None = None) -> Iterator[dict[str, Any]]:
    """A migrated scratch platform database with team `bench` and JDBC catalog `pg` over a scratch source
    database (table public.orders, 1,000 rows); Django is set up in this process. Both databases are dropped."""
    tag = secrets.token_hex(4)
    platform_db, source_db = f"lp_bench_jobs_{tag}", f"lp_bench_src_{tag}"
    base = ADMIN_DSN.rsplit("/", 1)[0]
    with psycopg.connect(ADMIN_DSN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{platform_db}"')
        conn.execute(f'CREATE DATABASE "{source_db}"')
    with psycopg.connect(f"{base}/{source_db}", autocommit=True) as conn:
        conn.execute("CREATE TABLE public.orders (id int primary key, customer text, amount numeric(10,2))")
        conn.execute("INSERT INTO public.orders SELECT g, 'c' || (g % 37), g * 1.25 FROM generate_series(1, 1000) g")
    os.environ.update({
        "DJANGO_SETTINGS_MODULE": "config.settings.local",
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{platform_db}",
        "LAKEPORT_SECRET_KEYS": Fernet.generate_key().decode(),
        "PYSPARK_PYTHON": sys.executable,
        "SPARK_MASTER": os.environ.get("SPARK_MASTER", "local[2]"),
        "LAKEPORT_SPARK_STATIC_CONF": os.environ.get(
            "LAKEPORT_SPARK_STATIC_CONF", "spark.ui.enabled=false,spark.sql.shuffle.partitions=2"),
        "LOG_LEVEL": "WARNING",
        **(env or {}),
    })
    sys.path.insert(0, str(REPO))
    import django

    django.setup()
    from django.core.management import call_command

    from catalogs.models import Catalog
    from catalogs.secrets import seal_configuration
    from lakeport_engine.catalog_types.jdbc import JdbcConfig
    from teams.services import team_create

    try:
        call_command("migrate", verbosity=0)
        team = team_create(name=TEAM)
        config = JdbcConfig.model_validate({"type": "postgresql", "base-url": "jdbc:postgresql://127.0.0.1:5432/",
                                            "default-database": source_db, "username": "postgres",
                                            "password": secrets.token_urlsafe(12)})
        Catalog.objects.create(team=team, catalog_type="jdbc", catalog_name="pg",
                               configuration=seal_configuration(config))
        yield {"team": team, "platform_db": platform_db, "source_db": source_db}
    finally:
        from django.db import connections

        connections.close_all()
        with psycopg.connect(ADMIN_DSN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{platform_db}" WITH (FORCE)')
            conn.execute(f'DROP DATABASE IF EXISTS "{source_db}" WITH (FORCE)')


def time_run(job: Any) -> float:
    """Seconds from submit to the finished run holding its first result row (the worker's path, in-process)."""
    from jobs.models import JobRun, RunStatus
    from jobs.services.execution import run_execute
    from jobs.services.runs import run_submit

    start = time.perf_counter()
    run = run_submit(job=job, user=None, enqueue=False).run
    run_execute(run_id=run.id, worker="bench@local")
    elapsed = time.perf_counter() - start
    run = JobRun.objects.get(id=run.id)
    if run.status != RunStatus.SUCCEEDED or not (run.result or {}).get("rows"):
        raise RuntimeError(f"run {run.id} {run.status}: {run.error}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    queries = {
        "SELECT 1": "SELECT 1 AS one",
        "JDBC query": "SELECT customer, sum(amount) AS total FROM pg.public.orders GROUP BY customer ORDER BY total DESC",
    }
    with scratch_platform() as env:
        from jobs.models import SqlJob

        results: dict[str, SideBySide] = {}
        for label, sql in queries.items():
            warm = SqlJob.objects.create(team=env["team"], name=f"{label} warm", sql=sql, engine="warm")
            isolated = SqlJob.objects.create(team=env["team"], name=f"{label} isolated", sql=sql, engine="isolated")
            time_run(warm)  # a worker's warm engine is warm: the first run pays for the JVM and the JDBC driver
            result = SideBySide()
            for i in range(args.rounds):
                if i % 2 == 0:
                    b, c = time_run(isolated), time_run(warm)
                else:
                    c, b = time_run(warm), time_run(isolated)
                result.add(c, b)
            results[label] = result
        print_header()
        for label, result in results.items():
            print_row(f"submit-to-first-row {label} (warm vs isolated)", result)


if __name__ == "__main__":
    main()
