"""Benchmark: incremental vs full refresh of materialized views over an embedded Delta table.

A base table of `--rows` rows (default 10,000,000) in 40 files and two pairs of views over it: a filter/projection
and an aggregate by key (count, sum, min, max). Each round appends `--append` rows (default 10,000) to the base
and refreshes each view twice at the same base version: the incremental one (`REFRESH MATERIALIZED VIEW`, which
reads only the appended rows) and its twin with `REFRESH … FULL` (recompute and replace); the two views' rows are
checked equal after each round. Ratio: incremental time / full time (lower is better; the issue's target ≤ 0.1×).

    .venv/bin/python bench/mv_refresh.py [--rows 10000000] [--append 10000] [--rounds 3] [--cores 2]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from _common import SideBySide, local_spark, print_header, print_row

FILES = 40
VIEWS = {
    "filter": "SELECT id, k, amount * 2 AS doubled FROM lake.bench.base WHERE k <> 3",
    "aggregate": "SELECT k, count(*) AS n, sum(amount) AS total, min(id) AS lo, max(id) AS hi "
                 "FROM lake.bench.base GROUP BY k",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--append", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cores", type=int, default=2, help="Spark local[N]; keep ≤ 2 on shared machines")
    args = parser.parse_args()

    from deltalake import DeltaTable

    from lakeport_engine.delta import EmbeddedDelta
    from lakeport_engine.matviews import InMemoryViewStore

    spark: Any = local_spark("bench-mv-refresh", args.cores)
    work = Path(tempfile.mkdtemp(prefix="bench-mv-"))
    try:
        warehouse = work / "warehouse"
        (warehouse / "bench").mkdir(parents=True)
        delta = EmbeddedDelta(spark)
        delta.register("lake", {"warehouse": str(warehouse)})
        delta.views = InMemoryViewStore()

        def run(sql: str) -> Any:
            frame = delta.execute(sql, current_catalog=None, current_database=None)
            return frame.collect() if frame is not None else None

        spark.range(args.rows).selectExpr("id", "CAST(id % 10 AS INT) AS k", "CAST(id % 1000 AS BIGINT) AS amount") \
            .repartitionByRange(FILES, "id").createOrReplaceTempView("bench_src")
        run("CREATE TABLE lake.bench.base AS SELECT * FROM bench_src")
        for name, query in VIEWS.items():
            run(f"CREATE MATERIALIZED VIEW lake.bench.{name}_inc AS {query}")
            run(f"CREATE MATERIALIZED VIEW lake.bench.{name}_full AS {query}")
        print(f"# {args.rows:,} base rows in {FILES} files, {args.append:,} appended per round; {platform.node()}, "
              f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC")
        results = {name: SideBySide() for name in VIEWS}
        start = args.rows
        for _ in range(args.rounds):
            spark.range(start, start + args.append).selectExpr(
                "id", "CAST(id % 10 AS INT) AS k", "CAST(id % 1000 AS BIGINT) AS amount").createOrReplaceTempView(
                "bench_new")
            run("INSERT INTO lake.bench.base SELECT * FROM bench_new")
            start += args.append
            for name in VIEWS:
                began = time.perf_counter()
                (answer,) = run(f"REFRESH MATERIALIZED VIEW lake.bench.{name}_inc")
                incremental = time.perf_counter() - began
                assert answer[0] == "incremental", answer
                began = time.perf_counter()
                run(f"REFRESH MATERIALIZED VIEW lake.bench.{name}_full FULL")
                full = time.perf_counter() - began
                results[name].add(incremental, full)
                tables = [DeltaTable(str(warehouse / "bench" / f"{name}_{s}")) for s in ("inc", "full")]
                if name == "aggregate":  # ten groups: compare every value
                    rows = [sorted(map(str, t.to_pyarrow_table().to_pylist())) for t in tables]
                    assert rows[0] == rows[1], (name, rows)
                counts = [t.to_pyarrow_dataset().count_rows() for t in tables]
                assert counts[0] == counts[1], (name, counts)
        print_header()
        for name, result in results.items():
            print_row(f"refresh {name} (incremental vs FULL)", result)
    finally:
        spark.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
