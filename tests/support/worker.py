"""Start a real Celery worker process against the test database and Redis."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import connection

REPO = Path(__file__).resolve().parents[2]


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


def start_worker(log_path: Path, hostname: str = "test-worker@%h", concurrency: int = 1, **extra: Any) -> subprocess.Popen:
    """Launch `celery worker` as a child process; the caller terminates it."""
    cmd = [sys.executable, "-m", "celery", "-A", "config", "worker", "--loglevel=INFO",
           f"--concurrency={concurrency}", "--hostname", hostname, "--without-mingle", "--without-gossip"]
    log = open(log_path, "wb")  # noqa: SIM115
    return subprocess.Popen(cmd, cwd=REPO, env=worker_env(extra.get("env")), stdout=log, stderr=subprocess.STDOUT)
