"""Benchmark: a team engine's cold start to its first row, against a bare SparkSession, with and without CDS.

Contender — the platform's real cold start (issue 31, "a fast first query"): `EngineProcess(EngineKey(team)).start()`
(the worker's code: scratch claim, lean Spark home, the engine process, its JVM, the guard's session, the Spark UI
filter) and the engine's preview of `SELECT 1`, timed from the start call to the parsed rows, in a fresh scratch
root each round (no warm engine, no page-cache favours beyond the other side's).
Baseline — a fresh Python process running `SparkSession.builder.master(...).getOrCreate()` and `SELECT 1`
(`spark.ui.enabled=false`, the same master and driver memory), timed from spawn to the row.

Two comparisons, side by side in one run, rounds interleaved (bench/_common.py):
- `engine cold start (CDS) vs bare SparkSession` — the engine with the class-data-sharing archive the worker
  builds once (jobs/engines/cds.py; built before the timed rounds). Target (issue 31): ≤ 1.2×.
- `engine cold start: CDS vs none` — the same engine start with the archive against without it.

    PYSPARK_PYTHON=$PWD/.venv/bin/python .venv/bin/python bench/engine_start.py [--rounds 5] [--master 'local[2]']
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import REPO, interleaved, print_header, print_row

BARE = """
import sys, time
t0 = float(sys.argv[1])
from pyspark.sql import SparkSession
spark = SparkSession.builder.master(sys.argv[2]).config("spark.ui.enabled", "false") \\
    .config("spark.driver.memory", "1g").getOrCreate()
spark.sql("SELECT 1").collect()
print(time.time() - t0)
spark.stop()
"""


def bare_session(master: str) -> float:
    """Seconds from spawning a Python process to its first row of `SELECT 1` on a new SparkSession."""
    out = subprocess.run([sys.executable, "-c", BARE, repr(time.time()), master], capture_output=True, text=True,
                         check=True, cwd=tempfile.gettempdir(), env={**os.environ, "PYTHONPATH": ""})
    return float(out.stdout.strip().splitlines()[-1])


def engine_start(master: str, scratch: Path, *, cds: bool) -> float:
    """Seconds from the worker's `EngineProcess.start()` to the engine's first preview row, in scratch `scratch`."""
    from django.test import override_settings

    from jobs.engines.process import EngineKey, EngineProcess

    with override_settings(LAKEPORT_ENGINE_SCRATCH_DIR=str(scratch), LAKEPORT_ENGINE_USER="", SPARK_MASTER=master,
                           LAKEPORT_ENGINE_CDS=cds, LAKEPORT_SPARK_STATIC_CONF={"spark.driver.memory": "1g"}):
        engine = EngineProcess(EngineKey(team="bench"))
        started = time.monotonic()
        try:
            engine.start()
            pending = engine.request({"mode": "preview", "script": "SELECT 1 AS one", "preview_limit": 10})
            pending.done.wait()
            assert pending.result.get("rows") == [[1]], pending.result
            return time.monotonic() - started
        finally:
            engine.stop(quiet=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--master", default="local[2]")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    import django

    django.setup()
    from django.test import override_settings

    from jobs.engines.cds import archive_path, cds_build_env, cds_java_options
    from jobs.engines.process import IDLE_FRIENDLY_JVM_OPTIONS, engine_spark_home

    root = Path(tempfile.mkdtemp(prefix="lakeport-bench-start-"))
    with override_settings(LAKEPORT_ENGINE_SCRATCH_DIR=str(root), SPARK_MASTER=args.master):
        home = engine_spark_home({}, {})
        assert home is not None, "the lean Spark home is off or unavailable"
        from jobs.engines.cds import build_archive

        started = time.monotonic()
        build_archive(archive_path(home), home, jvm_options=IDLE_FRIENDLY_JVM_OPTIONS, python=sys.executable,
                      env=cds_build_env(os.environ))
        print(f"# archive built once in {time.monotonic() - started:.0f} s: {archive_path(home)}")
        assert cds_java_options(home, jvm_options="", python=sys.executable, env={})
    print_header()
    with_cds = interleaved(lambda: engine_start(args.master, root, cds=True), lambda: bare_session(args.master),
                           rounds=args.rounds)
    print_row("engine cold start (CDS) vs bare SparkSession, s", with_cds)
    cds_or_not = interleaved(lambda: engine_start(args.master, root, cds=True),
                             lambda: engine_start(args.master, root, cds=False), rounds=args.rounds)
    print_row("engine cold start: CDS vs none, s", cds_or_not)
    print(f"# repository {REPO}, master {args.master}, load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
