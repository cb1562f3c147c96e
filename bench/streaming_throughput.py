"""Streaming throughput and latency: Redis Streams → Spark → Delta, beside redis-py alone and Spark's own ceiling.

Rows printed (`name, contender, baseline, ratio, rounds, spread`; events/s, higher is better):
- `source: redis-streams→noop vs redis-py`: the Redis Streams source into Spark's `noop` sink against redis-py
  reading the same stream alone (XRANGE in chunks + JSON decoding), interleaved round by round. Target ≥ 0.5×.
- `redis-streams→delta vs redis-py`: the whole statement `INSERT INTO lake… SELECT … FROM STREAM(…)` into an
  embedded Delta table (exactly-once commits), against the same redis-py baseline.
- `source inside its micro-batches`: the same noop runs, events over Spark's own `triggerExecution` time of their
  batches (what a running stream sustains); `seconds per query outside its micro-batches`: the rest of each run
  (planning the statement, starting the query and its Python planner process, stopping), a fixed cost per query.
- `rate→noop (engine ceiling)`: Spark's `rate` source into `noop` (no baseline; ratio is against redis-py).
- `latency p50/p95 (s)`: produce → visible in the Delta table (read by delta-rs) at a fixed rate with
  `EMIT AFTER DELAY INTERVAL '1' SECOND`; baseline column is the trigger. Target p95 ≤ trigger + 2 s.

    .venv/bin/python bench/streaming_throughput.py --events 100000 --rounds 3 --rate 200 --seconds 20
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import deltalake
import redis
from _common import REPO, SideBySide, print_header, print_row

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

REDIS_URL = os.environ.get("LAKEPORT_BENCH_REDIS", "redis://127.0.0.1:6379/13")
COLUMNS = [{"name": "id", "type": "bigint"}, {"name": "room", "type": "string"}, {"name": "v", "type": "int"},
           {"name": "produced", "type": "double"}]
_ids = itertools.count()


def fill(conn: redis.Redis, key: str, events: int) -> None:
    """Append `events` entries (JSON in field `data`) to stream `key`."""
    pipe = conn.pipeline(transaction=False)
    for k in range(events):
        pipe.xadd(key, {"data": json.dumps({"id": k, "room": f"r{k % 50}", "v": k % 7, "produced": 0.0})})
        if k % 5000 == 4999:
            pipe.execute()
    pipe.execute()


def redis_py_alone(conn: redis.Redis, key: str) -> float:
    """Events/s of redis-py reading the whole stream and decoding every record."""
    t0 = time.perf_counter()
    start, count = "-", 0
    while True:
        entries = conn.xrange(key, min=start, max="+", count=5000)
        if not entries:
            break
        for _id, fields in entries:
            json.loads(fields[b"data"])
            count += 1
        last = entries[-1][0].decode()
        ms, seq = last.split("-")
        start = f"{ms}-{int(seq) + 1}"
    return count / (time.perf_counter() - t0)


class Lakeport:
    """One warm Spark session with a redis-streams catalog and a Delta catalog (as a team engine has)."""

    def __init__(self, work: Path, key: str) -> None:
        from pyspark.sql import SparkSession

        from lakeport_engine.guard import ENGINE_STATIC_CONF
        from lakeport_engine.store import InMemoryCatalogStore

        self.spark = (SparkSession.builder.master("local[2]").appName("bench-streaming")
                      .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
                      .config("spark.sql.shuffle.partitions", "2").config(map=ENGINE_STATIC_CONF).getOrCreate())
        self.spark.sparkContext.setLogLevel("ERROR")
        self.work = work
        self.key = key
        self.store = InMemoryCatalogStore([
            {"catalog_name": "rs", "catalog_type": "redis-streams", "configuration": {
                "url": REDIS_URL, "max-records-per-batch": 50000,
                "tables": {f"default.{key}": {"columns": COLUMNS}}}},
            {"catalog_name": "lake", "catalog_type": "delta", "configuration": {"warehouse": str(work / "lake")}},
        ], team="bench")

    def run(self, sql: str, *, available_now: bool = True, sink: str = "table") -> tuple[Any, Any]:
        from lakeport_engine.script import ScriptRunner
        from lakeport_engine.sqltext import split_statements
        from lakeport_engine.streaming import sources
        from lakeport_engine.streaming.query import plan_streaming, start_streaming

        session = self.spark.newSession()
        session.conf.set("spark.sql.shuffle.partitions", "2")
        runner = ScriptRunner(session, self.store, team="bench")
        plan = plan_streaming(runner.resolver, split_statements(sql)[0], stream_view=sources.stream_view)
        checkpoint = str(self.work / f"ckpt-{next(_ids)}")
        if sink == "noop":
            writer = plan.frame.writeStream.format("noop").option("checkpointLocation", checkpoint)
            query = writer.trigger(availableNow=True).start()
        else:
            query = start_streaming(plan, checkpoint=checkpoint, available_now=available_now)
        return plan, query

    def events_per_second(self, sql: str, events: int, *, sink: str) -> tuple[float, float, float]:
        """Events/s of the whole query (plan, start, batches, stop), events/s inside its micro-batches (Spark's
        own `triggerExecution` time), and the seconds the query spent outside its batches."""
        t0 = time.perf_counter()
        _, query = self.run(sql, sink=sink)
        query.awaitTermination()
        total = time.perf_counter() - t0
        batches = [p for p in query.recentProgress if p["numInputRows"] > 0]
        in_batches = sum(p["durationMs"]["triggerExecution"] for p in batches) / 1000
        rows = sum(p["numInputRows"] for p in batches)
        return events / total, rows / in_batches if in_batches else 0.0, total - in_batches

    def rate_ceiling(self, seconds: float) -> float:
        query = (self.spark.readStream.format("rate").option("rowsPerSecond", 2_000_000).load()
                 .writeStream.format("noop").option("checkpointLocation", str(self.work / "ckpt-rate")).start())
        time.sleep(seconds)
        rates = [p["processedRowsPerSecond"] for p in query.recentProgress if p["numInputRows"] > 0]
        query.stop()
        return statistics.median(rates[1:] or rates) if rates else 0.0

    def delta_table(self, name: str) -> str:
        path = self.work / "lake" / "bench" / name
        import pyarrow as pa

        schema = pa.schema([("id", pa.int64()), ("room", pa.string()), ("v", pa.int32()), ("produced", pa.float64())])
        deltalake.write_deltalake(str(path), schema.empty_table())
        return str(path)


def latency(lake: Lakeport, conn: redis.Redis, rate: int, seconds: float, trigger: float) -> list[float]:
    """Produce→visible seconds per event at a fixed rate (visible: in a Delta snapshot delta-rs reads)."""
    key = f"{lake.key}_lat"
    conn.delete(key)
    conn.xadd(key, {"data": json.dumps({"id": -1, "room": "warm", "v": 0, "produced": time.time()})})
    lake.store.put({"catalog_name": "rs", "catalog_type": "redis-streams", "configuration": {
        "url": REDIS_URL, "tables": {f"default.{key}": {"columns": COLUMNS}}}})
    path = lake.delta_table("latency")
    _, query = lake.run(f"INSERT INTO lake.bench.latency SELECT id, room, v, produced FROM STREAM(rs.default.{key}) "
                        f"EMIT AFTER DELAY INTERVAL '{trigger:g}' SECONDS", available_now=False)
    stop = threading.Event()
    produced = {}

    def produce() -> None:
        k = 0
        next_at = time.monotonic()
        while not stop.is_set():
            now = time.time()
            conn.xadd(key, {"data": json.dumps({"id": k, "room": "r", "v": 1, "produced": now})})
            produced[k] = now
            k += 1
            next_at += 1.0 / rate
            time.sleep(max(0.0, next_at - time.monotonic()))

    seen: dict[int, float] = {}
    thread = threading.Thread(target=produce, daemon=True)
    time.sleep(5)  # first batch plans and warms up
    thread.start()
    deadline = time.monotonic() + seconds
    version = -1
    while time.monotonic() < deadline + trigger + 5:
        if time.monotonic() > deadline:
            stop.set()
        table = deltalake.DeltaTable(path)
        if table.version() != version:
            version = table.version()
            now = time.time()
            for k in table.to_pyarrow_table(columns=["id"]).column("id").to_pylist():
                if k >= 0 and k not in seen:
                    seen[k] = now
        time.sleep(0.05)
    query.stop()
    return [seen[k] - produced[k] for k in seen if k in produced]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--rate", type=int, default=200, help="latency run: events per second")
    parser.add_argument("--seconds", type=float, default=20.0, help="latency run: how long to produce")
    parser.add_argument("--trigger", type=float, default=1.0, help="latency run: EMIT AFTER DELAY seconds")
    args = parser.parse_args()
    conn = redis.Redis.from_url(REDIS_URL)
    key = f"lp_bench_{os.getpid()}"
    work = Path(tempfile.mkdtemp(prefix="lp-bench-streaming-"))
    try:
        conn.delete(key)
        fill(conn, key, args.events)
        lake = Lakeport(work, key)
        lake.delta_table("warm")
        lake.delta_table("any")  # the noop runs plan the same statement shape (a sink table must exist)
        source, in_batches, end_to_end = SideBySide(), SideBySide(), SideBySide()
        outside: list[float] = []
        rounds: list[str] = []
        lake.events_per_second(f"INSERT INTO lake.bench.warm SELECT id, room, v, produced FROM STREAM(rs.default.{key})", args.events,
                               sink="noop")  # warm-up: JIT, Python workers
        for r in range(args.rounds):
            baseline = redis_py_alone(conn, key)
            noop, noop_in_batches, noop_outside = lake.events_per_second(
                f"INSERT INTO lake.bench.any SELECT id, room, v, produced FROM STREAM(rs.default.{key})",
                args.events, sink="noop")
            lake.delta_table(f"events_{r}")
            delta, _, _ = lake.events_per_second(f"INSERT INTO lake.bench.events_{r} SELECT id, room, v, produced "
                                                 f"FROM STREAM(rs.default.{key})", args.events, sink="table")
            source.add(noop, baseline)
            in_batches.add(noop_in_batches, baseline)
            end_to_end.add(delta, baseline)
            outside.append(noop_outside)
            rounds.append(f"# round {r}: redis-py {baseline:.0f}, →noop {noop:.0f} (in batches {noop_in_batches:.0f}, "
                          f"{noop_outside:.2f} s outside them), →delta {delta:.0f} ev/s; load {os.getloadavg()[0]:.1f}")
        ceiling = lake.rate_ceiling(15.0)
        delays = sorted(latency(lake, conn, args.rate, args.seconds, args.trigger))
        print_header()
        print_row(f"source: redis-streams→noop vs redis-py, {args.events} events", source, unit=" ev/s", scale=1.0)
        print_row(f"source inside its micro-batches vs redis-py, {args.events} events", in_batches, unit=" ev/s",
                  scale=1.0)
        print(f"source: seconds per query outside its micro-batches, {statistics.median(outside):.2f}, -, -, "
              f"{len(outside)}, {min(outside):.2f}–{max(outside):.2f} s")
        print_row(f"redis-streams→delta vs redis-py, {args.events} events", end_to_end, unit=" ev/s", scale=1.0)
        base = statistics.median(source.baseline)
        print(f"rate→noop (engine ceiling), {ceiling:.0f}, {base:.0f}, {ceiling / base:.2f}, 1, -")
        if delays:
            p50 = delays[len(delays) // 2]
            p95 = delays[min(len(delays) - 1, int(len(delays) * 0.95))]
            print(f"latency p50 at {args.rate}/s (s), {p50:.2f}, {args.trigger:g}, {p50 / args.trigger:.2f}, "
                  f"{len(delays)} events, -")
            print(f"latency p95 at {args.rate}/s (s), {p95:.2f}, {args.trigger:g}, {p95 / args.trigger:.2f}, "
                  f"{len(delays)} events, -")
        print("\n".join(rounds))
        lake.spark.stop()
    finally:
        conn.delete(key, f"{key}_lat")
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    assert REPO.is_dir()
    main()
