"""Benchmark: one-line runs submitted at once by many API clients, against the same runs submitted one by one.

The `make run` stack on PostgreSQL + Redis: gunicorn (2 processes x 4 threads) and the Celery workers of
`--layout` — `queues` is platform/scripts/run.sh's (a worker per queue, 16 run threads, per-team limits on at
their defaults), `single` the layout before fair share (one worker, 2 threads, every task on queue `lakeport`).
`--clients` API clients spread over `--teams` teams each submit runs of `SELECT 1` (POST …/runs/) and wait for
their end (GET …/runs/<id>/?wait=30, again every 0.2 s while the web answers at once) until `--runs` runs are done; the baseline is the same runs submitted by one
client, each after the previous one ended. Every team's engine is warmed first. Prints the standard row
(seconds for all runs, concurrent vs serial), runs/minute both ways, the p50/p90 submit-to-end latency, the load
average before and after, and checks every run SUCCEEDED exactly once.

    .venv/bin/python bench/concurrent_runs.py [--runs 60] [--clients 16] [--teams 4] [--layout queues|single]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import redis
from _common import REPO, SideBySide, percentile, print_header, print_row
from _stack import api_token, start_gunicorn, stop_group, wait_until
from submit_to_first_row import scratch_platform

from tests.support.servers import start_private_redis

SQL = "SELECT 1 AS one"
FINAL = {"SUCCEEDED", "FAILED", "CANCELLED"}
POLL_SECONDS = 0.2  # a client answered at once (no waiter slot free) asks again this much later, as a browser would
# (hostname, queues, threads) per worker process of a layout.
LAYOUTS = {
    "queues": [("runs", "lakeport", 16), ("editor", "lakeport.editor", 8), ("ticks", "lakeport.beat", 4),
               ("streams", "lakeport.streams", 16)],
    "single": [("worker", "lakeport", 2)],
}
# The web of each layout as run.sh starts it: (gunicorn threads per process, LAKEPORT_RUN_WAITERS); 2 processes.
WEB = {"queues": (16, "12"), "single": (4, "2")}


class Client:
    """One API client of one team: submits a run of the team's job and waits for its end."""

    def __init__(self, base: str, team: str, token: str, job_id: int) -> None:
        self.base, self.team, self.token, self.job_id = base, team, token, job_id

    def _call(self, method: str, path: str, body: dict | None = None) -> dict:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(f"{self.base}/api/v1/teams/{self.team}/{path}", data=data, method=method)
        request.add_header("Authorization", f"Bearer {self.token}")
        request.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(request, timeout=120) as answer:
            return json.loads(answer.read())

    def run_once(self) -> tuple[int, float, str]:
        """Submit one run and wait for it; returns (run id, seconds from submit to end seen, final status)."""
        start = time.perf_counter()
        run = self._call("POST", f"jobs/{self.job_id}/runs/", {})
        while run["status"] not in FINAL:
            waited = time.perf_counter()
            run = self._call("GET", f"runs/{run['id']}/?wait=30")
            if run["status"] not in FINAL and time.perf_counter() - waited < POLL_SECONDS:
                time.sleep(POLL_SECONDS)  # the web's waiter slots (LAKEPORT_RUN_WAITERS) were taken: it answered at once
        return run["id"], time.perf_counter() - start, run["status"]


def start_workers(layout: str, logdir: Path) -> list[subprocess.Popen]:
    procs = []
    for name, queues, threads in LAYOUTS[layout]:
        cmd = [sys.executable, "-m", "celery", "-A", "config", "worker", "--loglevel=WARNING", "--pool=threads",
               f"--concurrency={threads}", "--hostname", f"{name}@%h", "--without-mingle", "--without-gossip",
               "-Q", queues]
        procs.append(subprocess.Popen(cmd, cwd=REPO, stdout=open(logdir / f"{name}.log", "wb"),  # noqa: SIM115
                                      stderr=subprocess.STDOUT, start_new_session=True))
    return procs


def drive(clients: list[Client], runs: int) -> tuple[float, list[tuple[int, float, str]]]:
    """`runs` runs shared by `clients` threads (each takes the next one when its previous run ended)."""
    results: list[tuple[int, float, str]] = []
    left = [runs]
    lock = threading.Lock()

    def loop(client: Client) -> None:
        while True:
            with lock:
                if left[0] == 0:
                    return
                left[0] -= 1
            outcome = client.run_once()
            with lock:
                results.append(outcome)

    threads = [threading.Thread(target=loop, args=(c,)) for c in clients]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - start, results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--teams", type=int, default=4)
    parser.add_argument("--layout", choices=sorted(LAYOUTS), default="queues")
    args = parser.parse_args()
    # A Redis of its own (unless LAKEPORT_BENCH_REDIS names one): nobody else's worker or flush touches its queues.
    private = None if os.environ.get("LAKEPORT_BENCH_REDIS") else start_private_redis(
        Path(tempfile.mkdtemp(prefix="lp-bench-redis-")))
    broker = os.environ.get("LAKEPORT_BENCH_REDIS") or private.url(0)
    redis.Redis.from_url(broker).flushdb()
    load_before = os.getloadavg()
    try:
        measure(args, broker, load_before)
    finally:
        if private is not None:
            private.stop()


def measure(args: argparse.Namespace, broker: str, load_before: tuple[float, float, float]) -> None:
    """Start the stack on `broker`, warm every team's engine, then run the serial and the concurrent rounds."""
    with scratch_platform(env={"CELERY_BROKER_URL": broker, "CELERY_RESULT_BACKEND": broker}) as env:
        from jobs.models import JobRun, JobRunLogLine
        from teams.services import team_create

        teams = [env["team"]] + [team_create(name=f"bench{i}") for i in range(2, args.teams + 1)]
        from jobs.models import SqlJob

        logdir = Path(tempfile.mkdtemp(prefix="lp-bench-concurrent-"))
        procs = start_workers(args.layout, logdir)
        threads, waiters = WEB[args.layout]
        base, web = start_gunicorn(logdir, workers=2, threads=threads, env={"LAKEPORT_RUN_WAITERS": waiters})
        try:
            clients_of_team = []
            for n, team in enumerate(teams):
                job = SqlJob.objects.create(team=team, name="one line", sql=SQL, engine="warm")
                clients_of_team.append(Client(base, team.name, api_token(team, username=f"bench-dev{n}"), job.id))
            for client in clients_of_team:  # every team's engine started before anything is measured
                wait_until(lambda c=client: c.run_once()[2] == "SUCCEEDED", timeout=600, what="a warm-up run")
            clients = [clients_of_team[i % len(teams)] for i in range(args.clients)]
            JobRun.objects.all().delete()
            serial_clients = clients_of_team
            serial, serial_results = drive([_Serial(serial_clients)], args.runs)  # one client, one run at a time
            concurrent, results = drive(clients, args.runs)
        finally:
            stop_group(web)
            for proc in procs:
                stop_group(proc)
        load_after = os.getloadavg()
        ids = [r[0] for r in results]
        statuses = dict(JobRun.objects.filter(id__in=ids).values_list("id", "status"))
        starts = JobRunLogLine.objects.filter(run_id__in=ids, message__contains=" started on ").count()
        succeeded = sum(1 for s in statuses.values() if s == "SUCCEEDED")
        latencies = [r[1] for r in results]
        serial_latencies = [r[1] for r in serial_results]

        result = SideBySide()
        result.add(concurrent, serial)
        print_header()
        print_row(f"{args.runs} runs of SELECT 1, {args.clients} clients over {args.teams} teams, layout "
                  f"{args.layout} (vs one client, one run at a time)", result, unit="s", scale=1.0)
        print(f"runs/minute: {args.runs / concurrent * 60:.0f} concurrent, {args.runs / serial * 60:.0f} serial; "
              f"submit-to-end p50 {statistics.median(latencies):.2f}s p90 {percentile(latencies, 90):.2f}s "
              f"(serial p50 {statistics.median(serial_latencies):.2f}s); succeeded {succeeded}/{args.runs}, "
              f"started {starts}; load average before {load_before[0]:.1f}, after {load_after[0]:.1f} "
              f"({os.cpu_count()} CPUs)")
        if succeeded != args.runs or starts != args.runs:
            raise SystemExit("FAILED: runs failed, were lost or started twice (see above)")


class _Serial(Client):
    """One client taking the teams in turn: each run submitted after the previous one ended."""

    def __init__(self, clients: list[Client]) -> None:
        self.clients, self.turn = clients, 0

    def run_once(self) -> tuple[int, float, str]:
        client = self.clients[self.turn % len(self.clients)]
        self.turn += 1
        return client.run_once()


if __name__ == "__main__":
    main()
