"""Benchmark: OPTIMIZE of a Delta table of 1,000 small files through the embedded connector, side by side with what a
compaction must at least cost.

A table of `--files` files (default 1,000) of `--rows-per-file` rows each (default 1,000: 1 M rows, ~10 KB a file),
written by the connector's CTAS. Per round, on a fresh copy of the table, alternating who goes first:

  optimize  `OPTIMIZE lake.bench.o` (one commit, dataChange=false, the 1,000 files bin-packed into the
            table's target file size: one file here)
  baseline  Spark reading the same 1,000 files and writing their rows as one plain parquet file: the least a
            compaction costs on this engine (list, open and decode every small file, encode one big one)

and reported beside it, delta-rs's own `optimize.compact()` on another copy (what the connector runs inside the
driver, without the statement's parse, checks, commit-id lookup and pin move). Each OPTIMIZE is checked: 1,000 files
removed, one added, the same rows for delta-rs afterwards. Ratio: contender time / baseline time (lower is better).

    .venv/bin/python bench/delta_optimize.py [--files 1000] [--rows-per-file 1000] [--rounds 3] [--cores 2]
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--rows-per-file", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cores", type=int, default=2, help="Spark local[N]; keep ≤ 2 on shared machines")
    args = parser.parse_args()

    import pyarrow as pa
    from deltalake import DeltaTable

    from lakeport_engine.delta import EmbeddedDelta

    spark: Any = local_spark("bench-delta-optimize", args.cores)
    work = Path(tempfile.mkdtemp(prefix="bench-optimize-"))
    rows = args.files * args.rows_per_file
    try:
        warehouse = work / "warehouse"
        (warehouse / "bench").mkdir(parents=True)
        delta = EmbeddedDelta(spark)
        delta.register("lake", {"warehouse": str(warehouse)})

        def run(sql: str) -> Any:
            frame = delta.execute(sql, current_catalog=None, current_database=None)
            return frame.collect() if frame is not None else None

        source = spark.range(rows).selectExpr("id", "CAST(id % 97 AS INT) AS k", "uuid() AS note",
                                              "CAST((id * 7919) % 100003 AS DOUBLE) / 7.0 AS amount")
        source.repartition(args.files).createOrReplaceTempView("bench_src")
        run("CREATE TABLE lake.bench.pristine AS SELECT * FROM bench_src")
        pristine = warehouse / "bench" / "pristine"
        files = [str(pristine / f["path"]) for f in
                 pa.table(DeltaTable(str(pristine)).get_add_actions(flatten=True)).to_pylist()]
        assert len(files) == args.files, len(files)
        size = sum(Path(f).stat().st_size for f in files)
        expected = DeltaTable(str(pristine)).to_pyarrow_table().num_rows
        print(f"# {rows:,} rows in {len(files)} files ({size / len(files) / 1024:.1f} KB each); {platform.node()}, "
              f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC")
        scratch = work / "scratch"

        def fresh(name: str) -> Path:
            target = warehouse / "bench" / name
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(pristine, target)
            return target

        def check(target: Path) -> None:
            table = DeltaTable(str(target))
            assert len(table.file_uris()) == 1, len(table.file_uris())
            assert table.to_pyarrow_table().num_rows == expected

        def optimize() -> float:
            target = fresh("o")
            start = time.perf_counter()
            [(_, metrics)] = run("OPTIMIZE lake.bench.o")
            took = time.perf_counter() - start
            assert (metrics["numFilesRemoved"], metrics["numFilesAdded"]) == (args.files, 1), metrics
            check(target)
            return took

        def plain_rewrite() -> float:
            shutil.rmtree(scratch, ignore_errors=True)
            start = time.perf_counter()
            spark.read.parquet(*files).coalesce(1).write.parquet(str(scratch))
            return time.perf_counter() - start

        def delta_rs() -> float:
            target = fresh("rs")
            table = DeltaTable(str(target))
            start = time.perf_counter()
            table.optimize.compact()
            took = time.perf_counter() - start
            check(target)
            return took

        print_header()
        result = interleaved(optimize, plain_rewrite, rounds=args.rounds)
        print_row(f"optimize {args.files} small files vs Spark plain parquet rewrite", result, unit="s", scale=1.0)
        result = interleaved(optimize, delta_rs, rounds=args.rounds)
        print_row("optimize vs delta-rs optimize.compact (reported)", result, unit="s", scale=1.0)
        print(f"# load at the end {os.getloadavg()[0]:.1f}")
    finally:
        spark.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
