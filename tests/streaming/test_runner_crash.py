"""`runner.py --streaming` as a real process: JSON-line batch events, `kill -9` at random moments while events flow,
restarts from the checkpoint, a graceful SIGTERM stop, and at the end a sink equal to the same SQL run as a batch
over every event (no row lost, none duplicated)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

import psycopg
import pytest

from tests.conftest import MariaDatabase, PgDatabase
from tests.streaming import support
from tests.streaming.support import (
    EVENT_DDL,
    FileDrops,
    batch_rows,
    delta_rows,
    event,
)
from tests.support.paths import REPO
from tests.support.servers import wait_until

pytestmark = pytest.mark.spark
stream_spark = support.stream_spark  # this module's SparkSession (streaming needs no Hive Metastore)

RUNNER = REPO / "lakeport_engine" / "runner.py"
KILLS = 5
TOTALS = "SELECT room, count(*), sum(v) FROM {src} GROUP BY room"
# a few state partitions (fixed by the checkpoint at the first start): 200 would dominate every batch on 2 cores
SETUP = "SET spark.sql.shuffle.partitions = 2;\n"


class Runner:
    """One `runner.py --streaming` process; its stdout events are collected by a reader thread."""

    def __init__(self, args: list[str], env: dict[str, str], log: IO[bytes]) -> None:
        self.process = subprocess.Popen([sys.executable, str(RUNNER), "--streaming", *args], stdout=subprocess.PIPE,
                                        stderr=log, env=env, start_new_session=True, cwd=REPO)
        self.events: list[dict[str, Any]] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            try:
                self.events.append(json.loads(line))
            except ValueError:
                continue  # a stray line from a library

    def named(self, name: str) -> list[dict[str, Any]]:
        """The events called `name` so far."""
        return [e for e in self.events if e.get("event") == name]

    def wait_for(self, name: str, *, count: int = 1) -> list[dict[str, Any]]:
        """The events called `name` once `count` of them arrived or the runner exited."""
        wait_until(lambda: len(self.named(name)) >= count or self.process.poll() is not None, interval=0.1,
                   what=f"{count} '{name}' event(s) from the runner")
        time.sleep(0.2)  # let the reader catch the process's last lines
        return self.named(name)

    def kill9(self, log: Path) -> None:
        # a runner that ended by itself before the kill is a failure to report, not a process to look up
        code = self.process.poll()
        assert code is None, (f"runner exited by itself with {code} before its kill: last events {self.events[-3:]},"
                              f" log tail: {log.read_text(errors='replace')[-3000:]}")
        os.killpg(self.process.pid, signal.SIGKILL)  # the Python driver and its JVM, as a crash takes both
        self.process.wait()

    def finish(self) -> int:
        code = self.process.wait(timeout=600)
        self._reader.join(timeout=10)
        return code


class Producer(threading.Thread):
    """Drops a file of 20 events every second until stopped."""

    def __init__(self, drops: FileDrops) -> None:
        super().__init__(daemon=True)
        self.drops = drops
        self.stopped = threading.Event()
        self.rng = random.Random(14)

    def run(self) -> None:
        second = 0
        while not self.stopped.is_set():
            batch = [event(self.rng.choice("abcde"), second + k, self.rng.randint(1, 9)) for k in range(20)]
            self.drops.drop(batch)
            second += 20
            time.sleep(1.0)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DJANGO_SETTINGS_MODULE")}
    return {**base, "PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable,
            "SPARK_LOCAL_IP": "127.0.0.1"}


@pytest.fixture
def landing(tmp_path: Path) -> FileDrops:
    return FileDrops(tmp_path / "landing" / "web" / "clicks")


def catalogs(tmp_path: Path, landing: FileDrops, extra: list[dict[str, Any]]) -> Path:
    files = {"catalog_name": "landing", "catalog_type": "files", "configuration": {
        "root": str(tmp_path / "landing"), "max-files-per-batch": 20,
        "tables": {"web.clicks": {"format": "json", "event-time": "ts", "columns": [
            {"name": "room", "type": "string"}, {"name": "ts", "type": "timestamp"}, {"name": "v", "type": "int"}]}}}}
    path = tmp_path / "catalogs.json"
    path.write_text(json.dumps([files, *extra]), encoding="utf-8")
    return path


def crash_loop(tmp_path: Path, store: Path, script: str, env: dict[str, str], landing: FileDrops, *,
               stateful: bool = True) -> None:
    """While a producer drops events: `kill -9` the runner KILLS times at random moments and restart it from its
    checkpoint, then stop it with SIGTERM and drain what is left with `--available-now`."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "job.sql").write_text(script, encoding="utf-8")
    args = ["--store", f"file:{store}", "--team", "acme", "--master", "local[2]", "--checkpoint",
            str(tmp_path / "ckpt"), str(tmp_path / "job.sql")]
    log = open(tmp_path / "runner.log", "ab")  # noqa: SIM115 - closed below
    rng = random.Random(14)
    producer = Producer(landing)
    producer.start()
    try:
        kills = 0
        while kills < KILLS:
            runner = Runner(args, env, log)
            started = runner.wait_for("query_started")
            assert started, f"runner did not start: {runner.events} (see {tmp_path / 'runner.log'})"
            if kills % 2:
                runner.wait_for("batch", count=1)  # some kills land right after a batch committed
            time.sleep(rng.uniform(0.0, 2.5))  # …others mid-batch, in the sink write or before the checkpoint
            runner.kill9(tmp_path / "runner.log")
            kills += 1
        runner = Runner(args, env, log)
        batches = runner.wait_for("batch", count=2)
        producer.stopped.set()
        producer.join()
        runner.process.send_signal(signal.SIGTERM)
        assert runner.finish() == 0
        stopped = runner.wait_for("stopped")
        assert stopped and stopped[-1]["signal"] is True
        batch = batches[0]
        assert {"batch_id", "input_rows", "input_rows_per_second", "processed_rows_per_second", "output_rows",
                "duration_ms", "watermark", "state_rows", "state_memory_bytes", "sources"} <= batch.keys()
        assert (batch["state_rows"] is not None) is stateful and batch["sources"][0]["end_offset"] is not None
        # drain what is left, then stop by itself
        final = Runner([*args[:-1], "--available-now", args[-1]], env, log)
        assert final.finish() == 0, final.events
        assert final.wait_for("stopped")
    finally:
        producer.stopped.set()
        log.close()


def test_kill_9_at_random_moments_loses_and_duplicates_nothing(tmp_path: Path, env: dict[str, str],
                                                               landing: FileDrops, stream_spark: Any) -> None:
    # the stateful merge sink; PostgreSQL's replay skip is covered in test_sinks.py
    lake = tmp_path / "lake"
    store = catalogs(tmp_path, landing, [{"catalog_name": "lake", "catalog_type": "delta",
                                          "configuration": {"warehouse": str(lake)}}])
    script = (SETUP + "CREATE DATABASE IF NOT EXISTS lake.web;\n"
              "CREATE TABLE IF NOT EXISTS lake.web.room_totals (room STRING, clicks BIGINT, total BIGINT);\n"
              "INSERT INTO lake.web.room_totals " + TOTALS.format(src="STREAM(landing.web.clicks)") + " EMIT STREAM")
    crash_loop(tmp_path, store, script, env, landing)
    expected = batch_rows(stream_spark, EVENT_DDL, landing.events, TOTALS.format(src="events"))
    assert sum(r[1] for r in expected) == len(landing.events)
    assert delta_rows(str(lake / "web" / "room_totals")) == expected


@pytest.mark.timeout(1800)  # five JVM restarts; on a loaded 2-core machine a loop takes several minutes
def test_kill_9_leaves_postgresql_appends_exactly_once(tmp_path: Path, env: dict[str, str], landing: FileDrops,
                                                       stream_spark: Any, pg_source: PgDatabase) -> None:
    # every event appended: a duplicate would show as an extra row, a lost one as a missing row
    with psycopg.connect(pg_source.dsn, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA web")
        conn.execute("CREATE TABLE web.clicks_log (room text NOT NULL, ts timestamp NOT NULL, v int NOT NULL)")
    pg = {"catalog_name": "pg", "catalog_type": "jdbc", "configuration": {
        "type": "postgresql", "base-url": f"jdbc:postgresql://{pg_source.host}:{pg_source.port}/",
        "default-database": pg_source.name, "username": pg_source.user, "password": "unused-local-trust"}}
    store = catalogs(tmp_path, landing, [pg])
    crash_loop(tmp_path, store, "INSERT INTO pg.web.clicks_log SELECT room, ts, v FROM STREAM(landing.web.clicks)",
               env, landing, stateful=False)
    events = _all_events(landing)
    expected = batch_rows(stream_spark, EVENT_DDL, events, "SELECT room, unix_seconds(ts), v FROM events")
    with psycopg.connect(pg_source.dsn) as conn:
        logged = conn.execute("SELECT room, extract(epoch FROM ts)::bigint, v FROM web.clicks_log").fetchall()
    assert len(logged) == len(events)
    assert sorted(logged, key=repr) == expected


@pytest.mark.timeout(1800)
def test_kill_9_leaves_mariadb_upserts_exactly_once(tmp_path: Path, env: dict[str, str], landing: FileDrops,
                                                    stream_spark: Any, mariadb_source: MariaDatabase) -> None:
    # the stateful totals upserted on the primary key (state and sink must agree after every replay)
    with mariadb_source.connect() as conn, conn.cursor() as cur:
        cur.execute("CREATE TABLE room_totals (room VARCHAR(20) PRIMARY KEY, clicks BIGINT NOT NULL, "
                    "total BIGINT NOT NULL)")
    maria = {"catalog_name": "crm", "catalog_type": "jdbc", "configuration": {
        "type": "mysql", "base-url": f"jdbc:mysql://{mariadb_source.host}:{mariadb_source.port}/",
        "default-database": mariadb_source.name, "username": mariadb_source.user, "password": mariadb_source.password}}
    store = catalogs(tmp_path, landing, [maria])
    crash_loop(tmp_path, store, SETUP + f"INSERT INTO crm.{mariadb_source.name}.room_totals "
               + TOTALS.format(src="STREAM(landing.web.clicks)") + " EMIT STREAM", env, landing)
    events = _all_events(landing)
    expected = batch_rows(stream_spark, EVENT_DDL, events, TOTALS.format(src="events"))
    assert sum(r[1] for r in expected) == len(events)
    with mariadb_source.connect() as conn, conn.cursor() as cur:
        cur.execute("SELECT room, clicks, total FROM room_totals")
        assert sorted(cur.fetchall(), key=repr) == expected


def _all_events(landing: FileDrops) -> list[dict[str, Any]]:
    """Every event in the landing directory's files (the ones a new query reads first)."""
    return [json.loads(line) for path in sorted(landing.root.glob("part-*.json"))
            for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_unknown_stream_and_malformed_records_fail_clearly_and_write_nothing(tmp_path: Path, env: dict[str, str],
                                                                            landing: FileDrops) -> None:
    lake = tmp_path / "lake"
    store = catalogs(tmp_path, landing, [{"catalog_name": "lake", "catalog_type": "delta",
                                          "configuration": {"warehouse": str(lake)}}])
    create = (SETUP + "CREATE DATABASE IF NOT EXISTS lake.web;\n"
              "CREATE TABLE IF NOT EXISTS lake.web.room_totals (room STRING, clicks BIGINT, total BIGINT);\n")
    log = open(tmp_path / "runner.log", "ab")  # noqa: SIM115 - closed below
    try:
        (tmp_path / "unknown.sql").write_text(
            create + "INSERT INTO lake.web.room_totals " + TOTALS.format(src="STREAM(landing.web.nope)"), encoding="utf-8")
        unknown = Runner(["--store", f"file:{store}", "--team", "acme", "--master", "local[1]", "--checkpoint",
                          str(tmp_path / "ckpt-unknown"), str(tmp_path / "unknown.sql")], env, log)
        assert unknown.finish() == 1
        failed = unknown.wait_for("failed")
        assert failed and "web.nope" in failed[-1]["message"] and "Traceback" not in failed[-1]["message"]
        assert not unknown.wait_for("query_started")

        landing.drop([event("a", 1, 2)])
        landing.drop([], raw='{"room": "b", "ts": "2026-01-01T00:00:02", "v": 1}\n{"room": "c", "ts": \n')
        (tmp_path / "bad.sql").write_text(
            create + "INSERT INTO lake.web.room_totals " + TOTALS.format(src="STREAM(landing.web.clicks)")
            + " EMIT STREAM", encoding="utf-8")
        bad = Runner(["--store", f"file:{store}", "--team", "acme", "--master", "local[1]", "--checkpoint",
                      str(tmp_path / "ckpt-bad"), str(tmp_path / "bad.sql")], env, log)
        assert bad.finish() == 1
        failed = bad.wait_for("failed")
        assert failed and "JVM stacktrace" not in failed[-1]["message"]
        assert "malformed" in failed[-1]["message"].lower() or "part-" in failed[-1]["message"]
    finally:
        log.close()
    assert delta_rows(str(lake / "web" / "room_totals")) == []  # the good file of the failed batch is not half-written
