"""kill -9 of a Spark driver in the middle of a materialized view's refresh, then the next refresh.

A real driver process (`tests/delta/kill_child.py`: its own SparkSession, connector and a view store holding the
view's definition) refreshes a view incrementally and is SIGKILLed with the view's data files in place and its
commit about to be written. The view is then exactly as before for delta-rs — same version, same rows, the same
source version recorded — and the next refresh (in this process, from the same definition) reads the source's
appended rows once and leaves the view equal to its query recomputed over the source's newest version.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from lakeport_engine.matviews import SOURCES_KEY, InMemoryViewStore
from tests.delta.conftest import Lake

pytestmark = pytest.mark.spark
ROOT = Path(__file__).resolve().parents[2]
QUERY = "SELECT who, count(*) AS n, sum(amount) AS total FROM lake.default.orders GROUP BY who"


def _view(lake: Lake) -> list[tuple[Any, ...]]:
    return sorted((r["who"], r["n"], r["total"]) for r in lake.arrow("default", "totals").to_pylist())


def _recomputed(lake: Lake) -> list[tuple[Any, ...]]:
    totals: dict[str, tuple[int, int]] = {}
    for r in lake.arrow("default", "orders").to_pylist():
        n, total = totals.get(r["who"], (0, 0))
        totals[r["who"]] = (n + 1, total + r["amount"])
    return sorted((who, n, total) for who, (n, total) in totals.items())


def _reflected(lake: Lake) -> dict[str, int]:
    (commit,) = lake.table("default", "totals").history(1)
    return {k: int(v) for k, v in json.loads(commit[SOURCES_KEY]).items()}


def test_kill_9_mid_refresh_leaves_the_view_at_its_version_and_the_next_refresh_completes_it(
        lake: Lake, tmp_path: Path) -> None:
    store = lake.delta.views = InMemoryViewStore()
    lake.sql("CREATE TABLE lake.default.orders (id BIGINT, who STRING, amount BIGINT)")
    lake.sql("INSERT INTO lake.default.orders VALUES (1, 'ann', 10), (2, 'bob', 20)")
    lake.sql(f"CREATE MATERIALIZED VIEW lake.default.totals AS {QUERY}")
    lake.sql("INSERT INTO lake.default.orders VALUES (3, 'ann', 5), (4, 'cy', 7)")
    before, version, reflected = _view(lake), lake.table("default", "totals").version(), _reflected(lake)
    assert reflected == {"lake.default.orders": 1}

    definition = store.get_view("lake", "default", "totals")
    assert definition is not None
    views = tmp_path / "views.json"
    views.write_text(json.dumps([definition.as_dict()]))
    flags = tmp_path / "flags"
    flags.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen([sys.executable, "-m", "tests.delta.kill_child", str(lake.warehouse), str(flags),
                              "commit", "REFRESH MATERIALIZED VIEW lake.default.totals", str(views)],
                             cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             start_new_session=True)
    try:
        while not (flags / "stopped").exists():
            assert child.poll() is None, f"the driver exited early: {child.stderr.read().decode()[-2000:]}"  # type: ignore[union-attr]
            time.sleep(0.2)
        os.killpg(child.pid, signal.SIGKILL)  # the driver and its Spark JVM, its refresh about to commit
        child.wait(timeout=60)
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
    assert child.returncode == -signal.SIGKILL
    assert not (flags / "finished").exists()

    # the view is at its previous version: same rows, same recorded source version, for delta-rs and for SHOW
    assert lake.table("default", "totals").version() == version
    assert _view(lake) == before and _reflected(lake) == reflected
    assert dict(lake.rows("DESCRIBE MATERIALIZED VIEW lake.default.totals"))["stale"] == "true"

    (answer,) = lake.rows("REFRESH MATERIALIZED VIEW lake.default.totals")
    assert answer[0] == "incremental" and answer[2] == version + 1, answer
    assert _reflected(lake) == {"lake.default.orders": 2}
    assert _view(lake) == _recomputed(lake) == [("ann", 2, 15), ("bob", 1, 20), ("cy", 1, 7)]
    assert dict(lake.rows("DESCRIBE MATERIALIZED VIEW lake.default.totals"))["stale"] == "false"
