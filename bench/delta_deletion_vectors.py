"""Benchmark: scanning a Delta table with deletion vectors through the embedded connector, side by side with the
same table without deletion vectors, and with delta-rs alone on the table with them.

Writes `--rows` rows (default 10,000,000) with delta-rs into `--files` files, twice: once plain, once with a commit
that marks `--deleted` (default 10 %) of each file's rows deleted through on-disk deletion vectors, as Delta-Spark's
`DELETE` does with `delta.enableDeletionVectors` (RoaringBitmapArray files, Delta PROTOCOL.md "Deletion Vector
Format"). Then, for several rounds, alternating who goes first:

  scan+aggregate  connector on the table with vectors   vs  connector on the same rows without vectors
  scan+aggregate  connector on the table with vectors   vs  delta-rs (QueryBuilder / DataFusion) on that table

Prints `name, contender, baseline, ratio, rounds, spread` and the throughput ratio (baseline / contender);
target ≥ 0.85× against the table without vectors.

    .venv/bin/python bench/delta_deletion_vectors.py [--rows 10000000] [--rounds 5] [--cores 2]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import struct
import tempfile
import time
import uuid
import zlib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from _common import interleaved, local_spark, print_header, print_row

QUERY = "SELECT k, count(*) AS n, sum(amount) AS total, max(tag) AS top FROM {t} GROUP BY k"
_MAGIC = 1681511377  # RoaringBitmapArray magic number of a Delta deletion vector


def deletion_vector_bytes(deleted: list[int]) -> bytes:
    """One deletion vector in Delta's on-disk layout: size, magic + 64-bit RoaringBitmapArray, CRC-32."""
    from pyroaring import BitMap

    buckets: dict[int, list[int]] = {}
    for row in deleted:
        buckets.setdefault(row >> 32, []).append(row & 0xFFFFFFFF)
    body = struct.pack("<i", _MAGIC) + struct.pack("<q", len(buckets))
    for key in sorted(buckets):
        body += struct.pack("<i", key) + BitMap(buckets[key]).serialize()
    return struct.pack(">i", len(body)) + body + struct.pack(">I", zlib.crc32(body))


def add_deletion_vectors(table_path: Path, fraction: float) -> int:
    """Commit a DELETE of every `1/fraction`-th row of each file as deletion vectors; returns rows deleted."""
    import pyarrow as pa
    from deltalake import DeltaTable

    table = DeltaTable(str(table_path))
    actions = pa.table(table.get_add_actions(flatten=True)).to_pylist()
    step = round(1 / fraction)
    now = int(time.time() * 1000)
    lines = [json.dumps({"commitInfo": {"timestamp": now, "operation": "DELETE",
                                        "operationParameters": {"predicate": f"id % {step} = 0"}}})]
    total = 0
    for action in actions:
        rows = int(action["num_records"])
        deleted = list(range(0, rows, step))
        total += len(deleted)
        name = f"deletion_vector_{uuid.uuid4()}.bin"
        data = b"\x01" + deletion_vector_bytes(deleted)
        (table_path / name).write_bytes(data)
        dv = {"storageType": "p", "pathOrInlineDv": (table_path / name).as_uri(), "offset": 1,
              "sizeInBytes": len(data) - 9, "cardinality": len(deleted)}
        path = action["path"]
        lines.append(json.dumps({"remove": {"path": path, "deletionTimestamp": now, "dataChange": True,
                                            "extendedFileMetadata": True, "partitionValues": {},
                                            "size": action["size_bytes"]}}))
        lines.append(json.dumps({"add": {"path": path, "partitionValues": {}, "size": action["size_bytes"],
                                         "modificationTime": now, "dataChange": True,
                                         "stats": json.dumps({"numRecords": rows}), "deletionVector": dv}}))
    (table_path / "_delta_log" / f"{table.version() + 1:020d}.json").write_text("\n".join(lines) + "\n")
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--files", type=int, default=10)
    parser.add_argument("--deleted", type=float, default=0.10)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cores", type=int, default=2, help="Spark local[N]; keep ≤ 2 on shared machines")
    args = parser.parse_args()

    import pyarrow as pa
    import pyarrow.compute as pc
    from deltalake import DeltaTable, QueryBuilder, write_deltalake

    from lakeport_engine.delta import EmbeddedDelta

    spark: Any = local_spark("bench-delta-dv", args.cores)
    work = Path(tempfile.mkdtemp(prefix="bench-delta-dv-"))
    try:
        warehouse = work / "warehouse"
        (warehouse / "bench").mkdir(parents=True)
        ids = pa.array(range(args.rows), pa.int64())
        data = pa.table({"id": ids, "k": pc.cast(pc.bit_wise_and(ids, 1023), pa.int32()),
                         "amount": pc.divide(pc.cast(pc.bit_wise_and(pc.multiply(ids, 7919), 65535), pa.float64()), 7.0),
                         "tag": pc.binary_join_element_wise("t", pc.cast(pc.bit_wise_and(ids, 127), pa.string()), "")})
        per_file = -(-args.rows // args.files)
        for name, config in (("plain", None), ("dv", {"delta.enableDeletionVectors": "true"})):
            for start in range(0, args.rows, per_file):
                write_deltalake(str(warehouse / "bench" / name), data.slice(start, per_file), mode="append",
                                configuration=config)
        deleted = add_deletion_vectors(warehouse / "bench" / "dv", args.deleted)
        delta = EmbeddedDelta(spark)
        delta.register("lake", {"warehouse": str(warehouse)})

        def run(sql: str) -> list[tuple[object, ...]]:
            frame = delta.execute(sql, current_catalog=None, current_database=None)
            return sorted(tuple(r) for r in frame.collect())  # type: ignore[union-attr]

        print(f"# {args.rows:,} rows in {args.files} files, {deleted:,} deleted by vectors, local[{args.cores}], "
              f"{args.rounds} rounds, {platform.node()} {platform.processor() or platform.machine()}, "
              f"{os.cpu_count()} CPUs, {datetime.now(UTC).isoformat(timespec='seconds')}", flush=True)
        counted = run("SELECT count(*) FROM lake.bench.dv")[0][0]
        assert counted == args.rows - deleted, f"connector counted {counted}, expected {args.rows - deleted}"
        expected = sorted(tuple(r.values()) for r in pa.table(QueryBuilder().register(
            "t", DeltaTable(str(warehouse / "bench" / "dv"))).execute(QUERY.format(t="t"))).to_pylist())

        def with_vectors() -> float:
            start = time.perf_counter()
            rows = run(QUERY.format(t="lake.bench.dv"))
            elapsed = time.perf_counter() - start
            assert [(k, n) for k, n, *_ in rows] == [(k, n) for k, n, *_ in expected], "disagrees with delta-rs"
            return elapsed

        def without_vectors() -> float:
            start = time.perf_counter()
            run(QUERY.format(t="lake.bench.plain"))
            return time.perf_counter() - start

        def delta_rs() -> float:
            start = time.perf_counter()
            table = DeltaTable(str(warehouse / "bench" / "dv"))
            QueryBuilder().register("t", table).execute(QUERY.format(t="t")).read_all()
            return time.perf_counter() - start

        with_vectors()  # warm-up: JIT, file system caches
        without_vectors()
        plain = interleaved(with_vectors, without_vectors, rounds=args.rounds)
        rs = interleaved(with_vectors, delta_rs, rounds=args.rounds)
        print_header()
        results = [("scan+aggregate with DVs vs same table without DVs", plain, 0.85),
                   ("scan+aggregate with DVs vs delta-rs QueryBuilder", rs, None)]
        for name, result, _target in results:
            print_row(name, result, unit="s", scale=1.0)
        print()
        print("# throughput ratio = baseline time / connector time (≥ target passes): median of per-round ratios")
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
