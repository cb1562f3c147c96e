"""`manage.py runjob --team T --file script.sql`: the same claim/engine/recording path, results printed."""

from __future__ import annotations

from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from catalogs.models import Catalog
from jobs.models import Engine, JobRun, RunStatus, SqlJob
from teams.models import Role, Team
from tests.factories import MembershipFactory, UserFactory
from tests.jobs.conftest import PG_PASSWORD

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.spark]


@pytest.fixture(autouse=True)
def _warm(spark: Any) -> None:
    """runjob executes in this process, on its warm engine: the suite's shared SparkSession."""


def test_runjob_runs_a_script_file_and_prints_the_result(tmp_path: Path, pg_catalog: Catalog) -> None:
    script = tmp_path / "report.sql"
    script.write_text("USE CATALOG pg;\nSELECT customer, amount FROM public.orders ORDER BY id LIMIT 2;\n")
    out, err = StringIO(), StringIO()
    call_command("runjob", "--team", "acme", "--file", str(script), stdout=out, stderr=err)
    printed = out.getvalue()
    assert printed.splitlines()[0].split() == ["customer", "|", "amount"]
    assert "ann" in printed and "10.50" in printed and "(2 row(s))" in printed
    run = JobRun.objects.get()
    assert run.status == RunStatus.SUCCEEDED and run.job.name == "runjob-report" and run.worker == "runjob@local"
    assert "Run SUCCEEDED" in err.getvalue() and PG_PASSWORD not in err.getvalue() + printed

    # a saved job runs by its name, with its own script
    again = StringIO()
    call_command("runjob", "--team", "acme", "--job", "runjob-report", stdout=again, stderr=StringIO())
    assert again.getvalue() == printed and JobRun.objects.filter(status=RunStatus.SUCCEEDED).count() == 2


def test_runjob_file_on_a_saved_job_keeps_its_engine_and_default_catalog_unless_given(
    tmp_path: Path, pg_catalog: Catalog,
) -> None:
    SqlJob.objects.create(team=pg_catalog.team, name="orders", sql="SELECT 0", engine=Engine.WARM,
                          default_catalog="pg")
    script = tmp_path / "orders.sql"
    script.write_text("SELECT customer FROM public.orders ORDER BY id LIMIT 1;\n")  # `pg` only as the default
    out = StringIO()
    call_command("runjob", "--team", "acme", "--file", str(script), "--job", "orders", stdout=out, stderr=StringIO())
    assert "ann" in out.getvalue()
    job = SqlJob.objects.get(name="orders")
    assert (job.sql, job.engine, job.default_catalog) == (script.read_text(), "warm", "pg")
    assert (JobRun.objects.get().engine, JobRun.objects.get().default_catalog) == ("warm", "pg")

    # given on the command line, they change (an empty --default-catalog clears it)
    script.write_text("SELECT customer FROM pg.public.orders ORDER BY id DESC LIMIT 1;\n")
    again = StringIO()
    call_command("runjob", "--team", "acme", "--file", str(script), "--job", "orders", "--engine", "default",
                 "--default-catalog", "", stdout=again, stderr=StringIO())
    assert "cy" in again.getvalue()
    job.refresh_from_db()
    assert (job.engine, job.default_catalog) == ("default", "")


def test_runjob_as_a_developer_creates_and_submits_under_that_user_and_refuses_a_viewer(
    tmp_path: Path, team: Team,
) -> None:
    MembershipFactory(team=team, user=UserFactory(username="dana"), role=Role.DEVELOPER)
    MembershipFactory(team=team, user=UserFactory(username="vic"), role=Role.VIEWER)
    script = tmp_path / "one.sql"
    script.write_text("SELECT 1 AS one;\n")
    with pytest.raises(CommandError, match="--as: user 'vic' is 'viewer' in team 'acme'; runjob needs the 'developer'"):
        call_command("runjob", "--team", "acme", "--file", str(script), "--as", "vic", stderr=StringIO())
    assert not SqlJob.objects.exists() and not JobRun.objects.exists()

    call_command("runjob", "--team", "acme", "--file", str(script), "--as", "dana", stdout=StringIO(),
                 stderr=StringIO())
    run = JobRun.objects.select_related("job__created_by", "submitted_by").get()
    assert (run.status, run.submitted_by.username, run.job.created_by.username) == ("SUCCEEDED", "dana", "dana")


def test_runjob_fails_with_the_statement_position(tmp_path: Path, team: Any) -> None:
    script = tmp_path / "bad.sql"
    script.write_text("SELECT 1;\nSELECT * FROM ghost.db.t;\n")
    with pytest.raises(CommandError, match="FAILED: Unknown catalog 'ghost'"):
        call_command("runjob", "--team", "acme", "--file", str(script), stdout=StringIO(), stderr=StringIO())
    assert JobRun.objects.get().error["line"] == 2


def test_runjob_bad_input(tmp_path: Path, team: Any) -> None:
    empty = tmp_path / "empty.sql"
    empty.write_text("\n")
    with pytest.raises(CommandError, match="empty"):
        call_command("runjob", "--team", "acme", "--file", str(empty), stderr=StringIO())
    with pytest.raises(CommandError, match="No team named 'nobody'"):
        call_command("runjob", "--team", "nobody", "--file", str(empty), stderr=StringIO())
    with pytest.raises(CommandError, match="Cannot read"):
        call_command("runjob", "--team", "acme", "--file", str(tmp_path / "missing.sql"), stderr=StringIO())
    undeclared = tmp_path / "param.sql"
    undeclared.write_text("SELECT ${region};\n")
    with pytest.raises(CommandError, match=r"parameters: Unknown parameter '\$\{region\}'"):
        call_command("runjob", "--team", "acme", "--file", str(undeclared), stderr=StringIO())
    assert JobRun.objects.count() == 0
