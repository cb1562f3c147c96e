"""A finished script's progress is complete: stages Spark skipped (their shuffle output reused) are not pending.

Adaptive execution runs each shuffle of a query as a job of its own, then the final job lists those shuffles again
under new stage ids that never run (the Spark UI shows them "skipped"). A succeeded run used to report
`stages_done: 5, stages_total: 8`.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from lakeport_engine.progress import ProgressSampler

pytestmark = pytest.mark.spark
AGGREGATION = "SELECT id % 3 AS k, count(*) AS n FROM range(0, 3000, 1, 4) GROUP BY 1 ORDER BY 1"


def _run_sampled(session: Any, sql: str) -> tuple[list[Any], list[dict[str, int]], int]:
    """Rows of `sql` run in a job group under a ProgressSampler, its reports, and how many stages its jobs list."""
    sc = session.sparkContext
    group = f"lakeport-progress-{uuid.uuid4().hex[:8]}"
    reports: list[dict[str, int]] = []
    sc.setJobGroup(group, "progress test")
    try:
        with ProgressSampler(sc, group, reports.append, interval=3600):  # only the final sample
            rows = session.sql(sql).collect()
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
    tracker = sc.statusTracker()
    listed = sum(len(tracker.getJobInfo(job).stageIds) for job in tracker.getJobIdsForGroup(group))
    return rows, reports, listed


def test_a_finished_aggregation_reports_every_stage_that_ran_as_done(session: Any) -> None:
    rows, reports, listed = _run_sampled(session, AGGREGATION)
    assert [tuple(r) for r in rows] == [(0, 1000), (1, 1000), (2, 1000)]
    final = reports[-1]
    assert final["stages_total"] >= 2, final  # the shuffle's map side and the result
    assert final["stages_done"] == final["stages_total"] and final["tasks_done"] == final["tasks_total"] > 0, final
    assert listed > final["stages_total"], (listed, final)  # the plan did skip stages: they are not counted


def test_a_query_run_twice_in_one_script_is_complete_too(session: Any) -> None:
    session.sql("CREATE TEMPORARY VIEW counted AS " + AGGREGATION)
    rows, reports, _ = _run_sampled(session, "SELECT a.k, a.n + b.n AS n FROM counted a JOIN counted b USING (k)")
    assert sorted(tuple(r) for r in rows) == [(0, 2000), (1, 2000), (2, 2000)]
    final = reports[-1]
    assert final["stages_done"] == final["stages_total"] >= 2 and final["tasks_done"] == final["tasks_total"], final
