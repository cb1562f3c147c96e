"""Real platform processes for benchmarks: a Celery worker (threads pool) on Redis, gunicorn, an API token,
and the processes below a pid with their resident memory.

Used after `submit_to_first_row.scratch_platform()` has pointed this process's environment at a scratch
database: every process started here inherits that environment (plus what the caller adds), so the web
process, the worker and this benchmark see the same platform.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _common import REPO

from core.queues import ALL_QUEUES
from tests.support.processes import descendants, stop_process_group

BROKER = os.environ.get("LAKEPORT_BENCH_REDIS", "redis://127.0.0.1:6379/6")


def engine_scratch_root() -> str:
    """A fresh root for the engines' scratch directories that the unprivileged engine user can traverse
    (a `mkdtemp` directory is 0700, so engines get their own root, not a subdirectory of the bench's)."""
    import tempfile

    root = tempfile.mkdtemp(prefix="lp-bench-engines-")
    os.chmod(root, 0o711)
    return root


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(port: int, *, timeout: float = 120.0, proc: subprocess.Popen | None = None) -> None:
    """Block until 127.0.0.1:`port` accepts connections (RuntimeError if `proc` exits or time runs out)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"process {proc.args!r} exited with {proc.returncode} before listening on {port}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"nothing listening on 127.0.0.1:{port} after {timeout:.0f}s")


def wait_until(predicate: Callable[[], Any], *, timeout: float = 300.0, interval: float = 0.05,
               what: str = "") -> Any:
    """Poll until `predicate()` is truthy and return its value (a guard against a hang, not a measurement)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise RuntimeError(f"gave up waiting for {what or predicate}")
        time.sleep(interval)


def start_worker(logdir: Path, *, concurrency: int = 2, env: dict[str, str] | None = None,
                 hostname: str = "bench@%h") -> subprocess.Popen:
    """`celery worker --pool=threads` consuming every queue (core/queues.py) from the bench broker (no beat)."""
    cmd = [sys.executable, "-m", "celery", "-A", "config", "worker", "--loglevel=WARNING", "--pool=threads",
           f"--concurrency={concurrency}", "--hostname", hostname, "--without-mingle", "--without-gossip",
           "-Q", ",".join(ALL_QUEUES)]
    return subprocess.Popen(cmd, cwd=REPO, env={**os.environ, **(env or {})},
                            stdout=open(logdir / "worker.log", "ab"),  # noqa: SIM115 (open for its lifetime)
                            stderr=subprocess.STDOUT, start_new_session=True)


def start_gunicorn(logdir: Path, *, workers: int = 1, threads: int = 4,
                   env: dict[str, str] | None = None) -> tuple[str, subprocess.Popen]:
    """gunicorn serving the platform on a free loopback port; returns its base URL and the process."""
    port = free_port()
    cmd = [sys.executable, "-m", "gunicorn", "config.wsgi:application", "--bind", f"127.0.0.1:{port}",
           "--workers", str(workers), "--threads", str(threads), "--timeout", "180"]
    proc = subprocess.Popen(cmd, cwd=REPO, env={**os.environ, **(env or {})},
                            stdout=open(logdir / "gunicorn.log", "ab"),  # noqa: SIM115
                            stderr=subprocess.STDOUT, start_new_session=True)
    wait_for_port(port, proc=proc)
    return f"http://127.0.0.1:{port}", proc


def stop_group(proc: subprocess.Popen | None, timeout: float = 60.0) -> None:
    """SIGTERM the process group `proc` leads (a worker takes its engines with it), then SIGKILL."""
    stop_process_group(proc, timeout=timeout)


def api_token(team: Any, *, username: str = "bench-dev", role: str = "developer") -> str:
    """A bearer token of a `role` member of `team` (created in the scratch database)."""
    from teams.services import api_token_create, membership_set, user_get_or_create

    user = user_get_or_create(username=username)
    membership_set(team=team, user=user, role=role)
    return api_token_create(user=user, name="bench").raw


# ---- processes and memory --------------------------------------------------------------------------------------
def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def rss_mib(pid: int) -> float:
    """VmRSS of `pid` in MiB (0 when it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def engine_pids(worker_pid: int) -> list[int]:
    """Team engine processes (`python -m lakeport_engine.engine`) below a worker."""
    return [p for p in descendants(worker_pid) if "lakeport_engine.engine" in cmdline(p) or
            "_profiled_engine" in cmdline(p)]


def tree_rss(pid: int) -> dict[str, float]:
    """Resident MiB of an engine: its Python process, its JVM child(ren), Python workers, and the total."""
    parts = {"python": rss_mib(pid), "jvm": 0.0, "other": 0.0}
    for child in descendants(pid):
        kind = "jvm" if "java" in cmdline(child).split(" ")[0] else "other"
        parts[kind] += rss_mib(child)
    parts["total"] = parts["python"] + parts["jvm"] + parts["other"]
    return parts
