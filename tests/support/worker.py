"""Real Celery worker and beat processes against the test database and Redis: one command line, one handle."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from django.conf import settings
from django.db import connection

from core.queues import ALL_QUEUES
from tests.support.paths import REPO
from tests.support.processes import stop_process_group

__all__ = ["WORKER_SPARK", "Worker", "celery_command", "spawn_worker", "start_worker", "worker_env"]

# Small Spark for test workers' engines: two local cores, no UI.
WORKER_SPARK = {
    "SPARK_MASTER": "local[2]",
    "LAKEPORT_SPARK_STATIC_CONF": "spark.ui.enabled=false,spark.driver.memory=1g,spark.sql.shuffle.partitions=2",
}


def worker_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """Environment for a subprocess that must see the test database (not the dev one)."""
    db = connection.settings_dict
    url = f"postgres://{db['USER'] or 'postgres'}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": url,
        "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
        "LAKEPORT_WORKER_HEARTBEAT_SECONDS": "1",
        "PYSPARK_PYTHON": sys.executable,
        "LAKEPORT_SECRET_KEYS": ",".join(settings.LAKEPORT_SECRET_KEYS),
    }
    env.update(extra or {})
    return env


def celery_command(role: Literal["worker", "beat"], *, hostname: str = "", concurrency: int | None = None,
                   pool: str | None = "threads", queue: str | None = None, schedule: Path | None = None,
                   quiet_cluster: bool = True, loglevel: str = "INFO") -> list[str]:
    """`python -m celery -A config worker|beat …` as an argument list (the platform's own app, never a shell)."""
    cmd = [sys.executable, "-m", "celery", "-A", "config", role, f"--loglevel={loglevel}"]
    if role == "beat":
        return cmd + (["--schedule", str(schedule)] if schedule is not None else [])
    if pool:
        cmd.append(f"--pool={pool}")  # threads: the worker's engines are shared by its runs
    if concurrency is not None:
        cmd.append(f"--concurrency={concurrency}")
    if hostname:
        cmd += ["--hostname", hostname]
    if quiet_cluster:
        cmd += ["--without-mingle", "--without-gossip"]
    if queue:
        cmd += ["-Q", queue]
    return cmd


@dataclass
class Worker:
    """A `celery worker` and optionally `celery beat`, each in its own process group, and the worker's log."""

    worker: subprocess.Popen | None
    beat: subprocess.Popen | None
    log_path: Path
    hostname: str = ""

    def log(self) -> str:
        """The worker's log so far."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def kill_worker(self) -> None:
        """SIGKILL the worker's process group (the Celery process and its engines): no shutdown code runs."""
        assert self.worker is not None
        os.killpg(self.worker.pid, signal.SIGKILL)
        self.worker.wait()

    def stop(self) -> None:
        """Stop the worker and beat (SIGTERM, then SIGKILL after a grace period)."""
        for proc in (self.worker, self.beat):
            stop_process_group(proc)


def spawn_worker(env: dict[str, str], logdir: Path, *, hostname: str, beat: bool = True,
                 concurrency: int = 2, prefix: str = "", queues: tuple[str, ...] = ALL_QUEUES) -> Worker:
    """A worker (threads pool) on `queues` — every queue by default: one process does what `make run`'s four
    workers do — and, optionally, beat, with `env`; logs in `logdir`."""
    logdir.mkdir(parents=True, exist_ok=True)
    log_path = logdir / f"{prefix}worker.log"
    worker = subprocess.Popen(celery_command("worker", hostname=hostname, concurrency=concurrency,
                                             queue=",".join(queues)),
                              cwd=REPO, env=env, stdout=open(log_path, "ab"),  # noqa: SIM115
                              stderr=subprocess.STDOUT, start_new_session=True)
    beat_proc = None
    if beat:
        beat_proc = subprocess.Popen(celery_command("beat", schedule=logdir / f"{prefix}beat-schedule"),
                                     cwd=REPO, env=env, stdout=open(logdir / f"{prefix}beat.log", "ab"),  # noqa: SIM115
                                     stderr=subprocess.STDOUT, start_new_session=True)
    return Worker(worker=worker, beat=beat_proc, log_path=log_path, hostname=hostname)


def start_worker(log_path: Path, hostname: str = "test-worker@%h", concurrency: int = 1, **extra: Any) -> subprocess.Popen:
    """Launch `celery worker` (its default pool, every queue) as a child process; the caller terminates it."""
    cmd = celery_command("worker", hostname=hostname, concurrency=concurrency, pool=None)
    log = open(log_path, "wb")  # noqa: SIM115
    return subprocess.Popen(cmd, cwd=REPO, env=worker_env(extra.get("env")), stdout=log, stderr=subprocess.STDOUT)
