"""Benchmark: the embedded Delta connector against plain parquet in Spark and against delta-rs, side by side.

Generates `--rows` rows (default 10,000,000) with Spark, then for several rounds, alternating who goes first:

  insert   INSERT INTO a Delta table through the connector   vs  Spark writing the same DataFrame as parquet
  insert   INSERT INTO through the connector                 vs  deltalake.write_deltalake of the same rows (arrow)
  scan     full scan + GROUP BY aggregate through connector  vs  the same query on the plain parquet copy in Spark
  scan     full scan + aggregate through the connector       vs  delta-rs (QueryBuilder / DataFusion) on the table

Prints `name, contender, baseline, ratio, rounds, spread` (ratio = contender time / baseline time, lower is
better) and the throughput ratio baseline/contender the issue's targets are stated in:
INSERT ≥ 0.9× plain parquet, scan + aggregate ≥ 0.95× plain parquet.

    .venv/bin/python bench/delta_embedded.py [--rows 10000000] [--rounds 3] [--cores 2]
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cores", type=int, default=2, help="Spark local[N]; keep ≤ 2 on shared machines")
    args = parser.parse_args()

    from deltalake import DeltaTable, QueryBuilder, write_deltalake

    from lakeport_engine.delta import EmbeddedDelta

    spark: Any = local_spark("bench-delta-embedded", args.cores)
    work = Path(tempfile.mkdtemp(prefix="bench-delta-"))
    try:
        warehouse = work / "warehouse"
        (warehouse / "bench").mkdir(parents=True)
        delta = EmbeddedDelta(spark)
        delta.register("lake", {"warehouse": str(warehouse)})

        def run(sql: str) -> object:
            return delta.execute(sql, current_catalog=None, current_database=None)

        source = spark.range(args.rows).selectExpr(
            "id", "CAST(id % 1000 AS INT) AS k", "CAST((id * 7919) % 100003 AS DOUBLE) / 7.0 AS amount",
            "concat('t', CAST(id % 97 AS STRING)) AS tag")
        source.createOrReplaceTempView("bench_src")
        print(f"# {args.rows:,} rows, local[{args.cores}], {args.rounds} rounds, {platform.node()} "
              f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
              f"{datetime.now(UTC).isoformat(timespec='seconds')}", flush=True)
        arrow = source.toArrow()  # for write_deltalake, converted once and not timed

        counter = iter(range(10_000))
        kept: list[str] = []  # the first connector table stays for the scans

        def connector_insert() -> float:
            name = f"t{next(counter)}"
            run(f"CREATE TABLE lake.bench.{name} (id BIGINT, k INT, amount DOUBLE, tag STRING)")
            start = time.perf_counter()
            run(f"INSERT INTO lake.bench.{name} SELECT * FROM bench_src")
            elapsed = time.perf_counter() - start
            if kept:
                shutil.rmtree(warehouse / "bench" / name)
            else:
                kept.append(name)
            return elapsed

        def plain_write() -> float:
            target = work / f"plain_{next(counter)}"
            start = time.perf_counter()
            source.write.parquet(str(target))
            elapsed = time.perf_counter() - start
            if not (work / "plain").exists():
                target.rename(work / "plain")  # keep one copy for the scans
            else:
                shutil.rmtree(target)
            return elapsed

        def delta_rs_write() -> float:
            target = work / f"dr_{next(counter)}"
            start = time.perf_counter()
            write_deltalake(str(target), arrow)
            elapsed = time.perf_counter() - start
            shutil.rmtree(target)
            return elapsed

        plain_write()  # warm-up: JIT, file system caches, the first Spark job
        connector_insert()
        insert_plain = interleaved(connector_insert, plain_write, rounds=args.rounds)
        insert_rs = interleaved(connector_insert, delta_rs_write, rounds=args.rounds)

        spark.read.parquet(str(work / "plain")).createOrReplaceTempView("plain_src")
        expected = sorted(tuple(r) for r in spark.sql(QUERY.format(t="plain_src")).collect())

        def connector_scan() -> float:
            start = time.perf_counter()
            rows = run(QUERY.format(t=f"lake.bench.{kept[0]}")).collect()  # type: ignore[attr-defined]
            elapsed = time.perf_counter() - start
            assert sorted(tuple(r) for r in rows) == expected, "connector scan disagrees with plain parquet"
            return elapsed

        def plain_scan() -> float:
            # The strict baseline: the view (file listing, schema from the footers) is registered once, untimed;
            # the connector pays for opening the snapshot and registering its view in every statement.
            start = time.perf_counter()
            spark.sql(QUERY.format(t="plain_src")).collect()
            return time.perf_counter() - start

        def delta_rs_scan() -> float:
            start = time.perf_counter()
            table = DeltaTable(str(warehouse / "bench" / kept[0]))
            QueryBuilder().register("t", table).execute(QUERY.format(t="t")).read_all()
            return time.perf_counter() - start

        connector_scan()
        plain_scan()
        scan_plain = interleaved(connector_scan, plain_scan, rounds=args.rounds)
        scan_rs = interleaved(connector_scan, delta_rs_scan, rounds=args.rounds)

        print_header()
        results = [
            ("insert into vs spark parquet write", insert_plain, 0.90),
            ("insert into vs deltalake.write_deltalake", insert_rs, None),
            ("scan+aggregate vs spark plain parquet", scan_plain, 0.95),
            ("scan+aggregate vs delta-rs QueryBuilder", scan_rs, None),
        ]
        for name, result, _target in results:
            print_row(name, result, unit="s", scale=1.0)
        print()
        print("# throughput ratio = baseline time / connector time (≥ target passes): median of the per-round")
        print("# ratios, and the ratio of the median times (less sensitive to one side hitting a noisy moment)")
        for name, result, target in results:
            throughput = statistics.median(b / c for c, b in zip(result.contender, result.baseline, strict=True))
            of_medians = statistics.median(result.baseline) / statistics.median(result.contender)
            verdict = "" if target is None else f"  target ≥ {target:.2f}: {'PASS' if throughput >= target else 'FAIL'}"
            print(f"{name}: {throughput:.3f}x (ratio of medians {of_medians:.3f}x){verdict}")
    finally:
        spark.stop()
        shutil.rmtree(work, ignore_errors=True)



if __name__ == "__main__":
    main()
