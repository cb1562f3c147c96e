"""Spark stage/task progress of a job group, read from the driver's status tracker (no Django)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

SETTLE_SECONDS = 2.0  # how long the final sample waits for the tracker to see the script's jobs end


def stage_progress(sc: Any, job_group: str) -> dict[str, int]:
    """Spark stages and tasks done/total of the jobs in `job_group` (sampled from the status tracker).

    A stage of a succeeded job that did not run all its tasks was skipped: its shuffle output was already there
    (adaptive execution runs each shuffle as a job of its own, then the final job lists it again under a new stage
    id). Skipped stages never run, so they count in neither total, as in the Spark UI's "Succeeded/Total".
    """
    tracker = sc.statusTracker()
    stages_done = stages_total = tasks_done = tasks_total = 0
    seen: set[int] = set()
    for job_id in tracker.getJobIdsForGroup(job_group):
        job = tracker.getJobInfo(job_id)
        if job is None:
            continue
        for stage_id in job.stageIds:
            if stage_id in seen:
                continue
            seen.add(stage_id)
            stage = tracker.getStageInfo(stage_id)
            if stage is None:  # forgotten by the tracker: only finished stages are dropped
                stages_total += 1
                stages_done += 1
                continue
            complete = stage.numCompletedTasks >= stage.numTasks
            if job.status == "SUCCEEDED" and not complete:
                continue  # skipped
            stages_total += 1
            stages_done += int(complete)
            tasks_total += stage.numTasks
            tasks_done += stage.numCompletedTasks
    return {"stages_done": stages_done, "stages_total": stages_total, "tasks_done": tasks_done,
            "tasks_total": tasks_total}


def jobs_settled(sc: Any, job_group: str) -> bool:
    """True when the status tracker has seen every job of `job_group` end (it learns of it asynchronously)."""
    tracker = sc.statusTracker()
    return all(job is None or job.status not in ("RUNNING", "UNKNOWN")
               for job in map(tracker.getJobInfo, tracker.getJobIdsForGroup(job_group)))


class ProgressSampler:
    """Calls `report(counts)` every `interval` seconds while running, and once more with the final counts."""

    def __init__(self, sc: Any, job_group: str, report: Callable[[dict[str, int]], None], interval: float = 0.5) -> None:
        self._sc, self._group, self._report, self._interval = sc, job_group, report, interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="lakeport-progress", daemon=True)
        self._last: dict[str, int] | None = None

    def __enter__(self) -> ProgressSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        # The script's actions have returned, but the tracker hears of their jobs' end through Spark's listener
        # bus: wait for it (briefly) so the final counts of a finished script are complete.
        deadline = time.monotonic() + SETTLE_SECONDS
        while not jobs_settled(self._sc, self._group) and time.monotonic() < deadline:
            time.sleep(0.02)
        self._sample()  # the final counts, even for scripts shorter than one interval

    def _sample(self) -> None:
        counts = stage_progress(self._sc, self._group)
        if counts != self._last:
            self._last = counts
            self._report(counts)

    def _loop(self) -> None:
        while not self._stop.wait(self._interval):
            try:
                self._sample()
            except Exception:  # the tracker can fail while the context stops; progress is best-effort
                return
