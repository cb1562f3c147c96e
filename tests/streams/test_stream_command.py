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

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("stream_catalogs")]

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


def _runjob(*args: str) -> tuple[dict[str, Any], str]:
    """`manage.py runjob --team acme …`: the stream body it prints and its progress lines."""
    out, err = io.StringIO(), io.StringIO()
    call_command("runjob", "--team", "acme", *args, stdout=out, stderr=err)
    return json.loads(out.getvalue()), err.getvalue()


def test_runjob_stops_a_streaming_job_and_refuses_what_it_cannot_do(team: Team) -> None:
    SqlJob.objects.create(team=team, name="clicks", sql=SQL, kind="streaming")
    _stream("start", "--job", "clicks")
    stopped, progress = _runjob("--job", "clicks", "--stop")  # nobody supervised it yet: stopped at once
    assert (stopped["status"], stopped["desired"]) == ("STOPPED", "stopped")
    assert "stream of job 'clicks' in team 'acme': STOPPED" in progress
    with pytest.raises(CommandError, match="is STOPPED"):
        _runjob("--job", "clicks", "--stop")
    assert list(StreamAudit.objects.order_by("id").values_list("action", "actor_name")) == [
        ("start", "platform"), ("stop", "platform")]

    SqlJob.objects.create(team=team, name="daily", sql="SELECT 1")
    with pytest.raises(CommandError, match="'daily' is a batch job: --stop is for streaming jobs"):
        _runjob("--job", "daily", "--stop")
    with pytest.raises(CommandError, match="No job named 'nope' in team 'acme'"):
        _runjob("--job", "nope")
    with pytest.raises(CommandError, match="Give --file"):
        _runjob()
    with pytest.raises(CommandError, match="give --job, not --file"):
        _runjob("--job", "clicks", "--file", "-", "--stop")


def test_runjob_refuses_a_statement_that_cannot_start_and_leaves_the_stream_as_it_was(team: Team,
                                                                                      tmp_path: Any) -> None:
    script = tmp_path / "clicks.sql"
    script.write_text("INSERT INTO lake.web.counts SELECT count(*) FROM STREAM(gone.default.clicks)")
    with pytest.raises(CommandError, match=r"sql: Statement 1 \(line 1\): STREAM\(gone.default.clicks\): the team "
                                           r"has no catalog named 'gone'.*\(rule: unknown-catalog\)"):
        _runjob("--file", str(script), "--job", "clicks", "--kind", "streaming")
    job = SqlJob.objects.get(team=team, name="clicks")
    assert job.kind == "streaming"  # saved (saving cannot judge catalogs), not started
    assert _stream("status", "--job", "clicks")["status"] == "STOPPED"
    assert not StreamAudit.objects.exists()


def test_runjob_file_on_a_saved_streaming_job_keeps_its_engine_and_default_catalog_unless_given(
    team: Team, tmp_path: Any,
) -> None:
    SqlJob.objects.create(team=team, name="clicks", sql=SQL, kind="streaming", engine="warm", default_catalog="lake")
    script = tmp_path / "clicks.sql"
    script.write_text(SQL.replace("count(*)", "count(*) AS n"))
    with pytest.raises(CommandError, match="still STARTING after 0.1 s"):  # no worker here: it stays STARTING
        _runjob("--file", str(script), "--job", "clicks", "--timeout", "0.1")
    job = SqlJob.objects.get(team=team, name="clicks")
    assert (job.sql, job.kind, job.engine, job.default_catalog) == (script.read_text(), "streaming", "warm", "lake")
    _stream("stop", "--job", "clicks")

    with pytest.raises(CommandError, match="still STARTING"):
        _runjob("--file", str(script), "--job", "clicks", "--timeout", "0.1", "--engine", "isolated",
                "--default-catalog", "events")
    job.refresh_from_db()
    assert (job.engine, job.default_catalog) == ("isolated", "events")
