"""Benchmark: MERGE, DELETE and UPDATE on embedded Delta tables, side by side with what they must at least cost.

A table of `--rows` rows (default 10,000,000) in 40 files, each file a contiguous id range. Per round, on a fresh
copy of the table, alternating who goes first:

  merge    MERGE updating 1 % of the rows, all in 2 of the 40 files (5 %)   vs  Spark reading those 2 files and
                                                                               writing them as plain parquet
  delete   DELETE of 1 % of the rows (one file)                            vs  the same for that file
  update   UPDATE of 1 % of the rows (one file)                            vs  the same for that file

and reported beside them, delta-rs's own `merge`/`delete` of the same rows on another copy (its native engine).
A DELETE of a whole partition of a partitioned copy is timed and its commit checked to add no file (no data file
is read or written). Ratios: contender time / baseline time (lower is better); the issue's target is ≤ 1.5×.

    .venv/bin/python bench/delta_dml.py [--rows 10000000] [--rounds 3] [--cores 2]
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

from _common import interleaved, local_spark, print_header, print_row

FILES = 40


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cores", type=int, default=2, help="Spark local[N]; keep ≤ 2 on shared machines")
    args = parser.parse_args()

    import pyarrow as pa
    from deltalake import DeltaTable

    from lakeport_engine.delta import EmbeddedDelta

    spark: Any = local_spark("bench-delta-dml", args.cores)
    work = Path(tempfile.mkdtemp(prefix="bench-dml-"))
    rows, per_file = args.rows, args.rows // FILES
    try:
        warehouse = work / "warehouse"
        (warehouse / "bench").mkdir(parents=True)
        delta = EmbeddedDelta(spark)
        delta.register("lake", {"warehouse": str(warehouse)})

        def run(sql: str) -> Any:
            frame = delta.execute(sql, current_catalog=None, current_database=None)
            return frame.collect() if frame is not None else None

        source = spark.range(rows).selectExpr("id", "CAST(id % 10 AS INT) AS k",
                                              "CAST((id * 7919) % 100003 AS DOUBLE) / 7.0 AS amount")
        source.repartitionByRange(FILES, "id").createOrReplaceTempView("bench_src")
        run("CREATE TABLE lake.bench.pristine AS SELECT * FROM bench_src")
        spark.range(rows).selectExpr("id", "CAST(id % 10 AS INT) AS k").createOrReplaceTempView("bench_parts")
        run("CREATE TABLE lake.bench.parted PARTITIONED BY (k) AS SELECT * FROM bench_parts")
        pristine = warehouse / "bench" / "pristine"
        files = sorted(f["path"] for f in pa.table(DeltaTable(str(pristine)).get_add_actions(flatten=True))
                       .to_pylist())
        print(f"# {rows:,} rows in {len(files)} files; {platform.node()}, {os.cpu_count()} cores, "
              f"load {os.getloadavg()[0]:.1f}, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC")
        # 1 % of the rows: every other id of the first two files (merge), the first half of file 0 (delete/update)
        merge_ids = f"id < {2 * per_file} AND id % 5 = 0"
        one_file = f"id < {rows // 100}"
        spark.range(2 * per_file).where(merge_ids).selectExpr("id", "-1.0 AS amount") \
            .createOrReplaceTempView("bench_changes")
        changes = spark.table("bench_changes").toArrow()
        scratch = work / "scratch"

        def fresh(name: str) -> Path:
            target = warehouse / "bench" / name
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(pristine, target)
            return target

        def rewrite_baseline(n_files: int) -> float:
            """Spark reads the touched files and writes them as plain parquet: the least a rewrite costs."""
            shutil.rmtree(scratch, ignore_errors=True)
            paths = [str(pristine / p) for p in files[:n_files]]
            start = time.perf_counter()
            spark.read.parquet(*paths).write.parquet(str(scratch))
            return time.perf_counter() - start

        def timed_sql(sql: str, name: str) -> float:
            fresh(name)
            start = time.perf_counter()
            run(sql)
            return time.perf_counter() - start

        cases = [
            ("merge 1% rows in 5% files",
             "MERGE INTO lake.bench.m AS t USING bench_changes AS s ON t.id = s.id "
             "WHEN MATCHED THEN UPDATE SET amount = s.amount", "m", 2),
            ("delete 1% rows", f"DELETE FROM lake.bench.d WHERE {one_file}", "d", 1),
            ("update 1% rows", f"UPDATE lake.bench.u SET amount = -amount WHERE {one_file}", "u", 1),
        ]
        print_header()
        for label, sql, name, touched in cases:
            result = interleaved(lambda sql=sql, name=name: timed_sql(sql, name),
                                 lambda touched=touched: rewrite_baseline(touched), rounds=args.rounds)
            print_row(f"{label} vs plain parquet rewrite", result, unit="s", scale=1.0)

        def delta_rs(kind: str) -> float:
            target = fresh("rs")
            table = DeltaTable(str(target))
            start = time.perf_counter()
            if kind == "merge":
                (table.merge(changes, "t.id = s.id", source_alias="s", target_alias="t")
                 .when_matched_update({"amount": "s.amount"}).execute())
            else:
                table.delete(one_file)
            return time.perf_counter() - start

        for kind, sql, name in (("merge", cases[0][1], "m"), ("delete", cases[1][1], "d")):
            result = interleaved(lambda sql=sql, name=name: timed_sql(sql, name), lambda kind=kind: delta_rs(kind),
                                 rounds=args.rounds)
            print_row(f"{kind} vs delta-rs {kind} (reported)", result, unit="s", scale=1.0)

        parted = warehouse / "bench" / "parted"
        before = DeltaTable(str(parted)).version()
        start = time.perf_counter()
        affected = run("DELETE FROM lake.bench.parted WHERE k = 3")
        took = time.perf_counter() - start
        entry = DeltaTable(str(parted)).history(1)[0]
        added = len([f for f in pa.table(DeltaTable(str(parted)).get_add_actions(flatten=True)).to_pylist()
                     if f["path"].startswith("k=3")])
        print(f"delete a whole partition: {took:.2f}s, {affected[0][0]:,} rows, version {before}→"
              f"{DeltaTable(str(parted)).version()}, files removed {entry.get('lakeport.numRemovedFiles')}, "
              f"files added {entry.get('lakeport.numFiles')}, files left in k=3: {added} (no data file read)")
    finally:
        spark.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
