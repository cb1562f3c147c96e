"""`manage.py stream`: a streaming job operated from a shell, through the same lifecycle services as the API."""

from __future__ import annotations

import getpass
import io
import json
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from jobs.models import SqlJob
from streams.models import StreamState
from streams.selectors import stream_audit_list
from teams.models import Role, Team
from tests.factories import MembershipFactory, UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("stream_catalogs")]

SQL = "INSERT INTO lake.web.counts SELECT count(*) FROM STREAM(events.default.clicks)"
SHELL = f"cli:{getpass.getuser()}"  # who a shell action is recorded as without --as


def _audit(team: Team, job: str = "clicks") -> list[tuple[str, str]]:
    """The stream's audit trail, oldest first, as (action, actor) read through its selector."""
    return [(a.action, a.actor_name) for a in reversed(stream_audit_list(team=team, job_name=job))]


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
    assert _audit(team) == [("start", SHELL), ("stop", SHELL), ("reset", SHELL)]


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
    assert _audit(team) == [("start", SHELL), ("stop", SHELL)]

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
    assert _audit(team) == []


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


def test_stream_as_a_member_is_audited_under_that_user_and_refused_beyond_the_api_rule(
    team: Team, other_team: Team,
) -> None:
    SqlJob.objects.create(team=team, name="clicks", sql=SQL, kind="streaming")
    dev, viewer, outsider = UserFactory(username="dana"), UserFactory(username="vic"), UserFactory(username="olga")
    MembershipFactory(team=team, user=dev, role=Role.DEVELOPER)
    MembershipFactory(team=team, user=viewer, role=Role.VIEWER)
    MembershipFactory(team=other_team, user=outsider, role=Role.ADMIN)

    assert _stream("start", "--job", "clicks", "--as", "dana")["status"] == "STARTING"
    assert _stream("status", "--job", "clicks", "--as", "vic")["status"] == "STARTING"  # viewers read, as in the API
    refusals = [
        (("stop", "--as", "vic"), "--as: user 'vic' is 'viewer' in team 'acme'; stream stop needs the 'developer' role"),
        (("stop", "--as", "olga"), "--as: user 'olga' is not a member of team 'acme'"),
        (("stop", "--as", "nobody"), "--as: no active user named 'nobody'"),
    ]
    for args, message in refusals:
        with pytest.raises(CommandError, match=message):
            _stream(args[0], "--job", "clicks", *args[1:])
    with pytest.raises(CommandError, match="user 'olga' is not a member of team 'acme'"):
        _runjob("--job", "clicks", "--stop", "--as", "olga")
    assert StreamState.objects.get(job__name="clicks").status == "STARTING"  # nothing the refusals asked happened

    _stream("stop", "--job", "clicks")
    assert _audit(team) == [("start", "dana"), ("stop", SHELL)]
    assert stream_audit_list(team=team, job_name="clicks").last().actor == dev


def test_runjob_as_a_user_of_another_team_creates_and_starts_nothing(
    team: Team, other_team: Team, tmp_path: Any,
) -> None:
    MembershipFactory(team=other_team, user=UserFactory(username="olga"), role=Role.ADMIN)
    script = tmp_path / "clicks.sql"
    script.write_text(SQL)
    with pytest.raises(CommandError, match="--as: user 'olga' is not a member of team 'acme'"):
        _runjob("--file", str(script), "--job", "clicks", "--kind", "streaming", "--as", "olga")
    assert not SqlJob.objects.filter(name="clicks").exists()
    assert _audit(team) == []
