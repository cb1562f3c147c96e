"""Private servers for fault injection: a Redis to restart, a gunicorn to call over HTTP, a plain HTTP client.

Fault tests never touch the shared PostgreSQL/Redis other tests use: they break private instances on free
127.0.0.1 ports, and point the servers under test (gunicorn, Celery workers) at them through the environment.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.net import free_port, wait_for_port
from tests.support.paths import REPO
from tests.support.processes import stop_process_group


# ---- Redis ---------------------------------------------------------------------------------------------------
@dataclass
class PrivateRedis:
    """`redis-server --port N --save ""` (no persistence: a restart loses every queued message, as the
    platform must survive). `stop()`/`start()` keep the port."""

    workdir: Path
    port: int
    process: subprocess.Popen | None = None

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self) -> None:
        log = open(self.workdir / "redis.log", "ab")  # noqa: SIM115 (kept open for the process's lifetime)
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.workdir)],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        wait_for_port(self.port, timeout=30)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None


def start_private_redis(workdir: Path) -> PrivateRedis:
    workdir.mkdir(parents=True, exist_ok=True)
    server = PrivateRedis(workdir=workdir, port=free_port())
    server.start()
    return server


# ---- subprocess environment ------------------------------------------------------------------------------------
def server_env(*, database_url: str, broker_url: str, extra: dict[str, str] | None = None,
               settings: str = "config.settings.test") -> dict[str, str]:
    """Environment for a web or worker subprocess of the platform on the given database and broker."""
    from django.conf import settings as django_settings

    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": settings,
        "DATABASE_URL": database_url,
        "CELERY_BROKER_URL": broker_url,
        "LAKEPORT_SECRET_KEYS": ",".join(django_settings.LAKEPORT_SECRET_KEYS),
        "DJANGO_SECRET_KEY": "fault-tests-not-a-secret-key",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DJANGO_SECURE_SSL_REDIRECT": "false",
        "PYSPARK_PYTHON": sys.executable,
        "PYTHONUNBUFFERED": "1",
    }
    env.update(extra or {})
    return env


def manage(env: dict[str, str], *args: str) -> str:
    """Run `manage.py <args>` with `env` (migrate, createteam, …) and return its stdout; raises on failure."""
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"manage.py {args[0]} failed: {done.stderr[-2000:]}")
    return done.stdout


# ---- gunicorn ----------------------------------------------------------------------------------------------------
@dataclass
class LiveServer:
    """A gunicorn serving the platform (WSGI) on a private port."""

    url: str
    process: subprocess.Popen
    log: Path

    def stop(self) -> None:
        stop_process_group(self.process)


def start_gunicorn(env: dict[str, str], log: Path, *, workers: int = 2, threads: int = 4) -> LiveServer:
    port = free_port()
    cmd = [sys.executable, "-m", "gunicorn", "config.wsgi:application", "--bind", f"127.0.0.1:{port}",
           "--workers", str(workers), "--threads", str(threads), "--timeout", "120", "--graceful-timeout", "10"]
    process = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=open(log, "ab"),  # noqa: SIM115
                               stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_for_port(port, timeout=60)
    except TimeoutError:
        process.kill()
        raise RuntimeError(f"gunicorn did not start; see {log}") from None
    return LiveServer(url=f"http://127.0.0.1:{port}", process=process, log=log)


# ---- HTTP --------------------------------------------------------------------------------------------------------
@dataclass
class HttpResponse:
    status: int
    headers: dict[str, str]
    text: str
    data: Any = field(default=None)

    def json(self) -> Any:
        return self.data


def http(method: str, url: str, *, body: Any = None, token: str | None = None, headers: dict[str, str] | None = None,
         timeout: float = 60.0) -> HttpResponse:
    """One HTTP call (JSON in and out) that never hangs past `timeout`; recorded for the leak scan."""
    from tests.support.leakscan import SCAN

    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Accept", "application/json")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    for key, value in (headers or {}).items():
        request.add_header(key, value)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as resp:
            status, head, raw = resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as err:
        status, head, raw = err.code, dict(err.headers), err.read()
    text = raw.decode("utf-8", errors="replace")
    SCAN.record_response(f"{status} {method} {url} (live server)", text + "\n" + json.dumps(head))
    try:
        parsed = json.loads(text) if text else None
    except ValueError:
        parsed = None
    return HttpResponse(status=status, headers=head, text=text, data=parsed)


def wait_until(predicate: Any, *, timeout: float = 240.0, interval: float = 0.25, what: str = "") -> Any:
    """Poll until `predicate()` is truthy and return it: a guard against a hang, not a performance limit."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what or predicate}")
        time.sleep(interval)
