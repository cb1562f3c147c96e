"""Benchmark: 200 runs submitted at once to 2 Celery workers — all finish, none lost or duplicated; runs/minute.

Two real `celery worker` processes (threads pool, 2 runs at a time each, one warm SparkContext each) and
`celery beat` consume from Redis; 200 runs of a small JDBC job are submitted at once through `run_submit`.
Checks: 200 runs, every one SUCCEEDED, attempt 1, exactly one "started" log line (no run executed twice).
The baseline is the same 200 runs executed one after another in this process on one warm engine, with no
broker (the floor a queue adds its cost to). Prints the standard row (seconds for all 200) and runs/minute.

    .venv/bin/python bench/concurrent_runs.py [--runs 200] [--workers 2] [--concurrency 2]
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import redis
from _common import REPO, SideBySide, print_header, print_row
from submit_to_first_row import scratch_platform

BROKER = os.environ.get("LAKEPORT_BENCH_REDIS", "redis://127.0.0.1:6379/5")
SQL = "SELECT customer, count(*) AS n FROM pg.public.orders WHERE id % 7 = 0 GROUP BY customer ORDER BY customer"


def start_workers(count: int, concurrency: int, logdir: Path) -> list[subprocess.Popen]:
    procs = []
    base = [sys.executable, "-m", "celery", "-A", "config"]
    for i in range(count):
        cmd = base + ["worker", "--loglevel=WARNING", "--pool=threads", f"--concurrency={concurrency}",
                      "--hostname", f"bench{i}@%h", "--without-mingle", "--without-gossip", "-Q", "lakeport"]
        procs.append(subprocess.Popen(cmd, cwd=REPO, stdout=open(logdir / f"worker{i}.log", "wb"),  # noqa: SIM115
                                      stderr=subprocess.STDOUT, start_new_session=True))
    procs.append(subprocess.Popen(base + ["beat", "--loglevel=WARNING", "--schedule", str(logdir / "beat")],
                                  cwd=REPO, stdout=open(logdir / "beat.log", "wb"),  # noqa: SIM115
                                  stderr=subprocess.STDOUT, start_new_session=True))
    return procs


def stop(procs: list[subprocess.Popen]) -> None:
    for p in procs:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGTERM)
    for p in procs:
        try:
            p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=2)
    args = parser.parse_args()
    redis.Redis.from_url(BROKER).flushdb()
    with scratch_platform(env={"CELERY_BROKER_URL": BROKER}) as env:
        from jobs.models import JobRun, JobRunLogLine, RunStatus, SqlJob
        from jobs.services.execution import run_execute
        from jobs.services.runs import run_submit

        job = SqlJob.objects.create(team=env["team"], name="small jdbc", sql=SQL, engine="warm")
        # Baseline: one process, one warm engine, no broker, one run after another.
        run_execute(run_id=run_submit(job=job, user=None, enqueue=False).run.id, worker="warmup")
        start = time.perf_counter()
        for _ in range(args.runs):
            run_execute(run_id=run_submit(job=job, user=None, enqueue=False).run.id, worker="serial")
        serial = time.perf_counter() - start
        JobRun.objects.all().delete()

        logdir = Path(tempfile.mkdtemp(prefix="lp-bench-workers-"))
        procs = start_workers(args.workers, args.concurrency, logdir)
        try:
            # Let each worker build its warm engine first (a worker that has run once is what "warm" means).
            warm = [run_submit(job=job, user=None).run.id for _ in range(args.workers * args.concurrency * 2)]
            while JobRun.objects.filter(id__in=warm, status__in=[RunStatus.QUEUED, RunStatus.RUNNING]).exists():
                time.sleep(0.5)
            JobRun.objects.all().delete()
            start = time.perf_counter()
            ids = [run_submit(job=job, user=None).run.id for _ in range(args.runs)]
            while JobRun.objects.filter(id__in=ids, status__in=[RunStatus.QUEUED, RunStatus.RUNNING]).exists():
                time.sleep(0.25)
            concurrent = time.perf_counter() - start
        finally:
            stop(procs)
        runs = list(JobRun.objects.filter(id__in=ids).values("id", "status", "attempt", "worker"))
        starts = JobRunLogLine.objects.filter(run_id__in=ids, message__contains=" started on ").count()
        succeeded = sum(1 for r in runs if r["status"] == RunStatus.SUCCEEDED)
        lost = args.runs - len(runs)
        duplicated = sum(1 for r in runs if r["attempt"] != 1) + (starts - len(runs))
        by_worker: dict[str, int] = {}
        for r in runs:
            by_worker[r["worker"].split("@")[0]] = by_worker.get(r["worker"].split("@")[0], 0) + 1

        result = SideBySide()
        result.add(concurrent, serial)
        print_header()
        print_row(f"{args.runs} runs on {args.workers} workers x{args.concurrency} (vs serial in-process)", result,
                  unit="s", scale=1.0)
        print(f"runs/minute: {args.runs / concurrent * 60:.0f} concurrent, {args.runs / serial * 60:.0f} serial; "
              f"succeeded {succeeded}/{args.runs}, lost {lost}, duplicated {duplicated}, per worker {by_worker}")
        if succeeded != args.runs or lost or duplicated:
            raise SystemExit("FAILED: runs lost, failed or executed twice (see above)")


if __name__ == "__main__":
    main()
