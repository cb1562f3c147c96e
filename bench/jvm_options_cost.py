"""Benchmark: what JVM options cost a heavy query — wall time, the JVM's CPU time and its GC, side by side.

Each option set runs in its own plain PySpark session (`local[2]`, nothing else set) in a fresh process: one
untimed query, then `--rounds` timed ones of platform_overhead.py's heavy query. Processes alternate between the
option sets (`--repeats` times each), so a load change on a shared machine hits both. Reported per set: median
wall time, median JVM CPU seconds (user + system of the JVM, from /proc: far less load-sensitive than wall time
on a shared machine), and the JVM's GC count and GC time over the timed rounds (its GC MXBeans). With two sets,
also the standard row: JVM CPU seconds of the second set (contender) against the first (baseline). Without
`--options`: the JVM's defaults against the engines' (`IDLE_FRIENDLY_JVM_OPTIONS`).

    PYSPARK_PYTHON=$PWD/.venv/bin/python .venv/bin/python bench/jvm_options_cost.py \
        --options "-XX:+UseSerialGC -Xms32m" --options "-XX:+UseSerialGC -Xms32m -XX:MaxNewSize=8m"
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _common import SideBySide, print_header, print_row

HEAVY = "SELECT sum(hash(id)) AS h, count(DISTINCT id % 1000003) AS d FROM range(0, {rows}, 1, 8)"


def jvm_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process `pid` (all its threads) so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def child(options: str, rows: int, rounds: int) -> None:
    """One session with `options`: print one JSON line per timed round."""
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[2]").appName("bench-jvm-options")
             .config("spark.driver.extraJavaOptions", options).config("spark.ui.showConsoleProgress", "false")
             .getOrCreate())
    jvm = spark.sparkContext._jvm
    pid = int(jvm.ProcessHandle.current().pid())
    beans = jvm.java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()

    def gc() -> tuple[int, int]:
        return (sum(b.getCollectionCount() for b in beans), sum(b.getCollectionTime() for b in beans))

    sql = HEAVY.format(rows=rows)
    spark.sql(sql).collect()  # JIT and the context's first jobs are not measured
    for _ in range(rounds):
        count0, ms0 = gc()
        cpu0, t0 = jvm_cpu_seconds(pid), time.perf_counter()
        spark.sql(sql).collect()
        wall, cpu = time.perf_counter() - t0, jvm_cpu_seconds(pid) - cpu0
        count1, ms1 = gc()
        print(json.dumps({"wall": wall, "cpu": cpu, "gcs": count1 - count0, "gc_ms": ms1 - ms0}), flush=True)
    spark.stop()


def engine_options() -> str:
    """The JVM options every team engine starts with (jobs/engines/process.py)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    import django

    django.setup()
    from jobs.engines.process import IDLE_FRIENDLY_JVM_OPTIONS

    return IDLE_FRIENDLY_JVM_OPTIONS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--options", action="append", help="a JVM option set (repeat for more)")
    parser.add_argument("--scale", type=float, default=0.25, help="1.0 = 100 million rows")
    parser.add_argument("--rounds", type=int, default=3, help="timed queries per process")
    parser.add_argument("--repeats", type=int, default=2, help="processes per option set (alternating)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    rows = int(args.scale * 100_000_000)
    if not args.options:
        args.options = ["", engine_options()]
    if args.child:
        child(args.options[0], rows, args.rounds)
        return
    results: dict[str, list[dict[str, float]]] = {o: [] for o in args.options}
    for repeat in range(args.repeats):
        for options in args.options:
            load = os.getloadavg()[0]
            out = subprocess.run([sys.executable, __file__, "--child", "--options", options, "--scale",
                                  str(args.scale), "--rounds", str(args.rounds)], capture_output=True, text=True,
                                 check=True).stdout
            rows_out = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
            results[options].extend(rows_out)
            print(f"repeat {repeat + 1}, load {load:.1f}: {options!r}: " + ", ".join(
                f"{r['wall']:.2f}s/{r['cpu']:.2f} cpu s/{r['gcs']} GCs {r['gc_ms']} ms" for r in rows_out), flush=True)
    print("\noption set, median wall s, median JVM CPU s, median GCs, median GC ms (per query)")
    for options, rows_out in results.items():
        print(f"{options!r}, {statistics.median(r['wall'] for r in rows_out):.2f}, "
              f"{statistics.median(r['cpu'] for r in rows_out):.2f}, "
              f"{statistics.median(r['gcs'] for r in rows_out):.0f}, "
              f"{statistics.median(r['gc_ms'] for r in rows_out):.0f}")
    if len(args.options) == 2:
        result = SideBySide()
        for contender, baseline in zip(results[args.options[1]], results[args.options[0]], strict=True):
            result.add(contender["cpu"], baseline["cpu"])
        print()
        print_header()
        print_row(f"heavy query x{args.scale:g} JVM CPU s, {args.options[1]!r} vs {args.options[0]!r}", result,
                  unit="s", scale=1.0)


if __name__ == "__main__":
    main()
