"""cancel() from another thread stops the running Spark job and skips the rest of the script."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from lakeport_engine.script import ScriptRunner
from tests.spark.conftest import TEAM, RecordingListener

pytestmark = pytest.mark.spark


def test_cancel_stops_the_running_statement_and_skips_the_rest(session: Any, store: Any) -> None:
    listener = RecordingListener()
    runner = ScriptRunner(session, store, team=TEAM, listener=listener, job_group="lp-c-cancel-test")
    box: dict[str, Any] = {}
    worker = threading.Thread(target=lambda: box.setdefault("result", runner.run(
        "SELECT count(*) FROM pg_sales.shop.orders;\n"
        "SELECT sum(a.id % 1000 * b.id) FROM range(0, 2000000000) a CROSS JOIN range(0, 1000) b;\n"
        "SELECT 1"
    )))
    worker.start()
    tracker = session.sparkContext.statusTracker()

    def long_statement_running() -> bool:
        started = any(kind == "start" and data[0] == 1 for kind, data in listener.events)
        return started and bool(tracker.getActiveStageIds())

    while worker.is_alive() and not long_statement_running():
        time.sleep(0.1)
    runner.cancel()
    worker.join()
    result = box["result"]
    assert result.cancelled and not result.succeeded
    assert [s.status for s in result.statements] == ["succeeded", "failed", "skipped"]
    assert result.statements[1].error == "Cancelled."


def test_cancel_before_the_statement_submits_its_job_still_stops_it(session: Any, store: Any) -> None:
    """A cancel that lands while the statement is still being planned (no Spark job yet) must not let the job
    that is submitted right after run to its end."""

    class CancelAtStart(RecordingListener):
        def on_statement_start(self, index: int, total: int, sql: str) -> None:
            super().on_statement_start(index, total, sql)
            if index == 1:
                runner.cancel()  # nothing of this statement runs in Spark yet

    listener = CancelAtStart()
    runner = ScriptRunner(session, store, team=TEAM, listener=listener, job_group="lp-c-early-cancel")
    result = runner.run(
        "SELECT 1;\n"
        "SELECT sum(a.id % 1000 * b.id) FROM range(0, 2000000000) a CROSS JOIN range(0, 1000) b;\n"
        "SELECT 2"
    )
    assert result.cancelled and not result.succeeded
    assert [s.status for s in result.statements] == ["succeeded", "failed", "skipped"]
    assert result.statements[1].error == "Cancelled."
