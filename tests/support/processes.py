"""Stopping the servers tests start, each in its own process group (so a Spark JVM child goes too)."""

from __future__ import annotations

import os
import signal
import subprocess


def stop_process_group(proc: subprocess.Popen | None, timeout: float = 30) -> None:
    """SIGTERM `proc`'s process group, wait up to `timeout` seconds, then SIGKILL it; a stopped one is left alone."""
    if proc is None or proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    except ProcessLookupError:
        pass
