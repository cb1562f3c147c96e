"""Per-team limits without Spark (real PostgreSQL and Redis): a team at its limit of runs keeps its next run QUEUED
(never failed) while another team's run starts, the limit holds under concurrent claims, a run's end wakes the
team's next run, the worker's task re-sends a run it may not start yet instead of holding a thread; editor calls
over the team's limit answer 503 naming it, and an editor task the web has given up on never reaches an engine."""

from __future__ import annotations

import base64
import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis
from django.conf import settings
from django.db import connection
from django.test import override_settings

from core.queues import EDITOR_QUEUE, RUN_QUEUE
from jobs.engines.pool import engine_pool
from jobs.models import JobRun, RunStatus, SqlJob
from jobs.services.interactive import interactive_execute
from jobs.services.limits import editor_slot
from jobs.services.runs import run_claim, run_finish, run_submit
from jobs.tasks import run_execute
from teams.models import Team
from tests.jobs.conftest import flush_broker

pytestmark = pytest.mark.django_db(transaction=True)
RUN_RULE = "LAKEPORT_TEAM_MAX_RUNS"
EDITOR_RULE = "LAKEPORT_TEAM_MAX_EDITOR_CALLS"


def messages(queue: str) -> list[dict[str, Any]]:
    """The messages waiting in `queue` of this suite's Redis (headers and decoded body)."""
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    found = []
    for raw in client.lrange(queue, 0, -1):
        message = json.loads(raw)
        found.append({"headers": message["headers"], "body": json.loads(base64.b64decode(message["body"]))})
    return found


def started_engines() -> set[int]:
    """The engines of this process's pool that have started (by identity)."""
    return {id(e) for e in engine_pool().engines() if e.started.is_set()}


def run_ids_waiting() -> list[int]:
    return [m["body"][0][0] for m in messages(RUN_QUEUE)]


@pytest.fixture(autouse=True)
def _limits() -> Iterator[None]:
    flush_broker()
    with override_settings(LAKEPORT_TEAM_MAX_RUNS=2, LAKEPORT_TEAM_MAX_EDITOR_CALLS=2, LAKEPORT_TEAM_LIMITS={}):
        yield


@pytest.fixture
def runs_of(team: Team, other_team: Team) -> Callable[[Team, int], list[int]]:
    def make(owner: Team, count: int) -> list[int]:
        job = SqlJob.objects.create(team=owner, name=f"j{SqlJob.objects.count()}", sql="SELECT 1")
        return [run_submit(job=job, user=None, enqueue=False).run.id for _ in range(count)]

    return make


def test_a_team_at_its_limit_keeps_its_next_run_queued_while_another_team_starts(
        runs_of: Callable[[Team, int], list[int]], team: Team, other_team: Team) -> None:
    first, second, third = runs_of(team, 3)
    theirs = runs_of(other_team, 1)[0]
    assert run_claim(run_id=first, worker="w") is not None
    assert run_claim(run_id=second, worker="w") is not None
    assert run_claim(run_id=third, worker="w") is None  # acme has 2 RUNNING: the limit
    assert JobRun.objects.get(id=third).status == RunStatus.QUEUED  # waiting, not failed
    assert run_claim(run_id=theirs, worker="w") is not None  # globex is not held up by acme's backlog
    # acme's first run ends: the waiting run is sent at once and may now start
    run = JobRun.objects.get(id=first)
    assert run_finish(run=run, succeeded=True, error=None, statements=[], catalogs_used=[], result=None,
                      progress={}) == RunStatus.SUCCEEDED
    assert third in run_ids_waiting()
    assert run_claim(run_id=third, worker="w") is not None


def test_concurrent_claims_of_one_team_never_pass_its_limit(runs_of: Callable[[Team, int], list[int]],
                                                            team: Team) -> None:
    ids = runs_of(team, 8)
    barrier = threading.Barrier(len(ids))
    won: list[int] = []

    def claim(run_id: int) -> None:
        barrier.wait()
        try:
            if run_claim(run_id=run_id, worker=f"w{run_id}") is not None:
                won.append(run_id)
        finally:
            connection.close()

    threads = [threading.Thread(target=claim, args=(i,)) for i in ids]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(won) == 2
    assert JobRun.objects.filter(team=team, status=RunStatus.RUNNING).count() == 2
    assert JobRun.objects.filter(team=team, status=RunStatus.QUEUED).count() == 6


def test_an_operator_exception_raises_one_teams_limit(runs_of: Callable[[Team, int], list[int]], team: Team) -> None:
    ids = runs_of(team, 4)
    with override_settings(LAKEPORT_TEAM_LIMITS={"acme": {"max_runs": 3}}):
        claimed = [run_claim(run_id=i, worker="w") is not None for i in ids]
    assert claimed == [True, True, True, False]


def test_the_worker_task_re_sends_a_run_of_a_team_at_its_limit_without_starting_an_engine(
        runs_of: Callable[[Team, int], list[int]], team: Team) -> None:
    first, second, third = runs_of(team, 3)
    already = started_engines()  # engines an earlier test of this process left running
    run_claim(run_id=first, worker="w")
    run_claim(run_id=second, worker="w")
    JobRun.objects.filter(id=third).update(enqueued_at=None)
    run_execute.apply(args=[third])  # the task as a worker thread runs it: returns at once
    run = JobRun.objects.get(id=third)
    assert run.status == RunStatus.QUEUED and run.attempt == 0
    assert run.enqueued_at is not None  # counts as freshly sent: the reaper leaves it alone
    again = [m for m in messages(RUN_QUEUE) if m["body"][0] == [third]]
    assert len(again) == 1 and again[0]["headers"]["eta"]  # sent again, for later
    assert started_engines() == already  # no engine started for it


def test_editor_calls_over_the_team_limit_answer_503_naming_it(client_for: Any, team: Team, other_team: Team) -> None:
    holding = threading.Event()
    release = threading.Event()

    def hold() -> None:
        try:
            with editor_slot(team_id=team.id, team=team.name):
                holding.set()
                release.wait(30)
        finally:
            connection.close()

    holders = [threading.Thread(target=hold) for _ in range(2)]
    for h in holders:
        h.start()
        assert holding.wait(10)
        holding.clear()
    try:
        dev = client_for("developer")
        for path, body in (("sql/preview/", {"sql": "SELECT 1"}), ("sql/validate/", {"sql": "SELECT 1"})):
            response = dev.post(f"/api/v1/teams/acme/{path}", body, format="json")
            assert response.status_code == 503, response.json()
            assert EDITOR_RULE in response.json()["error"]["message"]
        assert messages(EDITOR_QUEUE) == []  # refused before anything reached a worker
        # another team is not held by acme's slots: its call goes to the editor queue (no worker here: it times out)
        with override_settings(LAKEPORT_INTERACTIVE_TIMEOUT_SECONDS=0.5):
            theirs = client_for("developer", other_team).post("/api/v1/teams/globex/sql/preview/",
                                                               {"sql": "SELECT 1"}, format="json")
        assert theirs.status_code == 503 and EDITOR_RULE not in theirs.json()["error"]["message"]
        assert len(messages(EDITOR_QUEUE)) == 1
    finally:
        release.set()
        for h in holders:
            h.join()
    # the slots are free again once the calls holding them answered
    with editor_slot(team_id=team.id, team=team.name), editor_slot(team_id=team.id, team=team.name):
        pass


def test_an_editor_call_the_web_gave_up_on_expires_and_never_reaches_an_engine(client_for: Any, team: Team) -> None:
    already = started_engines()  # engines an earlier test of this process left running
    with override_settings(LAKEPORT_INTERACTIVE_TIMEOUT_SECONDS=0.5):
        sent = time.time()
        response = client_for("developer").post("/api/v1/teams/acme/sql/preview/", {"sql": "SELECT 1"}, format="json")
    assert response.status_code == 503
    (message,) = messages(EDITOR_QUEUE)
    assert message["headers"]["expires"]  # the broker message itself expires when the web stops waiting
    give_up_at = message["body"][1]["give_up_at"]
    assert sent < give_up_at <= time.time() + 0.1
    # a worker taking the message late (its expiry unseen, e.g. a clock skew) still does nothing
    answer = interactive_execute(**message["body"][1])
    assert answer["abandoned"] is True and answer["succeeded"] is False
    assert started_engines() == already  # none started for it
