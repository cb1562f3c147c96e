"""A real Hive Metastore Thrift server, started with the shipped platform/scripts/hive-metastore.sh."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tests.support.net import free_port, wait_for_port
from tests.support.paths import REPO


@dataclass
class HiveMetastore:
    """A running metastore: its Thrift URI, warehouse directory and process."""

    uri: str
    port: int
    warehouse: Path
    process: subprocess.Popen

    def stop(self) -> None:
        """Terminate the server and wait for it."""
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()


def start_hive_metastore(workdir: Path, port: int | None = None) -> HiveMetastore:
    """Start a metastore in `workdir` (conf, Derby db, warehouse, log) and wait until it listens."""
    port = port or free_port()
    warehouse = workdir / "warehouse"
    env = {**os.environ, "HMS_HOME": str(workdir), "HMS_PORT": str(port), "HMS_WAREHOUSE": str(warehouse),
           "PYTHON": sys.executable}
    log = open(workdir / "metastore.log", "wb")  # noqa: SIM115 (kept open for the process's lifetime)
    process = subprocess.Popen(["bash", str(REPO / "platform/scripts/hive-metastore.sh")],
                               stdout=log, stderr=subprocess.STDOUT, env=env)
    # A JVM start on a loaded machine (three shards, other suites) took over 90 s: wait long, but stop at once
    # when the process has died (then waiting longer shows nothing).
    deadline = time.monotonic() + 300
    while True:
        try:
            wait_for_port(port, timeout=5)
            break
        except TimeoutError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise RuntimeError(f"Hive Metastore did not start; see {workdir / 'metastore.log'}") from None
    return HiveMetastore(uri=f"thrift://127.0.0.1:{port}", port=port, warehouse=warehouse, process=process)
