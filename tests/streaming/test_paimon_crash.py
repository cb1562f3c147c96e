"""`runner.py --streaming` from Redis Streams into a Paimon primary-key table, its driver killed with kill -9 while
events flow and restarted from the checkpoint: the table, read by pypaimon, ends with exactly the expected rows.

The table sums per key (merge-engine aggregation), so a batch committed twice would double its keys' sums and a
lost one would lower them: equality with the sums over every event added proves exactly once. The snapshots'
(commit user, commit identifier) pairs are unique as well: no batch id of the query was committed twice.
"""

from __future__ import annotations

import json
import random
import signal
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from lakeport_engine.paimon.catalog import open_catalog
from tests.paimon.conftest import oracle
from tests.streaming.conftest import RedisServer
from tests.streaming.test_runner_crash import SETUP, Runner
from tests.streaming.test_runner_crash import env as env  # noqa: PLC0414 - the runner's environment fixture
from tests.support.servers import wait_until

pytestmark = pytest.mark.spark

KILLS = 2
KEYS = "abcdefg"


class PatientRunner(Runner):
    """The crash test's runner, waiting up to 15 minutes for an event: a guard against a hang, not a time limit (a
    driver start took over 4 minutes at load 40 on the shared 2-core machine)."""

    def wait_for(self, name: str, *, count: int = 1) -> list[dict[str, Any]]:
        wait_until(lambda: len(self.named(name)) >= count or self.process.poll() is not None, interval=0.1,
                   timeout=900, what=f"{count} '{name}' event(s) from the runner")
        time.sleep(0.2)  # let the reader catch the process's last lines
        return self.named(name)


class RedisProducer(threading.Thread):
    """XADDs 10 events every 0.5 s until stopped; remembers every event it added."""

    def __init__(self, redis: RedisServer, key: str) -> None:
        super().__init__(daemon=True)
        self.client = redis.client()
        self.key = key
        self.events: list[dict[str, Any]] = []
        self.stopped = threading.Event()
        self.rng = random.Random(35)

    def run(self) -> None:
        while not self.stopped.is_set():
            batch = [{"k": self.rng.choice(KEYS), "v": self.rng.randint(1, 9)} for _ in range(10)]
            pipe = self.client.pipeline()
            for record in batch:
                pipe.xadd(self.key, {"data": json.dumps(record)})
            pipe.execute()
            self.events += batch
            time.sleep(0.5)


@pytest.mark.timeout(1800)  # four driver starts (two killed) on a loaded 2-core machine
def test_kill_9_leaves_a_paimon_primary_key_table_exactly_once(tmp_path: Path, env: dict[str, str],  # noqa: F811
                                                                redis_server: RedisServer) -> None:
    warehouse = tmp_path / "pai"
    warehouse.mkdir()
    key = "clicks"
    store = tmp_path / "catalogs.json"
    store.write_text(json.dumps([
        {"catalog_name": "bus", "catalog_type": "redis-streams", "configuration": {
            "url": redis_server.url, "password": redis_server.password, "max-records-per-batch": 200,
            "tables": {f"default.{key}": {"columns": [{"name": "k", "type": "string"},
                                                      {"name": "v", "type": "bigint"}]}}}},
        {"catalog_name": "pai", "catalog_type": "paimon", "configuration": {"warehouse": str(warehouse)}},
    ]), encoding="utf-8")
    script = (SETUP + "CREATE DATABASE IF NOT EXISTS pai.web;\n"
              "CREATE TABLE IF NOT EXISTS pai.web.totals (k STRING, n BIGINT, total BIGINT) TBLPROPERTIES ("
              "'primary-key'='k', 'bucket'='2', 'merge-engine'='aggregation', "
              "'fields.n.aggregate-function'='sum', 'fields.total.aggregate-function'='sum');\n"
              f"INSERT INTO pai.web.totals SELECT k, 1, v FROM STREAM(bus.default.{key})")
    (tmp_path / "job.sql").write_text(script, encoding="utf-8")
    args = ["--store", f"file:{store}", "--team", "acme", "--master", "local[2]", "--checkpoint",
            str(tmp_path / "ckpt"), str(tmp_path / "job.sql")]
    log_path = tmp_path / "runner.log"
    rng = random.Random(35)
    producer = RedisProducer(redis_server, key)
    producer.start()
    with open(log_path, "ab") as log:
        try:
            for kill in range(KILLS):
                runner = PatientRunner(args, env, log)
                assert runner.wait_for("query_started"), f"runner did not start: {runner.events} (see {log_path})"
                if kill % 2:
                    runner.wait_for("batch", count=1)  # one kill lands right after a batch committed
                time.sleep(rng.uniform(0.5, 2.5))  # …others mid-batch: in the executors' writes or the commit
                runner.kill9(log_path)
            runner = PatientRunner(args, env, log)
            runner.wait_for("batch", count=1)
            producer.stopped.set()
            producer.join()
            runner.process.send_signal(signal.SIGTERM)
            assert runner.finish() == 0, runner.events[-3:]
            final = PatientRunner([*args[:-1], "--available-now", args[-1]], env, log)  # drain what is left
            assert final.finish() == 0, final.events[-3:]
        finally:
            producer.stopped.set()

    expected: Counter[tuple[Any, ...]] = Counter()
    for k in KEYS:
        values = [e["v"] for e in producer.events if e["k"] == k]
        if values:
            expected[(k, len(values), sum(values))] = 1
    table = open_catalog(str(warehouse)).get_table("web.totals")
    assert oracle(table) == expected, f"see {log_path}"
    snapshots = table.snapshot_manager()
    latest = snapshots.get_latest_snapshot().id
    commits = [(s.commit_user, s.commit_identifier) for s in (snapshots.get_snapshot_by_id(i)
                                                              for i in range(1, latest + 1))]
    assert len(set(commits)) == len(commits) and len({user for user, _ in commits}) == 1
