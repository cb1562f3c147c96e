"""Benchmark: platform overhead on a heavy query — a run through a real worker and the team engine vs raw PySpark.

Baseline: a plain in-process PySpark `SparkSession` with the same master and the same static conf a team engine
gets (`jobs.engines.process.engine_static_conf`: FAIR scheduler, the guard's switches, the JDBC jars, the
operator's LAKEPORT_SPARK_STATIC_CONF), `newSession().sql(query).collect()` each time. Contender: a job run
submitted with `run_submit` → Redis → a real `celery worker --pool=threads` → the team's engine process (new
session, ScriptRunner: guard, catalog resolution, statement events over the channel, progress sampling,
heartbeat, log lines) → the stored result, timed until the run row is SUCCEEDED. Both sides are warmed by one
untimed query first; rounds alternate which side goes first. Target: platform ≤ 1.05× raw. `--scale 1` makes
the query take ≥ 30 s in raw PySpark on a 2-core machine; a smaller scale keeps a quick check quick.

    PYSPARK_PYTHON=$PWD/.venv/bin/python .venv/bin/python bench/platform_overhead.py [--scale 1.0] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import redis
from _common import SideBySide, print_header, print_row
from _stack import BROKER, engine_scratch_root, start_worker, stop_group, wait_until
from submit_to_first_row import scratch_platform

HEAVY = "SELECT sum(hash(id)) AS h, count(DISTINCT id % 1000003) AS d FROM range(0, {rows}, 1, 8)"


def raw_session(team: str, scratch: Path):  # noqa: ANN201 (pyspark is imported lazily)
    """A plain PySpark session with the master and static conf a team engine of `team` would get."""
    from django.conf import settings
    from pyspark.sql import SparkSession

    from jobs.engines.process import EngineKey, engine_static_conf

    conf = engine_static_conf(key=EngineKey(team=team), scratch=scratch, python=os.environ["PYSPARK_PYTHON"])
    for sub in ("tmp", "spark-local"):
        (scratch / sub).mkdir(parents=True, exist_ok=True)
    builder = SparkSession.builder.master(settings.SPARK_MASTER).appName("bench-raw-pyspark")
    for key, value in conf.items():
        if key != "spark.app.name":
            builder = builder.config(key, value)
    return builder.getOrCreate()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="1.0 = 100 million rows (≥ 30 s raw on 2 cores)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    sql = HEAVY.format(rows=int(args.scale * 100_000_000))
    redis.Redis.from_url(BROKER).flushdb()
    workdir = Path(tempfile.mkdtemp(prefix="lp-bench-overhead-"))
    with scratch_platform(env={"CELERY_BROKER_URL": BROKER,
                               "LAKEPORT_ENGINE_SCRATCH_DIR": engine_scratch_root()}) as env:
        from jobs.models import TERMINAL_STATUSES, JobRun, RunStatus, SqlJob
        from jobs.services.runs import run_submit

        job = SqlJob.objects.create(team=env["team"], name="heavy", sql=sql, engine="warm")
        spark = raw_session(env["team"].name, workdir / "raw")
        worker = start_worker(workdir, concurrency=2)

        def platform() -> float:
            start = time.perf_counter()
            run_id = run_submit(job=job, user=None).run.id
            status = wait_until(lambda: JobRun.objects.filter(id=run_id, status__in=TERMINAL_STATUSES)
                                .values_list("status", flat=True).first(), interval=0.05, timeout=1800,
                                what=f"run {run_id}")
            elapsed = time.perf_counter() - start
            if status != RunStatus.SUCCEEDED:
                raise RuntimeError(f"run {run_id} {status}: {JobRun.objects.get(id=run_id).error}")
            return elapsed

        def raw() -> float:
            start = time.perf_counter()
            spark.newSession().sql(sql).collect()
            return time.perf_counter() - start

        try:
            raw()  # JIT and the context's first jobs are paid by neither side
            platform()  # the team engine starts on the first run (a warm engine is what is measured)
            result = SideBySide()
            for i in range(args.rounds):
                if i % 2 == 0:
                    b, c = raw(), platform()
                else:
                    c, b = platform(), raw()
                result.add(c, b)
        finally:
            stop_group(worker)
            spark.stop()
        print_header()
        print_row(f"heavy query x{args.scale:g} (platform run via worker + team engine vs raw PySpark)", result,
                  unit="s", scale=1.0)
        print("per round (platform s / raw s): " + ", ".join(
            f"{c:.2f}/{b:.2f}" for c, b in zip(result.contender, result.baseline, strict=True)))


if __name__ == "__main__":
    main()
