"""Benchmark: editor preview round trip on a warm team engine vs a Spark Connect server; idle engine memory.

Contender — the real path of an editor call: HTTP `POST /api/v1/teams/bench/sql/preview/` (bearer token of a
developer) to gunicorn → `sql_preview` → Celery task `jobs.sql_interactive` on Redis → a real `celery worker
--pool=threads` → the team's engine process (new SparkSession, ScriptRunner: guard, catalog resolution over the
channel) → the result backend, polled by the web process → the HTTP response. Timed in this process from the
request to the parsed response holding the rows.
Baseline — a Spark Connect server from the pyspark package (`SparkConnectServer` through `spark-submit`, same
master, same static conf as the engine minus the guard's switches), one long-lived client session here running
the same query with `spark.sql(q).collect()`. For the JDBC query there are two Connect baselines: a temp view
over `spark.read.jdbc` of the same PostgreSQL table (DSv1: Spark scans the rows and aggregates), and the same
DSv2 `JDBCTableCatalog` the platform registers for the team's catalog `pg`, configured on the server (the
aggregate is pushed down to PostgreSQL on both sides), with the identical SQL text.

Queries: `SELECT 1 AS one`, and a GROUP BY over a 1,000-row PostgreSQL table (through the team's JDBC catalog
`pg` on the platform side). Both sides get `--warmup` untimed rounds first (engine start, JIT, JDBC driver
load); rounds alternate which side goes first. Target (issue 12): preview p50 ≤ 2.5× Spark Connect's.

Also measured: "submit a run → SUCCEEDED visible in the API" for `SELECT 1` (POST `jobs/<id>/runs/`, then GET
`runs/<id>/` every 20 ms), against the same Connect `SELECT 1`; the resident memory (VmRSS of the engine's
Python process + its JVM child, from /proc) of an idle team engine, and of the Connect server's JVM;
`--memory` repeats the idle-memory measure with other engine static confs (LAKEPORT_SPARK_STATIC_CONF);
`--profile N` times N previews with the platform's own code wrapped by timers (bench/_profiled_worker.py,
bench/_profiled_engine.py) and prints where the round trip goes.

Rows are `name, contender, baseline, ratio, rounds, spread` (bench/_common.py); the p90 rows print the 90th
percentile of each side and the ratio of those, with the spread of the per-round ratios.

    PYSPARK_PYTHON=$PWD/.venv/bin/python .venv/bin/python bench/engine_roundtrip.py \
        [--rounds 30] [--warmup 20] [--run-rounds 10] [--master 'local[1]'] [--memory [--variants 1,5]]
        [--profile 15] [--skip-latency]

The Spark Connect client's extras (pandas, grpcio, …) are installed on first use into
/tmp/lakeport-bench-connect (LAKEPORT_BENCH_CONNECT_SITE), never into .venv: an engine's Python imports pandas
whenever it is importable, and the memory measured here must be the platform's as shipped.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import redis
from _common import SideBySide, interleaved, percentile, print_header, print_row
from _stack import (
    BROKER,
    api_token,
    descendants,
    engine_pids,
    engine_scratch_root,
    free_port,
    rss_mib,
    start_gunicorn,
    start_worker,
    stop_group,
    tree_rss,
    wait_for_port,
)
from submit_to_first_row import scratch_platform

from core.queues import ALL_QUEUES

SELECT1 = "SELECT 1 AS one"
JDBC_SQL = "SELECT customer, sum(amount) AS total FROM {table} GROUP BY customer ORDER BY total DESC, customer"
PG_JAR = "/usr/share/java/postgresql.jar"
BENCH = Path(__file__).resolve().parent
GUARD_KEYS = ("spark.sql.restrictedMode.enabled", "spark.sql.runSQLOnFiles", "spark.sql.avro.schemaUrlAllowedSchemes",
              "spark.sql.legacy.hive.thriftServer.allowSettingSystemProperties",
              "spark.sql.artifact.copyFromLocalToFs.allowDestLocal")


CONNECT_EXTRAS = ("pandas>=2.2,<3", "grpcio>=1.76", "grpcio-status>=1.76", "googleapis-common-protos>=1.71",
                  "zstandard>=0.25")
# The Connect client's extras live outside .venv: an engine's Python imports pandas whenever it can (pyspark's
# session does), which would add ~45 MiB to the engine memory measured here and is not what the platform ships.
CONNECT_SITE = os.environ.get("LAKEPORT_BENCH_CONNECT_SITE", "/tmp/lakeport-bench-connect")


def connect_extras_missing() -> list[str]:
    missing = []
    for module in ("pandas", "grpc", "grpc_status", "google.rpc", "zstandard"):
        try:
            __import__(module)
        except ImportError:
            missing.append(module)
    return missing


def ensure_connect_client() -> None:
    """Make pyspark's Connect client importable here only: extras from CONNECT_SITE, installed there if missing."""
    if CONNECT_SITE not in sys.path:
        sys.path.append(CONNECT_SITE)  # after .venv: the platform's own packages win
    if connect_extras_missing():
        print(f"installing the Spark Connect client extras into {CONNECT_SITE} (not .venv)", flush=True)
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--target", CONNECT_SITE, *CONNECT_EXTRAS],
                       check=True)
        import importlib

        importlib.invalidate_caches()
    missing = connect_extras_missing()
    if missing:
        raise SystemExit(f"The Spark Connect client needs {', '.join(missing)} (pip install --target {CONNECT_SITE} "
                         + " ".join(repr(r) for r in CONNECT_EXTRAS) + ")")


# ---- the platform side ---------------------------------------------------------------------------------------
class Api:
    """The platform's HTTP API as a developer of team `bench` calls it."""

    def __init__(self, base: str, token: str, team: str) -> None:
        self.base = f"{base}/api/v1/teams/{team}"
        self.token = token

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Authorization", f"Bearer {self.token}")
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=300) as resp:
                return resp.status, json.loads(resp.read() or b"null")
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read() or b"null")

    def preview(self, sql: str) -> list[list[Any]]:
        status, body = self.call("POST", "/sql/preview/", {"sql": sql, "limit": 1000})
        if status != 200:
            raise RuntimeError(f"preview answered {status}: {body}")
        return body["rows"]


def timed_preview(api: Api, sql: str, expect: list[list[Any]]) -> Callable[[], float]:
    def run() -> float:
        start = time.perf_counter()
        rows = api.preview(sql)
        elapsed = time.perf_counter() - start
        if rows != expect:
            raise RuntimeError(f"preview of {sql!r} returned {rows[:3]}…, expected {expect[:3]}…")
        return elapsed
    return run


def timed_run(api: Api, job_id: int, poll: float, *, wait: bool = False) -> Callable[[], float]:
    """Submit → SUCCEEDED seen, polling `GET runs/<id>/` every `poll` s; or (`wait`) submit → first row: one
    `POST …/runs/?wait=30`, then `GET runs/<id>/result/`."""
    def run() -> float:
        start = time.perf_counter()
        status, body = api.call("POST", f"/jobs/{job_id}/runs/" + ("?wait=30" if wait else ""))
        if status not in (200, 201):
            raise RuntimeError(f"submit answered {status}: {body}")
        run_id = body["id"]
        while body.get("status") not in ("SUCCEEDED", "FAILED", "CANCELLED"):
            time.sleep(poll)
            status, body = api.call("GET", f"/runs/{run_id}/")
        if body["status"] != "SUCCEEDED":
            raise RuntimeError(f"run {run_id} {body['status']}: {body.get('error')}")
        if wait:  # "submit → first row": the rows in hand, as Connect's side has them
            status, result = api.call("GET", f"/runs/{run_id}/result/")
            if status != 200 or not result.get("rows"):
                raise RuntimeError(f"result of run {run_id} answered {status}: {result}")
        return time.perf_counter() - start
    return run


# ---- the Spark Connect side ------------------------------------------------------------------------------------
def connect_conf(workdir: Path) -> dict[str, str]:
    """The static conf a team engine gets (jobs.engines.process.engine_static_conf), minus the guard's switches."""
    from jobs.engines.process import EngineKey, engine_static_conf

    scratch = workdir / "connect"
    for sub in ("tmp", "spark-local"):
        (scratch / sub).mkdir(parents=True, exist_ok=True)
    conf = engine_static_conf(key=EngineKey(team="connect"), scratch=scratch, python=os.environ["PYSPARK_PYTHON"])
    for key in (*GUARD_KEYS, "spark.app.name", "spark.pyspark.python"):
        conf.pop(key, None)
    conf["spark.ui.killEnabled"] = "false"
    return conf


def start_connect(workdir: Path, master: str, source_db: str) -> tuple[int, subprocess.Popen]:
    import pyspark

    port = free_port()
    submit = Path(pyspark.__file__).parent / "bin" / "spark-submit"
    cmd = [str(submit), "--class", "org.apache.spark.sql.connect.service.SparkConnectServer",
           "--name", "bench-spark-connect", "--master", master, "--jars", PG_JAR,
           "--conf", f"spark.connect.grpc.binding.port={port}",
           "--conf", "spark.connect.grpc.binding.address=127.0.0.1"]
    for key, value in connect_conf(workdir).items():
        if key != "spark.jars":
            cmd += ["--conf", f"{key}={value}"]
    # The same DSv2 JDBCTableCatalog the platform registers for catalog `pg` (aggregate push-down included), for
    # the second JDBC baseline; the first one reads the table through `spark.read.jdbc` (DSv1, no push-down).
    catalog = "spark.sql.catalog.pg"
    cmd += ["--conf", f"{catalog}=org.apache.spark.sql.execution.datasources.v2.jdbc.JDBCTableCatalog",
            "--conf", f"{catalog}.url=jdbc:postgresql://127.0.0.1:5432/{source_db}",
            "--conf", f"{catalog}.user=postgres", "--conf", f"{catalog}.driver=org.postgresql.Driver"]
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "LAKEPORT_SECRET_KEYS")}
    env["SPARK_LOCAL_IP"] = "127.0.0.1"
    proc = subprocess.Popen(cmd, env=env, stdout=open(workdir / "connect.log", "ab"),  # noqa: SIM115
                            stderr=subprocess.STDOUT, start_new_session=True, cwd=workdir)
    wait_for_port(port, timeout=300, proc=proc)
    return port, proc


def timed_connect(spark: Any, sql: str, expect: list[list[Any]]) -> Callable[[], float]:
    def run() -> float:
        start = time.perf_counter()
        rows = spark.sql(sql).collect()
        elapsed = time.perf_counter() - start
        got = [[v if isinstance(v, (int, str)) or v is None else str(v) for v in r] for r in rows]
        if got != expect:
            raise RuntimeError(f"Connect {sql!r} returned {got[:3]}…, expected {expect[:3]}…")
        return elapsed
    return run


# ---- output ------------------------------------------------------------------------------------------------------
def print_pct_row(name: str, result: SideBySide, p: float, unit: str = "ms", scale: float = 1000.0) -> None:
    c, b = percentile(result.contender, p) * scale, percentile(result.baseline, p) * scale
    print(f"{name}, {c:.2f}{unit}, {b:.2f}{unit}, {c / b:.2f}x, {result.rounds}, {result.spread * 100:.0f}%")


def describe(label: str, result: SideBySide) -> None:
    def q(values: list[float]) -> str:
        return "/".join(f"{percentile(values, p) * 1000:.0f}" for p in (10, 50, 90))
    ratios = result.ratios
    print(f"  {label}: contender p10/p50/p90 {q(result.contender)} ms; baseline {q(result.baseline)} ms; "
          f"per-round ratio p10/p50/p90 {percentile(ratios, 10):.2f}/{percentile(ratios, 50):.2f}/"
          f"{percentile(ratios, 90):.2f}")


# ---- memory ----------------------------------------------------------------------------------------------------
def engine_memory(worker: subprocess.Popen) -> dict[str, float]:
    pids = engine_pids(worker.pid)
    if len(pids) != 1:
        raise RuntimeError(f"expected one team engine below the worker, found {pids}")
    return tree_rss(pids[0])


def engine_loaded(worker: subprocess.Popen) -> list[str]:
    """Big optional packages mapped into the engine's Python (pandas would mean a polluted environment)."""
    pids = engine_pids(worker.pid)
    try:
        maps = Path(f"/proc/{pids[0]}/maps").read_text()
    except (OSError, IndexError):
        return []
    return [p for p in ("pandas", "numpy", "pyarrow", "grpc", "deltalake") if f"site-packages/{p}" in maps]


def fmt_mem(m: dict[str, float]) -> str:
    return (f"{m['total']:.0f} MiB (engine Python {m['python']:.0f} + JVM {m['jvm']:.0f}"
            + (f" + other {m['other']:.0f}" if m.get("other") else "") + ")")


def memory_variants(scratch_root: str) -> list[tuple[str, ...]]:
    """(label, LAKEPORT_SPARK_STATIC_CONF[, extra engine env]) — an extra env needs bench/_profiled_worker.py."""
    tmp = f"-Djava.io.tmpdir={scratch_root}/bench/tmp"  # what the platform's default extraJavaOptions holds
    serial = f"-XX:+UseSerialGC -Xms32m {tmp}"
    lean = "-XX:+UseSerialGC -Xms32m -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=20 -XX:TieredStopAtLevel=1 " \
           f"-XX:ReservedCodeCacheSize=32m -Xss512k {tmp}"
    nmt = "-XX:NativeMemoryTracking=summary"
    trim = "-XX:TrimNativeHeapInterval=5000"
    serial15 = f"-XX:+UseSerialGC -Xms32m -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=20 {trim}"
    shen_idle = ("-XX:+UnlockExperimentalVMOptions -XX:ShenandoahGuaranteedGCInterval=5000 "
                 "-XX:ShenandoahUncommitDelay=5000")
    return [
        ("platform default (as shipped: see jobs/engines/process.py)", ""),
        ("platform default + NMT (breakdown below; NMT adds a few MiB)",
         f"spark.driver.extraJavaOptions={nmt} {tmp}"),
        ("driver.memory=512m", "spark.driver.memory=512m"),
        ("512m + SerialGC", f"spark.driver.memory=512m,spark.driver.extraJavaOptions=-XX:+UseSerialGC {tmp}"),
        ("512m + SerialGC + Xms32m", f"spark.driver.memory=512m,spark.driver.extraJavaOptions={serial}"),
        ("512m + SerialGC + Xms32m + NMT", f"spark.driver.memory=512m,spark.driver.extraJavaOptions={nmt} {serial}"),
        ("512m + SerialGC + Xms32m + Spark UI off",
         f"spark.driver.memory=512m,spark.ui.enabled=false,spark.driver.extraJavaOptions={serial}"),
        ("512m + G1 + Xms32m + periodic GC 5s",
         f"spark.driver.memory=512m,spark.driver.extraJavaOptions=-Xms32m -XX:G1PeriodicGCInterval=5000 {tmp}"),
        ("512m + SerialGC + Xms32m + C1 only + small code cache + Xss512k",
         "spark.driver.memory=512m,spark.driver.extraJavaOptions=-XX:+UseSerialGC -Xms32m -XX:TieredStopAtLevel=1 "
         f"-XX:ReservedCodeCacheSize=48m -Xss512k {tmp}"),
        # (below 450m Spark refuses to start: "System memory … must be at least 471859200")
        ("512m + SerialGC + Xms32m + heap free ratio 10-20%",
         f"spark.driver.memory=512m,spark.driver.extraJavaOptions=-XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=20 "
         f"{serial}"),
        ("512m + SerialGC + Xms32m + heap free ratio 10-20% + C1 only + code cache 32m + Xss512k",
         f"spark.driver.memory=512m,spark.driver.extraJavaOptions={lean}"),
        ("same + Spark UI off", f"spark.driver.memory=512m,spark.ui.enabled=false,spark.driver.extraJavaOptions={lean}"),
        ("512m + SerialGC + Xms32m + heap free ratio 10-20% + MALLOC_ARENA_MAX=2 in the engine env (not passable "
         "today: the allow-list drops it)",
         f"spark.driver.memory=512m,spark.driver.extraJavaOptions=-XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=20 "
         f"{serial}", "MALLOC_ARENA_MAX=2"),
        ("same + C1 only + code cache 32m + Xss512k + MALLOC_ARENA_MAX=2",
         f"spark.driver.memory=512m,spark.driver.extraJavaOptions={lean}", "MALLOC_ARENA_MAX=2"),
        ("#10 + -XX:TrimNativeHeapInterval=5000: glibc gives freed native memory back (the platform default since 2026-11-23)",
         f"spark.driver.extraJavaOptions=-XX:+UseSerialGC -Xms32m -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=20 "
         f"-XX:TrimNativeHeapInterval=5000 {tmp}"),
        ("#15 + code cache 48m + Xss512k (C2 kept)",
         f"spark.driver.extraJavaOptions=-XX:+UseSerialGC -Xms32m -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=20 "
         f"-XX:TrimNativeHeapInterval=5000 -XX:ReservedCodeCacheSize=48m -Xss512k {tmp}"),
        ("#15 + C1 only + code cache 32m + Xss512k",
         f"spark.driver.extraJavaOptions={lean} -XX:TrimNativeHeapInterval=5000"),
        ("#15 + Spark UI off", "spark.ui.enabled=false,spark.driver.extraJavaOptions=-XX:+UseSerialGC -Xms32m "
         f"-XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=20 -XX:TrimNativeHeapInterval=5000 {tmp}"),
        # fourth pass (2026-11-24): a heap that shrinks to the live set when idle, metaspace's reclaim policy
        ("Shenandoah, compact heuristics, Xms32m, trim 5s",
         f"spark.driver.extraJavaOptions=-XX:+UseShenandoahGC -XX:ShenandoahGCHeuristics=compact -Xms32m {trim} {tmp}"),
        ("Shenandoah (adaptive), Xms32m, GC every 5s when idle, uncommit after 5s, trim 5s",
         f"spark.driver.extraJavaOptions=-XX:+UseShenandoahGC -Xms32m {shen_idle} {trim} {tmp}"),
        ("#15 + young generation capped at 16m (-XX:MaxNewSize=16m)",
         f"spark.driver.extraJavaOptions={serial15} -XX:MaxNewSize=16m {tmp}"),
        ("#15 + -XX:MetaspaceReclaimPolicy=aggressive",
         f"spark.driver.extraJavaOptions={serial15} -XX:MetaspaceReclaimPolicy=aggressive {tmp}"),
        ("#20 + -XX:MetaspaceReclaimPolicy=aggressive",
         f"spark.driver.extraJavaOptions=-XX:+UseShenandoahGC -Xms32m {shen_idle} {trim} "
         f"-XX:MetaspaceReclaimPolicy=aggressive {tmp}"),
        ("#15 + young generation capped at 8m (-XX:MaxNewSize=8m) + MetaspaceReclaimPolicy=aggressive",
         f"spark.driver.extraJavaOptions={serial15} -XX:MaxNewSize=8m -XX:MetaspaceReclaimPolicy=aggressive {tmp}"),
        ("#20 + NMT", f"spark.driver.extraJavaOptions={nmt} -XX:+UseShenandoahGC -Xms32m {shen_idle} {trim} {tmp}"),
        ("#15 + NMT", f"spark.driver.extraJavaOptions={nmt} {serial15} {tmp}"),
        ("#15 + young generation capped at 8m (-XX:MaxNewSize=8m)",
         f"spark.driver.extraJavaOptions={serial15} -XX:MaxNewSize=8m {tmp}"),
        ("#21 + heap free ratio 5-10%",
         f"spark.driver.extraJavaOptions={serial15} -XX:MaxNewSize=16m -XX:MinHeapFreeRatio=5 "
         f"-XX:MaxHeapFreeRatio=10 {tmp}"),
        ("#21 + NMT", f"spark.driver.extraJavaOptions={nmt} {serial15} -XX:MaxNewSize=16m {tmp}"),
        ("#15 + map-output dispatcher threads 1 (Spark: 8 in each of two pools; remote executors' requests only)",
         "spark.shuffle.mapOutput.dispatcher.numThreads=1"),
        ("#30 + young generation a quarter of the heap (-XX:NewRatio=3; default 2)",
         f"spark.shuffle.mapOutput.dispatcher.numThreads=1,spark.driver.extraJavaOptions={serial15} -XX:NewRatio=3 "
         f"{tmp}"),
        ("#30 + young generation a fifth of the heap (-XX:NewRatio=4)",
         f"spark.shuffle.mapOutput.dispatcher.numThreads=1,spark.driver.extraJavaOptions={serial15} -XX:NewRatio=4 "
         f"{tmp}"),
    ]


def native_memory(worker: subprocess.Popen) -> str:
    """`jcmd VM.native_memory summary` of the engine's JVM (run as the JVM's user): committed MiB by area."""
    import re

    jvms = [p for p in descendants(engine_pids(worker.pid)[0]) if "java" in Path(f"/proc/{p}/cmdline").read_bytes()
            .split(b"\0")[0].decode(errors="replace")]
    if not jvms:
        return "no JVM"
    pid = jvms[0]
    uid = int(re.search(r"^Uid:\s+(\d+)", Path(f"/proc/{pid}/status").read_text(), re.M).group(1))
    jcmd = str(Path(os.path.realpath("/usr/bin/java")).parent / "jcmd")
    cmd = [jcmd, str(pid), "VM.native_memory", "summary", "scale=MB"]
    if uid != os.geteuid():
        import pwd

        cmd = ["runuser", "-u", pwd.getpwuid(uid).pw_name, "--", *cmd]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout
    parts = []
    for name, committed in re.findall(r"^-\s+(.+?) \(reserved=\d+MB, committed=(\d+)MB\)", out, re.M):
        if int(committed) >= 2:
            parts.append(f"{name} {committed}")
    total = re.search(r"Total: reserved=\d+MB, committed=(\d+)MB", out)
    return (f"NMT committed MiB: total {total.group(1)}; " if total else "NMT: ") + ", ".join(parts)


# ---- profile -----------------------------------------------------------------------------------------------------
def read_jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def profile_report(windows: list[tuple[float, float]], worker_events: list[dict[str, Any]],
                   engine_events: list[dict[str, Any]], label: str) -> None:
    """Per-request timeline (median ms over requests) from the client, worker and engine timestamps."""
    segments: dict[str, list[float]] = defaultdict(list)
    spans: dict[str, list[float]] = defaultdict(list)
    for t0, t1 in windows:
        w = [e for e in worker_events if t0 <= e["t0"] <= t1]
        prerun = next((e for e in w if e["name"].startswith("worker: task_prerun jobs.sql_interactive")), None)
        postrun = next((e for e in w if e["name"].startswith("worker: task_postrun jobs.sql_interactive")), None)
        ie = next((e for e in w if e["name"] == "worker: interactive_execute"), None)
        sent = next((e for e in w if e["name"] == "worker: engine.request (send)"), None)
        if not (prerun and postrun and ie and sent):
            continue
        rid = sent["rid"]
        got = next((e for e in w if e["name"] == "worker: result received" and e["rid"] == rid), None)
        ev = [e for e in engine_events if e["rid"] == rid]
        recv = next((e for e in ev if e["name"] == "recv:run"), None)
        req = next((e for e in ev if e["name"] == "engine._run_request"), None)
        result_send = next((e for e in ev if e["name"] == "send:result"), None)
        if not (got and recv and req and result_send):
            continue
        timeline = [
            ("client → worker task_prerun (HTTP, gunicorn, DRF, auth, sql_preview checks, send_task, Redis, "
             "worker pickup)", t0, prerun["t0"]),
            ("task_prerun → interactive_execute", prerun["t0"], ie["t0"]),
            ("interactive_execute → request sent (Team get, engine_key, lease)", ie["t0"], sent["t1"]),
            ("channel platform → engine (recv:run)", sent["t1"], recv["t0"]),
            ("engine: recv → request thread running", recv["t0"], req["t0"]),
            ("engine: _run_request (newSession, ScriptRunner, run, reply)", req["t0"], result_send["t1"]),
            ("engine: after reply sent → thread end", result_send["t1"], req["t1"]),
            ("channel engine → worker (result received)", result_send["t1"], got["t0"]),
            ("result received → task_postrun (result stored in Redis)", got["t0"], postrun["t0"]),
            ("task_postrun → client has the response (web polls every 5 ms, JSON, HTTP)", postrun["t0"], t1),
        ]
        for name, a, b in timeline:
            segments[name].append((b - a) * 1000)
        segments["total (client)"].append((t1 - t0) * 1000)
        by_name: dict[str, float] = defaultdict(float)
        for e in ev:
            if e["t1"] > e["t0"]:
                by_name[e["name"]] += (e["t1"] - e["t0"]) * 1000
        for e in w:
            if e["t1"] > e["t0"] and e["name"] not in ("worker: interactive_execute",):
                by_name[e["name"]] += (e["t1"] - e["t0"]) * 1000
        for name, ms in by_name.items():
            spans[name].append(ms)
    n = len(segments["total (client)"])
    print(f"\nprofile: {label} ({n} requests; median ms per request)")
    for name, values in segments.items():
        print(f"  {statistics.median(values):8.1f}  {name}")
    print("  engine/worker calls (median ms per request, summed over calls; nested calls overlap):")
    for name, values in sorted(spans.items(), key=lambda kv: -statistics.median(kv[1])):
        print(f"  {statistics.median(values):8.1f}  {name}  (in {len(values)}/{n})")


def compare(args: argparse.Namespace, api: Api, env: dict[str, Any], workdir: Path, worker: subprocess.Popen,
            contender: dict[str, Callable[[], float]], contender_rows: dict[str, Any], mem_fresh: dict[str, float],
            procs: list[subprocess.Popen]) -> None:
    """The side-by-side rounds against a Spark Connect server, the run rounds, and the idle memory."""
    from pyspark.sql import SparkSession

    port, connect = start_connect(workdir, args.master, env["source_db"])
    procs.append(connect)
    spark = SparkSession.builder.remote(f"sc://127.0.0.1:{port}").getOrCreate()
    url = f"jdbc:postgresql://127.0.0.1:5432/{env['source_db']}"
    spark.read.jdbc(url, "public.orders", properties={"user": "postgres", "driver": "org.postgresql.Driver"}) \
        .createOrReplaceTempView("orders")

    jdbc_connect = JDBC_SQL.format(table="orders")
    baseline = {"select1": timed_connect(spark, SELECT1, contender_rows["select1"]),
                "jdbc": timed_connect(spark, jdbc_connect, contender_rows["jdbc"]),
                "jdbc catalog": timed_connect(spark, JDBC_SQL.format(table="pg.public.orders"), contender_rows["jdbc"])}
    contender = {**contender, "jdbc catalog": contender["jdbc"]}
    for _ in range(args.warmup):  # JIT, the JDBC driver, the guard's and resolver's first calls: paid by neither
        for k in contender:
            contender[k]()
            baseline[k]()
    results = {k: interleaved(contender[k], baseline[k], rounds=args.rounds) for k in contender}

    runs = waited = None
    if args.run_rounds:
        status, job = api.call("POST", "/jobs/", {"name": "bench select 1", "sql": SELECT1})
        if status != 201:
            raise RuntimeError(f"job create answered {status}: {job}")
        submit = timed_run(api, job["id"], poll=0.02)
        submit_wait = timed_run(api, job["id"], poll=0.02, wait=True)
        for _ in range(max(2, args.warmup // 4)):
            submit()
            submit_wait()
        runs = interleaved(submit, baseline["select1"], rounds=args.run_rounds)
        waited = interleaved(submit_wait, baseline["select1"], rounds=args.run_rounds)

    time.sleep(args.idle_seconds)
    mem_idle = engine_memory(worker)
    connect_pids = [connect.pid, *descendants(connect.pid)]
    mem_connect = sum(rss_mib(p) for p in connect_pids)

    print()
    print_header()
    print_row("select1 preview p50 (API → worker → team engine vs Spark Connect)", results["select1"])
    print_pct_row("select1 preview p90", results["select1"], 90)
    print_row("jdbc preview p50 (API → worker → team engine vs Spark Connect)", results["jdbc"])
    print_pct_row("jdbc preview p90", results["jdbc"], 90)
    print_row("jdbc preview p50 vs Connect with the same DSv2 JDBC catalog (push-down on both sides)",
              results["jdbc catalog"])
    print_pct_row("jdbc preview p90 vs Connect DSv2 catalog", results["jdbc catalog"], 90)
    if runs is not None:
        print_row("select1 run submit → SUCCEEDED in API p50 (vs Connect SELECT 1)", runs)
        print_pct_row("select1 run submit → SUCCEEDED in API p90", runs, 90)
    if waited is not None:
        print_row("select1 run POST ?wait=30 + GET result → first row p50 (vs Connect SELECT 1)", waited)
        print_pct_row("select1 run POST ?wait=30 + GET result → first row p90", waited, 90)
    print()
    describe("select1 preview", results["select1"])
    describe("jdbc preview", results["jdbc"])
    describe("jdbc preview vs Connect DSv2 catalog", results["jdbc catalog"])
    if runs is not None:
        describe("run → SUCCEEDED", runs)
    if waited is not None:
        describe("run ?wait= + result → first row", waited)
    print(f"\nidle team engine RSS at {args.master}: right after its start + 1 query "
          f"{fmt_mem(mem_fresh)}; after the rounds + {args.idle_seconds:.0f}s idle {fmt_mem(mem_idle)}; "
          f"Spark Connect server JVM {mem_connect:.0f} MiB; native packages mapped in the engine's Python: "
          f"{', '.join(engine_loaded(worker)) or 'none'}", flush=True)
    spark.stop()
    stop_group(connect)


def start_profiled_worker(workdir: Path, *, env: dict[str, str]) -> subprocess.Popen:
    """bench/_profiled_worker.py: the platform's worker with timers, engines started as _profiled_engine.py."""
    return subprocess.Popen(
        [sys.executable, str(BENCH / "_profiled_worker.py"), "worker", "--loglevel=WARNING", "--pool=threads",
         "--concurrency=2", "--hostname", "benchprof@%h", "--without-mingle", "--without-gossip", "-Q", ",".join(ALL_QUEUES)],
        cwd=BENCH.parent, env={**os.environ, **env}, stdout=open(workdir / "worker-profiled.log", "ab"),  # noqa: SIM115
        stderr=subprocess.STDOUT, start_new_session=True)


# ---- main ----------------------------------------------------------------------------------------------------------
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30, help="side-by-side rounds per query")
    parser.add_argument("--warmup", type=int, default=20, help="untimed rounds per query before timing")
    parser.add_argument("--run-rounds", type=int, default=10, help="rounds of run → SUCCEEDED (0: skip)")
    parser.add_argument("--master", default="local[1]")
    parser.add_argument("--static-conf", default="", help="LAKEPORT_SPARK_STATIC_CONF of the engines")
    parser.add_argument("--idle-seconds", type=float, default=15.0, help="idle time before reading RSS")
    parser.add_argument("--memory", action="store_true", help="also measure idle RSS under other static confs")
    parser.add_argument("--variants", default="", help="with --memory: only these variant numbers (1-based, a,b,c)")
    parser.add_argument("--skip-latency", action="store_true", help="no Connect server, no side-by-side rounds")
    parser.add_argument("--profile", type=int, default=0, help="previews to time with the profiled worker")
    args = parser.parse_args()
    ensure_connect_client()

    redis.Redis.from_url(BROKER).flushdb()
    workdir = Path(tempfile.mkdtemp(prefix="lp-bench-roundtrip-"))
    scratch_root = engine_scratch_root()
    procs: list[subprocess.Popen] = []
    print(f"logs: {workdir}; engines: {scratch_root}; master {args.master}; "
          f"static conf {args.static_conf!r}", flush=True)
    with scratch_platform(env={
        "CELERY_BROKER_URL": BROKER, "LAKEPORT_ENGINE_SCRATCH_DIR": scratch_root, "SPARK_MASTER": args.master,
        "LAKEPORT_SPARK_STATIC_CONF": args.static_conf, "DJANGO_DEBUG": "false", "LOG_LEVEL": "WARNING",
    }) as env:
        team = env["team"]
        try:
            base, web = start_gunicorn(workdir, workers=1, threads=4)
            procs.append(web)
            api = Api(base, api_token(team), team.name)
            worker = start_worker(workdir, concurrency=2)
            procs.append(worker)
            t = time.perf_counter()
            first = api.preview(SELECT1)
            print(f"first preview (team engine start): {time.perf_counter() - t:.1f}s", flush=True)
            mem_fresh = engine_memory(worker)
            jdbc_platform = JDBC_SQL.format(table="pg.public.orders")
            expect_jdbc = api.preview(jdbc_platform)
            contender = {"select1": timed_preview(api, SELECT1, first),
                         "jdbc": timed_preview(api, jdbc_platform, expect_jdbc)}
            if not args.skip_latency:
                compare(args, api, env, workdir, worker, contender, {"select1": first, "jdbc": expect_jdbc},
                        mem_fresh, procs)

            if args.memory:
                print("\nidle team engine RSS by engine static conf (3 previews of each query, then idle "
                      f"{args.idle_seconds:.0f}s); preview p50 of 10 more each")
                chosen = {int(v) for v in args.variants.split(",") if v.strip()}
                for number, (label, conf, *extra) in enumerate(memory_variants(scratch_root), 1):
                    if chosen and number not in chosen:
                        continue
                    stop_group(worker)
                    if extra:  # the engines' environment is the platform's allow-list: add to it from the bench
                        worker = start_profiled_worker(workdir, env={
                            "LAKEPORT_SPARK_STATIC_CONF": conf, "LAKEPORT_BENCH_ENGINE_ENV": extra[0],
                            "LAKEPORT_BENCH_PROFILE": str(workdir / f"variant{number}-profile.jsonl")})
                    else:
                        worker = start_worker(workdir, concurrency=2, env={"LAKEPORT_SPARK_STATIC_CONF": conf})
                    procs.append(worker)
                    t = time.perf_counter()
                    api.preview(SELECT1)
                    start_s = time.perf_counter() - t
                    for _ in range(3):
                        contender["select1"]()
                        contender["jdbc"]()
                    fresh = engine_memory(worker)
                    p1 = statistics.median(contender["select1"]() for _ in range(10)) * 1000
                    pj = statistics.median(contender["jdbc"]() for _ in range(10)) * 1000
                    time.sleep(args.idle_seconds)
                    idle = engine_memory(worker)
                    print(f"  {number}. {label}: idle {fmt_mem(idle)} [after warm-up {fresh['total']:.0f}]; start "
                          f"{start_s:.1f}s; select1 p50 {p1:.0f} ms, jdbc p50 {pj:.0f} ms; conf {conf!r}",
                          flush=True)
                    if "NativeMemoryTracking" in conf:
                        print(f"    {native_memory(worker)}", flush=True)

            if args.profile:
                stop_group(worker)
                wprofile = workdir / "worker-profile.jsonl"
                worker = start_profiled_worker(workdir, env={"LAKEPORT_BENCH_PROFILE": str(wprofile),
                                                             "LAKEPORT_SPARK_STATIC_CONF": args.static_conf})
                procs.append(worker)
                api.preview(SELECT1)
                for _ in range(3):
                    contender["select1"]()
                    contender["jdbc"]()
                from jobs.services.interactive import _ask_engine

                groups: dict[str, list[tuple[float, float]]] = {"select1 over HTTP": [], "jdbc over HTTP": [],
                                                                "select1 via _ask_engine in-process (no HTTP)": []}
                for _ in range(args.profile):
                    for label, call in (("select1 over HTTP", contender["select1"]),
                                        ("jdbc over HTTP", contender["jdbc"]),
                                        ("select1 via _ask_engine in-process (no HTTP)",
                                         lambda: _ask_engine(team=team, mode="preview", sql=SELECT1, limit=1000))):
                        t0 = time.time()
                        call()
                        groups[label].append((t0, time.time()))
                        time.sleep(0.05)  # keep requests apart so the timestamps separate cleanly
                time.sleep(0.5)
                engine_profile = Path(scratch_root) / team.name / "profile.jsonl"
                wev, eev = read_jsonl(wprofile), read_jsonl(engine_profile)
                for label, windows in groups.items():
                    profile_report(windows, wev, eev, label)
        finally:
            for proc in reversed(procs):
                stop_group(proc)


if __name__ == "__main__":
    main()
