"""Fixtures for alert tests: a real HTTP receiver and a real SMTP server on 127.0.0.1, runs ended through the
services (the run's end and its alert's outbox row commit together; Spark is not what is tested here)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from django.utils import timezone

from jobs.models import JobRun, RunStatus, SqlJob
from jobs.services.runs import run_finish
from teams.models import Team
from tests.support.leakscan import SCAN
from tests.support.receivers import Receiver, free_port


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    found = Receiver(port=free_port())
    found.start()
    yield found
    found.stop()


class _Mailbox:
    def __init__(self) -> None:
        self.messages: list[tuple[str, list[str], str]] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802 - aiosmtpd's name
        text = envelope.content.decode(errors="replace")
        self.messages.append((envelope.mail_from, list(envelope.rcpt_tos), text))
        SCAN.record_response("alert e-mail", text)
        return "250 OK"


@pytest.fixture
def smtp_server(settings: Any) -> Iterator[_Mailbox]:
    """aiosmtpd on 127.0.0.1 and Django's SMTP backend pointed at it."""
    mailbox = _Mailbox()
    port = free_port()
    controller = Controller(mailbox, hostname="127.0.0.1", port=port)
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port
    yield mailbox
    controller.stop()


def running_run(job: SqlJob) -> JobRun:
    """A run of `job` as a worker holds it (claimed, attempt 1)."""
    now = timezone.now()
    return JobRun.objects.create(job=job, team=job.team, sql=job.sql, status=RunStatus.RUNNING, attempt=1,
                                 started_at=now, heartbeat_at=now, worker="test-worker")


def end_run(job: SqlJob, *, succeeded: bool, message: str = "") -> JobRun:
    """A run of `job` ended by the worker's service (`run_finish`), FAILED with `message` unless it succeeded."""
    run = running_run(job)
    error = None if succeeded else {"statement": 1, "line": 1, "column": 1, "message": message}
    run_finish(run=run, succeeded=succeeded, error=error, statements=[], catalogs_used=[], result=None, progress={})
    run.refresh_from_db()
    return run


@pytest.fixture
def job(team: Team) -> SqlJob:
    return SqlJob.objects.create(team=team, name="nightly-orders", sql="SELECT 1")
