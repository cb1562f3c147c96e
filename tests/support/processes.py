"""Stopping the servers tests start, each in its own process group (so a Spark JVM child goes too)."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path


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


def descendants(pid: int) -> list[int]:
    """Every process below `pid`, read from /proc (an engine's JVM, Spark's helpers)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out
