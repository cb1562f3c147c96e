"""Spark stage/task progress of a job group, read from the driver's status tracker (no Django)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


def stage_progress(sc: Any, job_group: str) -> dict[str, int]:
    """Spark stages and tasks done/total of the jobs in `job_group` (sampled from the status tracker)."""
    tracker = sc.statusTracker()
    stages_done = stages_total = tasks_done = tasks_total = 0
    for job_id in tracker.getJobIdsForGroup(job_group):
        job = tracker.getJobInfo(job_id)
        if job is None:
            continue
        for stage_id in job.stageIds:
            stages_total += 1
            stage = tracker.getStageInfo(stage_id)
            if stage is None:  # forgotten by the tracker: only finished stages are dropped
                stages_done += 1
                continue
            tasks_total += stage.numTasks
            tasks_done += stage.numCompletedTasks
            if stage.numTasks and stage.numCompletedTasks >= stage.numTasks:
                stages_done += 1
        if job.status == "SUCCEEDED":
            stages_done = min(stages_total, stages_done)
    return {"stages_done": stages_done, "stages_total": stages_total, "tasks_done": tasks_done,
            "tasks_total": tasks_total}


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
