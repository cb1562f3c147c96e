"""Finding a run's engine process from the outside, as an operator would: its pid in the run log, /proc."""

from __future__ import annotations

import re

from jobs.models import JobRunLogLine
from tests.support.servers import wait_until


def run_log_text(run_id: int) -> str:
    """A run's log lines, joined."""
    return " ".join(JobRunLogLine.objects.filter(run_id=run_id).values_list("message", flat=True))


def engine_pid(run_id: int) -> int:
    """The engine pid a run reported in its log ("Engine: warm (team engine pid N).")."""
    def find() -> int | None:
        match = re.search(r"engine pid (\d+)", run_log_text(run_id))
        return int(match.group(1)) if match else None
    return int(wait_until(find, what=f"run {run_id} to report its engine"))


def engine_pids(run_id: int) -> list[int]:
    """Every engine pid a run reported, one per attempt, in order (a re-queued run reports a second one)."""
    return [int(pid) for pid in re.findall(r"engine pid (\d+)", run_log_text(run_id))]


def alive(pid: int) -> bool:
    """True while `pid` runs (a zombie counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
