"""Fixtures for fault injection: a private PostgreSQL and Redis the tests may break, and the platform (gunicorn,
Celery worker + beat) pointed at them through the environment, set up with the platform's own commands."""

from __future__ import annotations

import os
import secrets
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.support.leakscan import SCAN
from tests.support.postgres import PrivatePostgres, start_private_postgres
from tests.support.secrets import register_secret
from tests.support.servers import PrivateRedis, manage, server_env, start_private_redis
from tests.support.worker import WORKER_SPARK, Worker, spawn_worker

# Short reaper timings for workers and beat (production default: 120 s).
REAPER_INTERVAL = 8
FAST_REAPER = {"LAKEPORT_REAPER_INTERVAL_SECONDS": str(REAPER_INTERVAL), "LAKEPORT_REQUEUE_AFTER_SECONDS": "3",
               "LAKEPORT_WORKER_HEARTBEAT_SECONDS": "1"}


@dataclass
class Platform:
    """A database prepared with `manage.py migrate`, team `acme` and an admin/developer with API tokens."""

    pg: PrivatePostgres
    database: str
    env: dict[str, str]
    admin_token: str
    developer_token: str
    workdir: Path
    processes: list[subprocess.Popen] = field(default_factory=list)

    def dsn(self) -> str:
        return self.pg.dsn(self.database)


def prepare_platform(pg: PrivatePostgres, *, broker_url: str, workdir: Path, settings: str = "config.settings.test",
                     extra_env: dict[str, str] | None = None) -> Platform:
    """Migrate a new database on `pg` and create team acme with an admin and a developer (tokens via the CLI)."""
    database = f"lakeport_{secrets.token_hex(3)}"
    pg.create_database(database)
    env = server_env(database_url=pg.django_url(database), broker_url=broker_url, settings=settings,
                     extra=extra_env)
    manage(env, "migrate", "--no-input", "-v", "0")
    manage(env, "createteam", "acme")
    env_users = {**env, "LAKEPORT_NEW_USER_PASSWORD": register_secret(f"user-{secrets.token_urlsafe(12)}")}
    manage(env_users, "addmember", "--team", "acme", "--user", "ops", "--role", "admin", "--create")
    manage(env_users, "addmember", "--team", "acme", "--user", "dev", "--role", "developer", "--create")
    admin = register_secret(manage(env, "create_api_token", "--user", "ops").strip(), "api token")
    developer = register_secret(manage(env, "create_api_token", "--user", "dev").strip(), "api token")
    SCAN.watch_dir(workdir)
    return Platform(pg=pg, database=database, env=env, admin_token=admin, developer_token=developer, workdir=workdir)


@pytest.fixture(scope="module")
def private_pg() -> Iterator[PrivatePostgres]:
    pg = start_private_postgres(prefix="lp-faults-pg-")
    yield pg
    pg.destroy()


@pytest.fixture(scope="module")
def private_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrivateRedis]:
    server = start_private_redis(tmp_path_factory.mktemp("redis"))
    yield server
    server.stop()


# ---- Celery worker and beat on the private stack ----------------------------------------------------------------
def start_worker(env: dict[str, str], logdir: Path, name: str, *, beat: bool = True, concurrency: int = 2,
                 extra: dict[str, str] | None = None) -> Worker:
    """A worker (and beat) of the platform on `env`'s database and broker, with fast reaper timings."""
    full = {**env, **FAST_REAPER, **WORKER_SPARK, **(extra or {})}
    return spawn_worker(full, logdir, hostname=f"{name}@%h", beat=beat, concurrency=concurrency, prefix=f"{name}-")


def event_log_conf(directory: Path) -> dict[str, str]:
    """Worker env that turns Spark event logs on (into `directory`, scanned by the leak scan; uncompressed, since
    this Python has no zstd to read Spark's default codec)."""
    directory.mkdir(parents=True, exist_ok=True)
    return {"LAKEPORT_SPARK_STATIC_CONF": WORKER_SPARK["LAKEPORT_SPARK_STATIC_CONF"]
            + f",spark.eventLog.enabled=true,spark.eventLog.dir=file://{directory},spark.eventLog.compress=false"}


# ---- collection: `make test-faults`, not `make test` ----------------------------------------------------------------
def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """These tests take minutes (private servers, Spark workers killed and restarted): they run when named
    (`pytest tests/faults`, `make test-faults`) or with LAKEPORT_FAULT_TESTS=1, and stay out of a plain `pytest`."""
    if os.environ.get("LAKEPORT_FAULT_TESTS") == "1":
        return None
    here = Path(__file__).resolve().parent
    named = any(here == p or here in p.parents for p in (Path(str(a).split("::")[0]).resolve() for a in config.args))
    return None if named else True
