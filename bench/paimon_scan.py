"""Benchmark: scan + aggregate of an append-only Paimon table through the embedded Paimon connector, side by side
with pypaimon + pyarrow alone and with the same rows as plain parquet in Spark.

Generates `--rows` rows (default 10,000,000) with Spark, writes them once into a Paimon append table through the
connector (CTAS: the executors write with pypaimon, the driver commits) and once as plain parquet (untimed), then
for several rounds, alternating who goes first:

  scan  GROUP BY aggregate through the connector (the Lakeport run path)  vs  the same query on plain parquet in Spark
  scan  GROUP BY aggregate through the connector                           vs  pypaimon's read (splits → Arrow) +
                                                                               pyarrow's group_by in this process

Every connector result is checked against the plain parquet result. Prints `name, contender, baseline, ratio,
rounds, spread` (ratio = contender time / baseline time, lower is better) and the throughput ratio baseline /
contender with the targets (docs/BENCHMARKS.md says why they are what they are).

    .venv/bin/python bench/paimon_scan.py [--rows 10000000] [--rounds 3] [--cores 2]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from _common import interleaved, local_spark, print_header, print_row

QUERY = "SELECT k, count(*) AS n, sum(amount) AS total, max(tag) AS top FROM {t} GROUP BY k"
# Targets, as throughput ratios (baseline time / connector time); see docs/BENCHMARKS.md.
TARGET_PARQUET = 0.5
TARGET_PYPAIMON = 1.0


def load() -> str:
    """The 1-, 5- and 15-minute load averages (the machine is shared)."""
    return " ".join(f"{v:.1f}" for v in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cores", type=int, default=2, help="Spark local[N]; keep ≤ 2 on shared machines")
    args = parser.parse_args()

    import pyarrow as pa
    import pyarrow.compute as pc

    from lakeport_engine.paimon.catalog import open_catalog
    from lakeport_engine.paimon.connector import EmbeddedPaimon

    # Python data sources under load: the worker may take long to connect back (as the test suite's session)
    spark: Any = local_spark("bench-paimon-scan", args.cores, {"spark.python.authenticate.socketTimeout": "120s"})
    work = Path(tempfile.mkdtemp(prefix="bench-paimon-"))
    try:
        warehouse = work / "warehouse"
        warehouse.mkdir()
        paimon = EmbeddedPaimon(spark)
        paimon.register("pai", {"warehouse": str(warehouse)})

        def run(sql: str) -> Any:  # noqa: ANN401 - a DataFrame or None
            return paimon.execute(sql, current_catalog=None, current_database=None)

        source = spark.range(args.rows).selectExpr(
            "id", "CAST(id % 1000 AS INT) AS k", "CAST((id * 7919) % 100003 AS DOUBLE) / 7.0 AS amount",
            "concat('t', CAST(id % 97 AS STRING)) AS tag")
        source.createOrReplaceTempView("bench_src")
        print(f"# {args.rows:,} rows, local[{args.cores}], {args.rounds} rounds, {platform.node()} "
              f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
              f"{datetime.now(UTC).isoformat(timespec='seconds')}, load {load()}", flush=True)
        started = time.perf_counter()
        run("CREATE DATABASE pai.bench")
        run("CREATE TABLE pai.bench.t AS SELECT * FROM bench_src")
        print(f"# written through the connector in {time.perf_counter() - started:.1f} s (untimed)", flush=True)
        source.write.parquet(str(work / "plain"))
        spark.read.parquet(str(work / "plain")).createOrReplaceTempView("plain_src")
        expected = sorted(tuple(r) for r in spark.sql(QUERY.format(t="plain_src")).collect())
        table = open_catalog(str(warehouse)).get_table("bench.t")
        files = sum(1 for _ in (warehouse / "bench.db" / "t").rglob("*.parquet"))
        plan = run(QUERY.format(t="pai.bench.t"))._jdf.queryExecution().executedPlan().toString()
        path = "Spark's parquet reader over pypaimon's planned files" if "FileScan" in plan else "pypaimon splits"
        print(f"# Paimon table: {files} data files, read through {path}; load {load()}", flush=True)

        def connector_scan() -> float:
            start = time.perf_counter()
            rows = run(QUERY.format(t="pai.bench.t")).collect()
            elapsed = time.perf_counter() - start
            got = sorted(tuple(r) for r in rows)
            assert [r[:2] + r[3:] for r in got] == [r[:2] + r[3:] for r in expected], "connector disagrees with parquet"
            assert all(abs(a[2] - b[2]) <= 1e-6 * max(1.0, abs(b[2])) for a, b in zip(got, expected, strict=True))
            return elapsed

        def plain_scan() -> float:
            # The strict baseline: the view (file listing, footers) is registered once, untimed; the connector
            # opens the snapshot, plans pypaimon's splits and registers its view in every statement.
            start = time.perf_counter()
            spark.sql(QUERY.format(t="plain_src")).collect()
            return time.perf_counter() - start

        def pypaimon_scan() -> float:
            start = time.perf_counter()
            builder = table.new_read_builder()
            data = builder.new_read().to_arrow(builder.new_scan().plan().splits())
            result = data.group_by("k").aggregate([("k", "count"), ("amount", "sum"), ("tag", "max")])
            elapsed = time.perf_counter() - start
            assert result.num_rows == len(expected) and pc.sum(result.column("k_count")).as_py() == args.rows
            assert isinstance(result, pa.Table)
            return elapsed

        connector_scan()  # warm-up: the Python workers, the first jobs, file system caches
        plain_scan()
        pypaimon_scan()
        print(f"# warmed up; load {load()}", flush=True)
        scan_plain = interleaved(connector_scan, plain_scan, rounds=args.rounds)
        print(f"# vs parquet done; load {load()}", flush=True)
        scan_pypaimon = interleaved(connector_scan, pypaimon_scan, rounds=args.rounds)
        print(f"# vs pypaimon done; load {load()}", flush=True)

        print_header()
        results = [
            ("scan+aggregate vs spark plain parquet", scan_plain, TARGET_PARQUET),
            ("scan+aggregate vs pypaimon + pyarrow", scan_pypaimon, TARGET_PYPAIMON),
        ]
        for name, result, _target in results:
            print_row(name, result, unit="s", scale=1.0)
        print()
        print("# throughput ratio = baseline time / connector time (≥ target passes): median of the per-round")
        print("# ratios, and the ratio of the median times")
        for name, result, target in results:
            throughput = statistics.median(b / c for c, b in zip(result.contender, result.baseline, strict=True))
            of_medians = statistics.median(result.baseline) / statistics.median(result.contender)
            print(f"{name}: {throughput:.3f}x (ratio of medians {of_medians:.3f}x)  target ≥ {target:.2f}: "
                  f"{'PASS' if throughput >= target else 'FAIL'}")
    finally:
        spark.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
