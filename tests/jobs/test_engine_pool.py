"""The worker's engine pool with a real worker: a full pool keeps a run QUEUED (never FAILED) until an engine is
free, a team's engine is then stopped for another team's (least recently used), and an idle engine is stopped
after its TTL."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from rest_framework.test import APIClient

from jobs.models import TERMINAL_STATUSES, JobRun, RunStatus
from teams.models import Role, Team
from tests.factories import TeamFactory
from tests.jobs.conftest import running_worker, wait_status
from tests.support.engines import alive, engine_pid
from tests.support.servers import wait_until
from tests.support.worker import Worker

pytestmark = [pytest.mark.django_db(transaction=True)]

SLOW = "SELECT count(*) FROM range(0, 400000000000)"  # minutes of work on 2 cores: it is cancelled long before


@pytest.fixture(scope="module")
def one_engine_worker(django_db_setup: Any, django_db_blocker: Any,
                      tmp_path_factory: pytest.TempPathFactory) -> Iterator[Worker]:
    """A worker with two task slots but room for one engine, whose engines stop after 4 idle seconds."""
    with running_worker(tmp_path_factory, "pool-worker", hostname="pool@%h", beat=False, env={
        "LAKEPORT_ENGINES_PER_WORKER": "1", "LAKEPORT_ENGINE_IDLE_SECONDS": "4", "LAKEPORT_ENGINE_WAIT_SECONDS": "1",
    }) as worker:
        yield worker


def submit(client: APIClient, team: str, sql: str) -> int:
    job = client.post(f"/api/v1/teams/{team}/jobs/", {"name": f"j{os.urandom(3).hex()}", "sql": sql}, format="json")
    return int(client.post(f"/api/v1/teams/{team}/jobs/{job.json()['id']}/runs/").json()["id"])


def test_a_full_pool_queues_then_evicts_and_idle_engines_stop(one_engine_worker: Worker, team: Team,
                                                              client_for: Any) -> None:
    globex = TeamFactory(name="globex")
    acme, other = client_for(Role.DEVELOPER), client_for(Role.DEVELOPER, in_team=globex)
    busy = submit(acme, "acme", SLOW)
    wait_until(lambda: JobRun.objects.get(id=busy).progress.get("statements_total") == 1,
               what="acme's engine to run the slow query")
    waiting = submit(other, "globex", "SELECT 1 AS one")
    # The only engine is busy: globex's run waits in the queue and is not failed.
    wait_until(lambda: one_engine_worker.log().count("run.waiting_for_engine") >= 2, timeout=120,
               what="the worker to defer globex's run")
    assert JobRun.objects.get(id=waiting).status == RunStatus.QUEUED
    acme_pid = engine_pid(busy)

    assert acme.post(f"/api/v1/teams/acme/runs/{busy}/cancel/").status_code == 202
    assert wait_status(busy, *TERMINAL_STATUSES).status == RunStatus.CANCELLED
    done = wait_status(waiting, *TERMINAL_STATUSES)
    assert done.status == RunStatus.SUCCEEDED, done.error
    assert done.result["rows"] == [[1]]
    globex_pid = engine_pid(waiting)
    assert globex_pid != acme_pid
    wait_until(lambda: not alive(acme_pid), what="acme's idle engine to be evicted for globex's")

    # With nothing to do, globex's engine is stopped after its idle TTL.
    wait_until(lambda: not alive(globex_pid), timeout=120, what="the idle engine to stop")
