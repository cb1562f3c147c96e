"""Fixtures for job tests: catalogs over real databases, a real Celery worker (+ beat) on Redis, polling helpers."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
import redis
from django.conf import settings

from catalogs.models import Catalog
from catalogs.secrets import seal_configuration
from jobs.models import JobRun, SqlJob
from lakeport_engine.catalog_types.jdbc import JdbcConfig
from teams.models import Team
from tests.support.servers import wait_until
from tests.support.worker import WORKER_SPARK, Worker, spawn_worker, worker_env

PG_PASSWORD = "pg-Secret-9f3a1c"  # trust auth ignores it; it must still never show up anywhere
# Short reaper timings for the worker and beat subprocesses (the default interval is 2 minutes).
FAST_REAPER = {"LAKEPORT_REAPER_INTERVAL_SECONDS": "8", "LAKEPORT_REQUEUE_AFTER_SECONDS": "3"}
wait_for = wait_until  # an older name still imported from here; one implementation in tests/support/servers.py


def run_status(run_id: int) -> str:
    return JobRun.objects.filter(id=run_id).values_list("status", flat=True).first() or ""


def wait_status(run_id: int, *statuses: str, timeout: float = 240.0) -> JobRun:
    """Wait until run `run_id` reaches one of `statuses` and return it."""
    wait_until(lambda: run_status(run_id) in statuses, timeout=timeout, what=f"run {run_id} to be {statuses}")
    return JobRun.objects.get(id=run_id)


@pytest.fixture
def pg_catalog(team: Team, pg_source: Any) -> Catalog:
    """A JDBC catalog `pg` of team acme on a fresh PostgreSQL database holding public.orders (3 rows)."""
    with psycopg.connect(pg_source.dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE public.orders (id int primary key, customer text, amount numeric(10,2))")
        conn.execute("INSERT INTO public.orders VALUES (1, 'ann', 10.50), (2, 'bob', 20.00), (3, 'cy', 5.25)")
    config = JdbcConfig.model_validate({
        "type": "postgresql", "base-url": "jdbc:postgresql://127.0.0.1:5432/", "default-database": pg_source.name,
        "username": "postgres", "password": PG_PASSWORD,
    })
    return Catalog.objects.create(team=team, catalog_type="jdbc", catalog_name="pg",
                                  configuration=seal_configuration(config))


@pytest.fixture
def make_job(team: Team) -> Callable[..., SqlJob]:
    """`make_job(sql, **fields)` → a SqlJob of team acme."""
    counter = iter(range(1, 10_000))

    def make(sql: str, **fields: Any) -> SqlJob:
        return SqlJob.objects.create(team=team, name=fields.pop("name", f"job-{next(counter)}"), sql=sql, **fields)

    return make


def flush_broker() -> None:
    """Drop every message in this suite's Redis database."""
    redis.Redis.from_url(settings.CELERY_BROKER_URL).flushdb()


def start_worker_and_beat(logdir: Path, *, hostname: str = "jobs-test@%h", beat: bool = True,
                          env: dict[str, str] | None = None, concurrency: int = 2) -> Worker:
    """Start a worker (threads pool: one warm SparkContext shared by its runs) and, optionally, beat."""
    full_env = worker_env({**FAST_REAPER, **WORKER_SPARK, **(env or {})})
    return spawn_worker(full_env, logdir, hostname=hostname, beat=beat, concurrency=concurrency)


@contextlib.contextmanager
def running_worker(tmp_path_factory: pytest.TempPathFactory, name: str, **options: Any) -> Iterator[Worker]:
    """A worker (and beat unless `beat=False`) on an empty broker for a block, stopped after it."""
    flush_broker()
    worker = start_worker_and_beat(tmp_path_factory.mktemp(name), **options)
    try:
        yield worker
    finally:
        worker.stop()


@pytest.fixture(scope="module")
def celery_worker(django_db_setup: Any, django_db_blocker: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Worker]:
    """One worker + beat shared by the tests of a module (each Spark JVM start costs seconds on 2 cores)."""
    with running_worker(tmp_path_factory, "worker") as worker:
        yield worker
