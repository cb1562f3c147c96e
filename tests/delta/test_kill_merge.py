"""kill -9 of a Spark driver in the middle of a MERGE on an embedded Delta table.

A real driver process (`tests/delta/kill_child.py`: its own SparkSession and connector) runs a MERGE that rewrites
files in several partitions and is stopped — then SIGKILLed — either while its data files move out of the staging
directory or with every file in place and the commit about to be written. Afterwards delta-rs and the connector read
the table exactly as before, at the same version; the files the dead driver left are on disk but in no version, and
VACUUM removes them (the staging directory too, which Delta's own vacuum would skip) without touching a live file.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.delta.conftest import Lake, data_files

pytestmark = pytest.mark.spark
ROOT = Path(__file__).resolve().parents[2]
MERGE = ("MERGE INTO lake.default.t AS t USING (SELECT id, p, v FROM VALUES (1, 'a', 'new1'), (2, 'b', 'new2'), "
         "(3, 'c', 'new3'), (9, 'a', 'ins9') AS s(id, p, v)) AS s ON t.id = s.id "
         "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *")


def _rows(lake: Lake) -> list[tuple[Any, ...]]:
    return sorted((r["id"], r["p"], r["v"]) for r in lake.arrow("default", "t").to_pylist())


def _logged(root: Path) -> str:
    return "".join(p.read_text() for p in (root / "_delta_log").glob("*.json"))


@pytest.mark.parametrize("point", ["move", "commit"])
def test_kill_9_mid_merge_leaves_the_table_as_it_was_and_vacuum_removes_the_orphans(
        lake: Lake, tmp_path: Path, point: str, monkeypatch: pytest.MonkeyPatch) -> None:
    lake.sql("CREATE TABLE lake.default.t (id INT, p STRING, v STRING) PARTITIONED BY (p)")
    lake.sql("INSERT INTO lake.default.t VALUES (1, 'a', 'one'), (2, 'b', 'two'), (4, 'a', 'four')")
    lake.sql("INSERT INTO lake.default.t VALUES (3, 'c', 'three'), (5, 'b', 'five')")
    before, version = _rows(lake), lake.table("default", "t").version()
    root = Path(lake.path("default", "t"))
    live = {f.name for f in data_files(str(root))}

    flags = tmp_path / "flags"
    flags.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen([sys.executable, "-m", "tests.delta.kill_child", str(lake.warehouse), str(flags), point,
                              MERGE], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             start_new_session=True)
    try:
        while not (flags / "stopped").exists():
            assert child.poll() is None, f"the driver exited early: {child.stderr.read().decode()[-2000:]}"  # type: ignore[union-attr]
            time.sleep(0.2)
        os.killpg(child.pid, signal.SIGKILL)  # the driver and its Spark JVM, mid-statement
        child.wait(timeout=60)
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
    assert child.returncode == -signal.SIGKILL
    assert not (flags / "finished").exists()

    # the table is what it was: same version, same rows, for delta-rs and for the connector
    assert lake.table("default", "t").version() == version
    assert _rows(lake) == before
    assert lake.rows("SELECT id, p, v FROM lake.default.t") == before
    orphans = {f.name for f in data_files(str(root))} - live
    assert orphans, "the driver was killed before it wrote any data file"
    logged = _logged(root)
    assert not [o for o in orphans if o in logged]
    staging = [p for p in root.iterdir() if p.name.startswith("_lakeport_staging_")]
    assert bool(staging) == (point == "move")

    # a new writer is not disturbed by the debris
    lake.sql("INSERT INTO lake.default.t VALUES (6, 'a', 'six')")
    after = sorted([*before, (6, "a", "six")])
    assert _rows(lake) == after

    monkeypatch.setenv("LAKEPORT_DELTA_RETENTION_CHECK", "false")  # RETAIN 0 HOURS: the operator's switch
    dry = {r[0].rsplit("/", 1)[-1] for r in lake.sql("VACUUM lake.default.t RETAIN 0 HOURS DRY RUN").collect()}
    loose = {f.name for f in data_files(str(root)) if f.name in orphans and not f.parent.name.startswith("_lakeport")
             and not f.parent.parent.name.startswith("_lakeport")}  # moved out of staging, never committed
    assert loose <= dry and {p.name for p in staging} <= dry
    lake.sql("VACUUM lake.default.t RETAIN 0 HOURS").collect()
    left = {f.name for f in data_files(str(root))}
    assert not left & orphans
    assert not [p for p in root.iterdir() if p.name.startswith("_lakeport")]
    assert all(name in _logged(root) for name in left)
    assert _rows(lake) == after
    assert lake.rows("SELECT id, p, v FROM lake.default.t") == after
