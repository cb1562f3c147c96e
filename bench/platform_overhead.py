"""Benchmark: platform overhead on a heavy query — a run through the job path vs raw PySpark, same session type.

Both sides use the same warm SparkContext and a fresh `newSession()` each time. Raw PySpark is
`session.sql(query).collect()`; the platform side is a job run: `run_submit` → claim → warm engine →
ScriptRunner (catalog resolution, statement events, progress sampling thread, heartbeat, log lines) → the
stored result. Rounds alternate which side goes first. Target: platform ≤ 1.05× raw. `--scale 1` makes the
query take ≥ 30 s in raw PySpark on a 2-core machine; a smaller scale keeps a quick check quick.

    .venv/bin/python bench/platform_overhead.py [--scale 1.0] [--rounds 3]
"""

from __future__ import annotations

import argparse
import time

from _common import SideBySide, print_header, print_row
from submit_to_first_row import scratch_platform, time_run

HEAVY = "SELECT sum(hash(id)) AS h, count(DISTINCT id % 1000003) AS d FROM range(0, {rows}, 1, 8)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="1.0 = 100 million rows (≥ 30 s raw on 2 cores)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    sql = HEAVY.format(rows=int(args.scale * 100_000_000))
    with scratch_platform() as env:
        from jobs.engines.warm import warm_session
        from jobs.models import SqlJob

        job = SqlJob.objects.create(team=env["team"], name="heavy", sql=sql, engine="warm")
        spark = warm_session()

        def raw() -> float:
            start = time.perf_counter()
            session = spark.newSession()
            session.sql(sql).collect()
            return time.perf_counter() - start

        raw()  # JIT and the context's first jobs are paid by neither side
        result = SideBySide()
        for i in range(args.rounds):
            if i % 2 == 0:
                b, c = raw(), time_run(job)
            else:
                c, b = time_run(job), raw()
            result.add(c, b)
        print_header()
        print_row(f"heavy query x{args.scale:g} (platform run vs raw PySpark)", result, unit="s", scale=1.0)


if __name__ == "__main__":
    main()
