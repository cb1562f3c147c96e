"""Issue 32's proof of consistent reads: 50 of them while the pipeline moves underneath (seed 001's V11/V21/V31).

A base Delta table `orders` ← `mv1` (filter + projection, REFRESH ON COMMIT) ← `mv2` (an aggregate over `mv1`,
refreshed by hand from the API every moment, as a schedule would). While one thread appends generated rows to
`orders` through runs (each commit queues an ON COMMIT refresh of `mv1`) and another refreshes `mv2` through the
API, the test makes 50 runs joining the three with `{"snapshot": {"consistent": true}}`, on a worker running
several runs at once in the team's one engine. Each consistent read:

- equals a recompute of the whole pipeline from the base table alone, read with delta-rs at the base version its
  lineage records (`count(mv1) = count(orders where amount > 0)`, `sum(mv2.total) = sum(mv1.amount)`, …);
- records in its lineage the versions it read, and those versions' own commits (read with delta-rs) say so:
  `mv2@y` reflects `mv1@x'` which reflects `orders@v`, and `mv1@x` reflects `orders@v`.

Plain reads made between them, without the switch, are shown to break the same invariants at least once — so the
consistent ones passing means something. The cut also has to move: the reads see several base versions.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from deltalake import DeltaTable
from django.db import connection

from catalogs.models import Catalog
from catalogs.secrets import seal_configuration
from jobs.models import JobRun, RunStatus, SqlJob
from lakeport_engine.catalog_types.delta import DeltaConfig
from lakeport_engine.matviews import SOURCES_KEY
from teams.models import Role, Team
from tests.jobs.conftest import running_worker, wait_status
from tests.support.worker import Worker

pytestmark = pytest.mark.django_db(transaction=True)

READS = 50
PLAIN_EVERY = 5  # one plain read after every 5th consistent one
SEED = 32

SETUP = """
CREATE TABLE lake.sales.orders (id BIGINT, amount BIGINT);
INSERT INTO lake.sales.orders VALUES (1, 10), (2, -5), (3, 7);
CREATE MATERIALIZED VIEW lake.sales.mv1 REFRESH ON COMMIT AS
  SELECT id, amount FROM lake.sales.orders WHERE amount > 0;
CREATE MATERIALIZED VIEW lake.sales.mv2 AS SELECT count(*) AS n, sum(amount) AS total FROM lake.sales.mv1
"""

JOIN = """
SELECT b.n AS base_n, b.total AS base_total, b.kept_n AS base_kept_n, b.kept AS base_kept,
       v1.n AS mv1_n, v1.total AS mv1_total, v2.n AS mv2_n, v2.total AS mv2_total
FROM (SELECT count(*) AS n, sum(amount) AS total, count(CASE WHEN amount > 0 THEN 1 END) AS kept_n,
             sum(CASE WHEN amount > 0 THEN amount END) AS kept
      FROM lake.sales.orders) b
CROSS JOIN (SELECT count(*) AS n, sum(amount) AS total FROM lake.sales.mv1) v1
CROSS JOIN lake.sales.mv2 v2
"""


@pytest.fixture(scope="module")
def worker(django_db_setup: Any, django_db_blocker: Any,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[Worker]:
    # four runs at once: an append, mv1's ON COMMIT refresh, mv2's refresh and a read can all be running together
    with running_worker(tmp_path_factory, "consistent-concurrent-worker", beat=False, concurrency=4) as started:
        yield started


def _submit(client: Any, team: Team, sql: str, **body: Any) -> int:
    job = SqlJob.objects.create(team=team, name=f"job-{threading.get_ident()}-{time.monotonic_ns()}", sql=sql)
    response = client.post(f"/api/v1/teams/{team.name}/jobs/{job.id}/runs/", body, format="json")
    assert response.status_code == 201, response.json()
    return int(response.json()["id"])


def _run(client: Any, team: Team, sql: str, **body: Any) -> JobRun:
    done = wait_status(_submit(client, team, sql, **body), RunStatus.SUCCEEDED, RunStatus.FAILED, timeout=600)
    assert done.status == RunStatus.SUCCEEDED, done.error
    return done


def _row(client: Any, run: JobRun) -> dict[str, Any]:
    result = client.get(f"/api/v1/teams/acme/runs/{run.id}/result/").json()
    assert len(result["rows"]) == 1, result
    return dict(zip([c["name"] if isinstance(c, dict) else c for c in result["columns"]], result["rows"][0],
                    strict=True))


def _recompute(orders: Path, version: int) -> dict[str, int | None]:
    """The pipeline's numbers from the base table alone, read with delta-rs at `version` (the oracle)."""
    amounts = [r["amount"] for r in DeltaTable(str(orders), version=version).to_pyarrow_table().to_pylist()]
    kept = [a for a in amounts if a > 0]
    total = sum(kept) if kept else None
    return {"base_n": len(amounts), "base_total": sum(amounts) if amounts else None, "base_kept_n": len(kept),
            "base_kept": total, "mv1_n": len(kept), "mv1_total": total, "mv2_n": len(kept), "mv2_total": total}


def _reflects(table: Path) -> dict[int, dict[str, int]]:
    """Per version of a view, the source versions its commit records (read with delta-rs, not the platform)."""
    return {int(c["version"]): {k: int(v) for k, v in json.loads(str(c[SOURCES_KEY])).items()}
            for c in DeltaTable(str(table)).history() if c.get(SOURCES_KEY)}


def _consistent(row: dict[str, Any]) -> bool:
    """The invariants that hold only when the three tables are read at one cut."""
    return (row["base_kept_n"] == row["mv1_n"] == row["mv2_n"]
            and row["base_kept"] == row["mv1_total"] == row["mv2_total"])


class _Loop(threading.Thread):
    """Call `step` until stopped, counting what it did; an exception stops the loop and is re-raised by `join`."""

    def __init__(self, step: Callable[[], str]) -> None:
        super().__init__(daemon=True)
        self.step, self.stop = step, threading.Event()
        self.error: BaseException | None = None
        self.done: list[str] = []

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                self.done.append(self.step())
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            self.error = exc
        finally:
            connection.close()

    def finish(self) -> None:
        self.stop.set()
        self.join(timeout=900)
        assert not self.is_alive(), "the loop did not stop"
        if self.error is not None:
            raise self.error


def test_fifty_consistent_reads_while_the_pipeline_appends_and_refreshes(
        worker: Worker, team: Team, client_for: Any, tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    (lake / "sales").mkdir(parents=True)
    config = DeltaConfig.model_validate({"warehouse": str(lake), "default-database": "sales"})
    Catalog.objects.create(team=team, catalog_type="delta", catalog_name="lake",
                           configuration=seal_configuration(config))
    reader, appender, refresher = (client_for(Role.DEVELOPER) for _ in range(3))
    _run(reader, team, SETUP)
    orders, mv1, mv2 = (lake / "sales" / name for name in ("orders", "mv1", "mv2"))

    rng = random.Random(SEED)
    next_id = [100]

    def append() -> str:
        rows = []
        for _ in range(rng.randint(1, 4)):
            next_id[0] += 1
            rows.append(f"({next_id[0]}, {rng.randint(-40, 100)})")
        _run(appender, team, "INSERT INTO lake.sales.orders VALUES " + ", ".join(rows))
        time.sleep(rng.uniform(0.0, 0.5))
        return "append"

    def refresh_mv2() -> str:
        response = refresher.post("/api/v1/teams/acme/catalogs/lake/materialized-views/sales/mv2/refresh/")
        assert response.status_code == 201, response.json()
        done = wait_status(int(response.json()["id"]), RunStatus.SUCCEEDED, RunStatus.FAILED, timeout=600)
        time.sleep(rng.uniform(0.5, 2.0))
        return "mv2 refreshed" if done.status == RunStatus.SUCCEEDED else f"mv2 refresh failed: {done.error}"

    loops = [_Loop(append), _Loop(refresh_mv2)]
    for loop in loops:
        loop.start()
    consistent: list[tuple[int, dict[str, Any], dict[str, int]]] = []
    plain: list[dict[str, Any]] = []
    try:
        while len(consistent) < READS:
            run = _run(reader, team, JOIN, snapshot={"consistent": True})
            lineage = reader.get(f"/api/v1/teams/acme/lineage/runs/{run.id}/").json()
            read = {d["name"]: d["version"] for d in lineage["inputs"]}
            consistent.append((run.id, _row(reader, run), read))
            assert lineage["snapshot"]["consistent"] is True
            assert sorted(lineage["snapshot"]["versions"].values()) == sorted(read.values()), lineage
            if len(consistent) % PLAIN_EVERY == 0:
                plain.append(_row(reader, _run(reader, team, JOIN)))
    finally:
        for loop in loops:
            loop.finish()

    # the pipeline moved while the reads ran: appends landed, and both views were refreshed in between
    appends = loops[0].done.count("append")
    refreshes_mv1 = JobRun.objects.filter(job__name="refresh lake.sales.mv1", status=RunStatus.SUCCEEDED).count()
    assert appends >= 5 and refreshes_mv1 >= 2 and loops[1].done.count("mv2 refreshed") >= 2, (
        appends, refreshes_mv1, loops[1].done)

    mv1_reflects, mv2_reflects = _reflects(mv1), _reflects(mv2)
    for run_id, row, read in consistent:
        assert set(read) == {"lake.sales.orders", "lake.sales.mv1", "lake.sales.mv2"}, (run_id, read)
        base = read["lake.sales.orders"]
        # the versions the lineage records are one cut, by the views' own Delta commits …
        assert mv1_reflects[read["lake.sales.mv1"]] == {"lake.sales.orders": base}, (run_id, read)
        upstream = mv2_reflects[read["lake.sales.mv2"]]["lake.sales.mv1"]
        assert mv1_reflects[upstream] == {"lake.sales.orders": base}, (run_id, read, upstream)
        # … and the rows are the pipeline recomputed from the base at the version the cut chose
        assert row == _recompute(orders, base), (run_id, read, row)

    bases = {read["lake.sales.orders"] for _, _, read in consistent}
    assert len(bases) >= 3, bases  # the cut moved with the pipeline: not one frozen version read 50 times
    assert len(plain) == READS // PLAIN_EVERY
    # without the switch the same query reads each table at its newest, which disagree at least once
    broken = [row for row in plain if not _consistent(row)]
    assert broken, plain
