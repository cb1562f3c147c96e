"""`make run`'s platform for tests: a real gunicorn and Celery worker on a fresh SQLite database and the filesystem
broker, with `config.settings.local` and the commands `platform/scripts/run.sh` runs (migrate, bootstrap_demo,
create_demo_data), plus an API token for the demo admin.

What differs from `make run`, and why: the data directory is a pytest temp dir (not `var/`), the secret keys are
fixed (run.sh generates them), engines run as the test's user (pytest's 0700 temp dirs), Spark is small
(`WORKER_SPARK`), and one worker serves every queue (run.sh starts one per queue; on two shared cores four
workers would only compete). The database, the broker, the result backend and the settings module are run.sh's.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.processes import stop_process_group
from tests.support.servers import HttpResponse, LiveServer, http, manage, start_gunicorn
from tests.support.worker import REPO, WORKER_SPARK

SETUP = """
from django.core.management import call_command
call_command("bootstrap_demo")
call_command("create_demo_data")
print("\\n----")
call_command("create_demo_data")
print("\\n----")
call_command("create_api_token", user="admin")
"""
# The variables a developer's shell could hold that would move the platform off run.sh's defaults.
NOT_INHERITED = ("DATABASE_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "DJANGO_SECRET_KEY",
                 "DJANGO_SETTINGS_MODULE", "LAKEPORT_TEST_DB")


@dataclass
class LocalPlatform:
    """The running platform: its URL, the demo admin's password and token, what setup printed, its data dir."""

    url: str
    token: str
    password: str
    first: str  # create_demo_data's output on a fresh database
    again: str  # … and on the second call
    data: Path
    env: dict[str, str]

    def api(self, method: str, path: str, body: Any = None) -> HttpResponse:
        """`method /api/v1/teams/demo/<path>` with the admin's token."""
        return http(method, f"{self.url}/api/v1/teams/demo/{path}", body=body, token=self.token)

    def manage(self, *args: str) -> str:
        """`manage.py <args>` on the platform's database and settings (as a developer runs it beside `make run`)."""
        return manage(self.env, *args)

    def log(self, name: str) -> str:
        """`worker.log` or `gunicorn.log` so far."""
        path = self.data / name
        return path.read_text(errors="replace") if path.exists() else ""


def local_env(data: Path) -> dict[str, str]:
    """The environment `make run` gives its processes, with `data` as the data directory."""
    env = {k: v for k, v in os.environ.items() if k not in NOT_INHERITED}
    env.update({
        "DJANGO_SETTINGS_MODULE": "config.settings.local", "LAKEPORT_DATA_DIR": str(data),
        "LAKEPORT_SECRET_KEYS": "o1cQ3W2-OM0oTzqY1xs8nLzZ3a1ayTz0H5m2G0cOqdk=", "PYSPARK_PYTHON": sys.executable,
        "LAKEPORT_ENGINE_USER": "",  # pytest's 0700 temp dirs: engines run as the test's user
        "LAKEPORT_WORKER_HEARTBEAT_SECONDS": "2", "PYTHONUNBUFFERED": "1", **WORKER_SPARK,
    })
    return env


@contextmanager
def running_local_platform(data: Path) -> Iterator[LocalPlatform]:
    """Set up `make run`'s platform in `data` (run.sh's commands), serve it, and stop every process on exit."""
    (data / "django-secret-key").write_text("local-test-signing-key-generated-like-make-run\n")
    env = local_env(data)
    for sub in ("broker/processed", "results"):
        (data / sub).mkdir(parents=True)
    manage(env, "migrate", "--noinput")
    # run.sh's commands in one process (each Django start costs seconds on a busy machine)
    out = manage(env, "shell", "-c", SETUP).split("\n----\n")
    first, again, token = out[0], out[1], out[2].strip().splitlines()[-1]
    printed = re.search(r"sign in as admin / (\S+)", first)
    assert printed, f"bootstrap_demo printed no password: {first[:500]}"
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--loglevel=INFO", "--pool=threads",
         "--concurrency=4", "--hostname", "worker-local@%h"],
        cwd=REPO, env=env, stdout=open(data / "worker.log", "ab"), stderr=subprocess.STDOUT,  # noqa: SIM115
        start_new_session=True)
    server: LiveServer | None = None
    try:
        server = start_gunicorn(env, data / "gunicorn.log")
        yield LocalPlatform(url=server.url, token=token, password=printed.group(1), first=first, again=again,
                            data=data, env=env)
    finally:
        if server is not None:
            server.stop()
        stop_process_group(worker)


@pytest.fixture(scope="module", name="local_platform")
def local_platform_fixture(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalPlatform]:
    """`local_platform`: one `make run` platform per test module (import `local_platform_fixture` into it)."""
    with running_local_platform(tmp_path_factory.mktemp("make-run")) as platform:
        yield platform
