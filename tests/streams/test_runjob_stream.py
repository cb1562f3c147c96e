"""`manage.py runjob` on a streaming job with a real worker: it starts the stream through the stream services, returns
once it is RUNNING (the sink filling), `--stop` returns once it is STOPPED; a stream that fails exits non-zero with
the stream's error."""

from __future__ import annotations

import getpass
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from streams.selectors import stream_audit_list
from teams.models import Team
from tests.streams.conftest import Lake, events, produce, sink_ids
from tests.support.servers import wait_until
from tests.support.worker import Worker

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.spark]


def _runjob(*args: str) -> tuple[dict[str, Any], str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("runjob", "--team", "acme", *args, stdout=out, stderr=err)
    return json.loads(out.getvalue()), err.getvalue()


def test_runjob_starts_a_stream_until_running_stops_it_and_reports_a_failure(
    lake: Lake, stream_workers: Callable[..., Worker], tmp_path: Path,
) -> None:
    sink = lake.sink("out")
    produce(lake.server, lake.key, events(0, 20))
    script = tmp_path / "clicks.sql"
    script.write_text(lake.script("out"))
    stream_workers("w1")

    running, progress = _runjob("--file", str(script), "--job", "clicks", "--kind", "streaming")
    assert running["status"] == "RUNNING" and running["query_id"] and running["desired"] == "running"
    assert "stream of job 'clicks' in team 'acme': STARTING" in progress
    assert "stream of job 'clicks' in team 'acme': RUNNING" in progress
    wait_until(lambda: sink_ids(sink) == list(range(20)), what="the stream started by runjob to fill the sink")

    stopped, _ = _runjob("--job", "clicks", "--stop")
    assert (stopped["status"], stopped["desired"]) == ("STOPPED", "stopped")

    script.write_text(lake.script("out", source="nosuch"))  # a stream table the catalog does not declare
    with pytest.raises(CommandError, match=r"stream of job 'broken' in team 'acme' is FAILED: .*nosuch"):
        _runjob("--file", str(script), "--job", "broken", "--kind", "streaming")
    shell, team = f"cli:{getpass.getuser()}", Team.objects.get(name="acme")  # no --as: the OS user is recorded
    assert [(a.action, a.actor_name) for a in stream_audit_list(team=team, job_name="clicks")] == [
        ("stop", shell), ("start", shell)]
    assert [(a.action, a.actor_name) for a in stream_audit_list(team=team, job_name="broken")] == [("start", shell)]
