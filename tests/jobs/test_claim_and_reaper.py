"""The run state machine under concurrency: one claim wins, a reaped attempt cannot write back, the reaper
fails/re-queues/cancels lost runs and re-enqueues QUEUED runs whose broker message was lost (real Redis)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
import redis
from django.conf import settings
from django.db import connection
from django.test import override_settings
from django.utils import timezone

from jobs.models import JobRun, RunStatus, SqlJob
from jobs.services.runs import run_claim, run_finish, run_submit, runs_reap
from tests.jobs.conftest import flush_broker

pytestmark = pytest.mark.django_db(transaction=True)


def queued_messages() -> list[int]:
    """Run ids of the `jobs.run_execute` messages waiting in Redis."""
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    ids = []
    for raw in client.lrange("lakeport", 0, -1):
        message = json.loads(raw)
        assert message["headers"]["task"] == "jobs.run_execute"
        ids.append(json.loads(__import__("base64").b64decode(message["body"]))[0][0])
    return ids


@pytest.fixture(autouse=True)
def _empty_broker() -> None:
    flush_broker()


def test_submit_commits_then_enqueues_one_message(make_job: Callable[..., SqlJob]) -> None:
    run = run_submit(job=make_job("SELECT 1"), user=None).run
    assert queued_messages() == [run.id]
    assert JobRun.objects.get(id=run.id).enqueued_at is not None


def test_only_one_of_many_concurrent_claims_wins(make_job: Callable[..., SqlJob]) -> None:
    run = run_submit(job=make_job("SELECT 1"), user=None, enqueue=False).run
    barrier = threading.Barrier(8)
    winners: list[Any] = []

    def claim(n: int) -> None:
        barrier.wait()
        try:
            claimed = run_claim(run_id=run.id, worker=f"w{n}")
            if claimed is not None:
                winners.append(claimed)
        finally:
            connection.close()

    threads = [threading.Thread(target=claim, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(winners) == 1
    stored = JobRun.objects.get(id=run.id)
    assert stored.status == RunStatus.RUNNING and stored.attempt == 1 and stored.worker == winners[0].worker
    assert run_claim(run_id=run.id, worker="late") is None  # a redelivered message is skipped
    assert run_claim(run_id=999_999, worker="w") is None  # a deleted run too


@override_settings(LAKEPORT_REAPER_INTERVAL_SECONDS=8)
def test_reaper_fails_a_run_whose_worker_stopped_heartbeating(make_job: Callable[..., SqlJob]) -> None:
    lost = run_submit(job=make_job("SELECT 1"), user=None, enqueue=False).run
    alive = run_submit(job=make_job("SELECT 2"), user=None, enqueue=False).run
    lost = run_claim(run_id=lost.id, worker="dead-worker")
    run_claim(run_id=alive.id, worker="live-worker")
    JobRun.objects.filter(id=lost.id).update(heartbeat_at=timezone.now() - timedelta(seconds=30))

    report = runs_reap()

    assert report.failed == [lost.id]
    failed = JobRun.objects.get(id=lost.id)
    assert failed.status == RunStatus.FAILED and failed.finished_at is not None
    assert failed.error["message"].startswith("worker lost")
    assert "worker lost" in " ".join(failed.log.values_list("message", flat=True))
    assert JobRun.objects.get(id=alive.id).status == RunStatus.RUNNING
    # The dead attempt's late result cannot overwrite the reaper's verdict.
    assert run_finish(run=lost, succeeded=True, error=None, statements=[], catalogs_used=[], result=None,
                      progress={}) is None
    assert JobRun.objects.get(id=lost.id).status == RunStatus.FAILED


@override_settings(LAKEPORT_REAPER_INTERVAL_SECONDS=8)
def test_reaper_requeues_while_retries_remain_and_the_next_claim_is_attempt_two(make_job: Callable[..., SqlJob]) -> None:
    run = run_submit(job=make_job("SELECT 1", max_retries=1), user=None, enqueue=False).run
    first = run_claim(run_id=run.id, worker="dead-worker")
    JobRun.objects.filter(id=run.id).update(heartbeat_at=timezone.now() - timedelta(seconds=30))

    assert runs_reap().requeued == [run.id]
    assert JobRun.objects.get(id=run.id).status == RunStatus.QUEUED
    assert queued_messages() == [run.id]  # sent again
    second = run_claim(run_id=run.id, worker="new-worker")
    assert second is not None and second.attempt == 2
    assert run_finish(run=first, succeeded=True, error=None, statements=[], catalogs_used=[], result=None,
                      progress={}) is None  # the first attempt cannot finish the second
    # The second attempt dies too: no retries left, so it fails.
    JobRun.objects.filter(id=run.id).update(heartbeat_at=timezone.now() - timedelta(seconds=30))
    assert runs_reap().failed == [run.id]


@override_settings(LAKEPORT_REAPER_INTERVAL_SECONDS=8)
def test_reaper_cancels_a_lost_run_that_a_user_wanted_cancelled(make_job: Callable[..., SqlJob]) -> None:
    run = run_submit(job=make_job("SELECT 1", max_retries=3), user=None, enqueue=False).run
    run_claim(run_id=run.id, worker="dead-worker")
    JobRun.objects.filter(id=run.id).update(cancel_requested=True,
                                             heartbeat_at=timezone.now() - timedelta(seconds=30))
    assert runs_reap().cancelled == [run.id]
    assert JobRun.objects.get(id=run.id).status == RunStatus.CANCELLED


@override_settings(LAKEPORT_REQUEUE_AFTER_SECONDS=60)
def test_reaper_reenqueues_queued_runs_whose_messages_were_lost(make_job: Callable[..., SqlJob]) -> None:
    job = make_job("SELECT 1")
    old = [run_submit(job=job, user=None).run for _ in range(3)]
    fresh = run_submit(job=job, user=None).run
    flush_broker()  # Redis restarted without persistence: every message is gone
    JobRun.objects.filter(id__in=[r.id for r in old]).update(enqueued_at=timezone.now() - timedelta(minutes=5))

    report = runs_reap()

    assert sorted(report.reenqueued) == sorted(r.id for r in old)
    assert sorted(queued_messages()) == sorted(r.id for r in old)
    assert fresh.id not in report.reenqueued  # its message may still be in flight


@override_settings(LAKEPORT_REQUEUE_AFTER_SECONDS=60)
def test_reaper_does_not_duplicate_messages_that_are_still_waiting(make_job: Callable[..., SqlJob]) -> None:
    job = make_job("SELECT 1")
    runs = [run_submit(job=job, user=None).run for _ in range(3)]  # busy workers: the messages wait in Redis
    JobRun.objects.filter(id__in=[r.id for r in runs]).update(enqueued_at=timezone.now() - timedelta(minutes=5))
    assert runs_reap().reenqueued == []
    assert sorted(queued_messages()) == sorted(r.id for r in runs)
    # One message is lost (say a broker failover dropped it): exactly one run is sent again, the oldest.
    redis.Redis.from_url(settings.CELERY_BROKER_URL).lpop("lakeport")
    assert runs_reap().reenqueued == [runs[0].id]
    assert len(queued_messages()) == 3
