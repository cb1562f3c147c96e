"""What a killed engine leaves in its team's scratch directory (issue 31), with real engines: Spark's blockmgr-* and
spark-* directories of an engine killed with SIGKILL (no shutdown hook ran) are removed when the team's next engine
starts, while another team's live engine keeps its own; a clean stop removes the stopped engine's."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.test import override_settings

from jobs.engines.process import EngineKey, EngineProcess
from tests.support.engines import alive
from tests.support.processes import descendants
from tests.support.servers import wait_until

SMALL_SPARK = {"SPARK_MASTER": "local[2]", "LAKEPORT_SPARK_STATIC_CONF": {
    "spark.ui.enabled": "false", "spark.driver.memory": "1g", "spark.sql.shuffle.partitions": "2"}}


@pytest.fixture
def engines(tmp_path: Path) -> Iterator[list[EngineProcess]]:
    """Engines started by the test (as the test's user, in a private scratch root), stopped after it."""
    started: list[EngineProcess] = []
    with override_settings(LAKEPORT_ENGINE_SCRATCH_DIR=str(tmp_path), LAKEPORT_ENGINE_USER="", **SMALL_SPARK):
        yield started
        for engine in started:
            with contextlib.suppress(Exception):
                engine.stop(quiet=True)


def start(engines: list[EngineProcess], team: str) -> EngineProcess:
    engine = EngineProcess(EngineKey(team=team))
    engines.append(engine)
    engine.start()
    return engine


def spark_dirs(engine: EngineProcess) -> set[str]:
    """The directories Spark made in the engine's spark.local.dir."""
    assert engine.scratch is not None
    return {p.name for p in engine.scratch.local.iterdir() if p.name.startswith(("blockmgr-", "spark-"))}


def answers(engine: EngineProcess) -> list[list[object]]:
    pending = engine.request({"mode": "preview", "script": "SELECT 40 + 2 AS x", "preview_limit": 10})
    assert pending.done.wait(120)
    return list(pending.result.get("rows") or [])


def test_a_killed_engines_spark_directories_go_when_the_teams_next_engine_starts(engines: list[EngineProcess]) -> None:
    bystander = start(engines, "globex")
    victim = start(engines, "acme")
    assert victim.scratch is not None and bystander.scratch is not None and victim.pid is not None
    left = spark_dirs(victim)
    assert any(n.startswith("blockmgr-") for n in left) and any(n.startswith("spark-") for n in left), left
    kept = spark_dirs(bystander)

    group = [victim.pid, *descendants(victim.pid)]  # the Python engine and its JVM: no shutdown code runs
    os.killpg(victim.pid, signal.SIGKILL)
    wait_until(lambda: not any(alive(p) for p in group), what="the killed engine's processes to be gone")
    # A killed leader shows Z while its other threads still exit and hold its files (the lock among them):
    # waitpid returns only once the whole thread group is gone.
    assert victim.proc is not None
    victim.proc.wait(timeout=60)
    assert spark_dirs(victim) == left  # nothing removed them: Spark's own shutdown hooks never ran

    successor = start(engines, "acme")
    assert not victim.scratch.local.exists() and not victim.scratch.tmp.exists()
    assert successor.scratch is not None and spark_dirs(successor)  # the new engine's own
    assert answers(successor) == [[42]]
    assert spark_dirs(bystander) >= kept and alive(bystander.pid or 0)  # another team's live engine: untouched
    assert answers(bystander) == [[42]]

    successor.stop()
    assert not successor.scratch.local.exists() and not successor.scratch.tmp.exists()  # a clean stop cleans up
    assert spark_dirs(bystander) >= kept
