"""Benchmark: how long a stream is down after its driver is killed with `kill -9`, beside a cold engine start.

Issue 31: "the same start serves a stream's restart after a crash (measure recovery time after kill -9 in the same
benchmark)". On a scratch platform (PostgreSQL database migrated by the platform, a private Redis for the events,
an embedded Delta warehouse), a real Celery worker supervises a streaming job Redis Streams → Delta with the
supervision timings the stream tests use (lease 8 s, heartbeat 1 s, restart backoff 1 s). Each round:

- contender — **recovery**: SIGKILL of the driver's process group (the engine process and its JVM, as a crash takes
  both), timed until the stream has committed a batch again to its sink (a new Delta version, read by delta-rs):
  detection by the supervisor, the backoff, the new engine's cold start, the query's restart from its checkpoint;
- baseline — **cold engine start**: the same worker code's `EngineProcess.start()` to its first preview row
  (bench/engine_start.py's contender), in this process, for the ratio.

Rounds interleave (bench/_common.py). The events keep arriving throughout (5 every 0.5 s), so "a batch again" is
data flowing, not a status flag.

    PYSPARK_PYTHON=$PWD/.venv/bin/python .venv/bin/python bench/stream_recovery.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from _common import REPO, interleaved, print_header, print_row
from _stack import engine_scratch_root, free_port, start_worker, stop_group, wait_for_port, wait_until
from engine_start import engine_start
from submit_to_first_row import scratch_platform

BROKER = os.environ.get("LAKEPORT_BENCH_REDIS", "redis://127.0.0.1:6379/8")
FAST_STREAMS = {
    "LAKEPORT_STREAM_LEASE_SECONDS": "8", "LAKEPORT_STREAM_HEARTBEAT_SECONDS": "1",
    "LAKEPORT_STREAM_TICK_SECONDS": "2", "LAKEPORT_STREAM_RESTART_BACKOFF_SECONDS": "1",
    "LAKEPORT_STREAM_RESTART_BACKOFF_MAX_SECONDS": "4",
}
COLUMNS = [{"name": "id", "type": "long"}, {"name": "room", "type": "string"}, {"name": "ts", "type": "timestamp"}]


def private_redis(workdir: Path) -> tuple[subprocess.Popen[bytes], int, str]:
    """A redis-server of the benchmark's own (the platform refuses catalogs on its broker); password via stdin."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit("redis-server is missing: run platform/scripts/ensure-services.sh")
    port, password = free_port(), "rb-" + secrets.token_hex(8)
    proc = subprocess.Popen([binary, "-"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, cwd=workdir)
    assert proc.stdin is not None
    proc.stdin.write(f"port {port}\nbind 127.0.0.1\nsave \"\"\nrequirepass {password}\n".encode())
    proc.stdin.close()
    wait_for_port(port, timeout=20)
    return proc, port, password


class Producer(threading.Thread):
    """Adds 5 events to the stream every 0.5 s until stopped."""

    def __init__(self, url: str, key: str) -> None:
        super().__init__(daemon=True)
        import redis

        self.client, self.key, self.stop_event, self.next_id = redis.Redis.from_url(url), key, threading.Event(), 0

    def run(self) -> None:
        while not self.stop_event.is_set():
            for _ in range(5):
                i = self.next_id
                self.client.xadd(self.key, {"data": json.dumps({
                    "id": i, "room": "abc"[i % 3], "ts": f"2026-01-01T00:{(i // 60) % 60:02d}:{i % 60:02d}Z"})})
                self.next_id += 1
            self.stop_event.wait(0.5)


def sink_version(path: str) -> int:
    """The Delta sink's newest version (delta-rs), -1 before its first commit."""
    import deltalake

    try:
        return int(deltalake.DeltaTable(path).version())
    except Exception:  # noqa: BLE001 - not readable yet
        return -1


def driver_groups(worker_pid: int) -> list[int]:
    """Process groups of the worker's engine processes (the stream's driver is the only engine here)."""
    from tests.support.processes import descendants

    found = []
    for pid in descendants(worker_pid):
        try:
            if b"lakeport_engine.engine" in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(os.getpgid(pid))
        except OSError:
            continue
    return sorted(set(found))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--master", default="local[2]")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="lp-bench-recovery-"))
    work.chmod(0o755)
    warehouse, checkpoints = work / "teams" / "bench" / "warehouse", work / "checkpoints"
    for d in (warehouse.parent.parent, warehouse.parent, warehouse, checkpoints):
        d.mkdir()
        d.chmod(0o777)  # the engine user writes here when the platform runs as root
    redis_proc, port, password = private_redis(work)
    key = "events"
    env = {**FAST_STREAMS, "CELERY_BROKER_URL": BROKER, "CELERY_RESULT_BACKEND": BROKER, "SPARK_MASTER": args.master,
           "LAKEPORT_STREAM_CHECKPOINT_DIR": str(checkpoints),
           "LAKEPORT_TEAM_DATA_ROOTS": str(work / "teams" / "{team}"),
           "LAKEPORT_ENGINE_USER": "",  # engines as this user, as bench/engine_start.py's (timing, not isolation)
           "LAKEPORT_ENGINE_SCRATCH_DIR": engine_scratch_root(),
           "LAKEPORT_SPARK_STATIC_CONF": "spark.ui.enabled=false,spark.sql.shuffle.partitions=2,spark.driver.memory=1g"}
    worker = None
    producer = Producer(f"redis://:{password}@127.0.0.1:{port}/0", key)
    try:
        with scratch_platform(env=env) as platform:
            import deltalake
            import pyarrow as pa

            from catalogs.services.crud import catalog_create
            from jobs.models import JobKind
            from jobs.services.jobs import job_create
            from streams.models import StreamState
            from streams.services.lifecycle import stream_start

            team = platform["team"]
            catalog_create(team=team, actor=None, actor_name="bench", data={
                "catalog_name": "events", "catalog_type": "redis-streams", "configuration": {
                    "url": f"redis://127.0.0.1:{port}/0", "password": password, "max-records-per-batch": 100,
                    "tables": {f"default.{key}": {"columns": COLUMNS, "event-time": "ts"}}}})
            catalog_create(team=team, actor=None, actor_name="bench", data={
                "catalog_name": "lake", "catalog_type": "delta", "configuration": {"warehouse": str(warehouse)}})
            sink = str(warehouse / "db" / "out")
            deltalake.write_deltalake(sink, pa.table({"id": pa.array([], pa.int64()), "room": pa.array([], pa.string())}))
            job = job_create(team=team, user=None, name="recovery", kind=JobKind.STREAMING,
                             sql=f"INSERT INTO lake.db.out SELECT id, room FROM STREAM(events.default.{key})")
            producer.start()
            worker = start_worker(work, concurrency=2, env={"LAKEPORT_EDITOR_PARSE_SERVER": "false"})
            stream_start(job=job, user=None, actor_name="bench")
            wait_until(lambda: sink_version(sink) >= 1, timeout=600, what="the stream's first batch")
            wait_until(lambda: StreamState.objects.get(job=job).status == "RUNNING", timeout=120, what="RUNNING")

            def recovery() -> float:
                [group] = wait_until(lambda: driver_groups(worker.pid), timeout=300, what="the driver")
                wait_until(lambda: StreamState.objects.get(job=job).status == "RUNNING", timeout=600,
                           what="RUNNING before the kill")
                before = sink_version(sink)
                started = time.monotonic()
                os.killpg(group, signal.SIGKILL)
                wait_until(lambda: sink_version(sink) > before and driver_groups(worker.pid) not in ([], [group]),
                           timeout=900, interval=0.1, what="a batch committed by the restarted driver")
                return time.monotonic() - started

            def cold_start() -> float:
                return engine_start(args.master, Path(tempfile.mkdtemp(prefix="lp-bench-cold-")), cds=True)

            print_header()
            print_row("stream recovery after kill -9 vs cold engine start, s",
                      interleaved(recovery, cold_start, rounds=args.rounds), unit="s", scale=1.0)
            restarts = StreamState.objects.get(job=job).restarts
            print(f"# restarts recorded by the supervisor: {restarts}; master {args.master}, "
                  f"load {os.getloadavg()[0]:.1f}")
    finally:
        producer.stop_event.set()
        stop_group(worker)
        redis_proc.terminate()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    main()
