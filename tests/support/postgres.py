"""A private PostgreSQL cluster for tests that break or password-check the database server.

The shared PostgreSQL on 5432 serves every engineer's tests, so a test that stops the server (fault injection)
or needs password authentication starts its own cluster with `initdb`/`pg_ctl` in a temporary directory, on a
free 127.0.0.1 port, as the `postgres` OS user (initdb refuses root). `stop()` and `start()` keep the data
directory and the port, so a stopped server comes back as the same server.
"""

from __future__ import annotations

import glob
import os
import secrets
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

from tests.support.net import free_port, wait_for_port


def pg_bin() -> Path:
    """The newest installed PostgreSQL server binaries (Debian: /usr/lib/postgresql/<major>/bin)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(Path(p).parts[-3]))
    if not found:
        raise RuntimeError("no PostgreSQL server binaries under /usr/lib/postgresql/*/bin")
    return Path(found[-1]).parent


@dataclass
class PrivatePostgres:
    """One cluster: `auth` is `trust` or `scram-sha-256` (then `password` is the superuser's password)."""

    workdir: Path
    port: int
    auth: str = "trust"
    password: str = ""
    user: str = "postgres"
    _as_postgres: list[str] = field(default_factory=lambda: ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else [])

    @property
    def data(self) -> Path:
        return self.workdir / "data"

    @property
    def log(self) -> Path:
        return self.workdir / "server.log"

    def dsn(self, database: str = "postgres") -> str:
        """A libpq URL for psycopg."""
        auth = f"{self.user}:{self.password}@" if self.password else f"{self.user}@"
        return f"postgresql://{auth}127.0.0.1:{self.port}/{database}"

    def django_url(self, database: str) -> str:
        """A DATABASE_URL (django-environ) for a server subprocess."""
        return self.dsn(database).replace("postgresql://", "postgres://", 1)

    def jdbc_url(self, database: str = "") -> str:
        return f"jdbc:postgresql://127.0.0.1:{self.port}/{database}"

    def _pg_ctl(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([*self._as_postgres, str(pg_bin() / "pg_ctl"), "-D", str(self.data), *args],
                              capture_output=True, text=True)

    def start(self) -> None:
        """Start (or restart after `stop`) on the same port and data directory; waits until it accepts."""
        options = (f"-p {self.port} -k {self.workdir} -c listen_addresses=127.0.0.1 -c shared_buffers=16MB "
                   "-c max_connections=60 -c fsync=off -c synchronous_commit=off -c full_page_writes=off")
        done = self._pg_ctl("-o", options, "-l", str(self.log), "-w", "start")
        if done.returncode != 0:
            raise RuntimeError(f"pg_ctl start failed: {done.stderr or done.stdout}; see {self.log}")
        wait_for_port(self.port, timeout=60)

    def stop(self, mode: str = "fast") -> None:
        """Stop the server: `fast` ends every session (clients see their connection die), `immediate` aborts."""
        self._pg_ctl("-m", mode, "-w", "stop")

    def is_running(self) -> bool:
        return self._pg_ctl("status").returncode == 0

    def create_database(self, name: str) -> None:
        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')

    def destroy(self) -> None:
        """Stop (abort) the server and remove its files."""
        if self.data.exists():
            self.stop("immediate")
        shutil.rmtree(self.workdir, ignore_errors=True)


def start_private_postgres(*, auth: str = "trust", prefix: str = "lp-pg-") -> PrivatePostgres:
    """initdb a new cluster in a temporary directory and start it on a free port; the caller `destroy()`s it."""
    workdir = Path(tempfile.mkdtemp(prefix=prefix))
    password = f"pg-{secrets.token_urlsafe(12)}" if auth != "trust" else ""
    server = PrivatePostgres(workdir=workdir, port=free_port(), auth=auth, password=password)
    if os.geteuid() == 0:
        shutil.chown(workdir, "postgres")
    initdb = [*server._as_postgres, str(pg_bin() / "initdb"), "-D", str(server.data), "-A", auth, "-U", "postgres",
              "--no-sync"]
    if password:
        pwfile = workdir / "pw"
        pwfile.write_text(password + "\n")
        if os.geteuid() == 0:
            shutil.chown(pwfile, "postgres")
        initdb.append(f"--pwfile={pwfile}")
    try:
        subprocess.run(initdb, check=True, capture_output=True)
        if password:
            (workdir / "pw").unlink()
        server.start()
    except Exception:
        shutil.rmtree(workdir, ignore_errors=True)
        raise
    return server
