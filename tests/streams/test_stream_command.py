"""`manage.py stream`: a streaming job operated from a shell, through the same lifecycle services as the API."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from jobs.models import SqlJob
from streams.models import StreamAudit
from teams.models import Team

pytestmark = pytest.mark.django_db

SQL = "INSERT INTO lake.web.counts SELECT count(*) FROM STREAM(events.default.clicks)"


def _stream(*args: str) -> dict[str, Any]:
    out = io.StringIO()
    call_command("stream", *args, "--team", "acme", stdout=out)
    return json.loads(out.getvalue())


def test_status_start_stop_reset_from_the_shell(team: Team) -> None:
    SqlJob.objects.create(team=team, name="clicks", sql=SQL, kind="streaming")
    assert _stream("status", "--job", "clicks")["status"] == "STOPPED"
    started = _stream("start", "--job", "clicks")
    assert (started["status"], started["desired"]) == ("STARTING", "running")
    with pytest.raises(CommandError, match="start"):
        _stream("start", "--job", "clicks")  # a second start is refused, as the API's 409
    assert _stream("stop", "--job", "clicks")["status"] == "STOPPED"  # nobody supervised it yet: stopped at once
    with pytest.raises(CommandError, match="confirm"):
        _stream("reset", "--job", "clicks")
    assert _stream("reset", "--job", "clicks", "--yes")["checkpoint_generation"] == 2
    assert list(StreamAudit.objects.order_by("id").values_list("action", "actor_name")) == [
        ("start", "platform"), ("stop", "platform"), ("reset", "platform")]


def test_a_batch_job_or_an_unknown_one_is_a_clear_error(team: Team) -> None:
    SqlJob.objects.create(team=team, name="daily", sql="SELECT 1")
    with pytest.raises(CommandError, match="batch job"):
        _stream("start", "--job", "daily")
    with pytest.raises(CommandError, match="No job named 'nope' in team 'acme'"):
        _stream("status", "--job", "nope")
