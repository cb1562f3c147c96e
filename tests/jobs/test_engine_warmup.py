"""A fast first query (issue 31): opening the SQL editor starts the team's engine in a real worker, so the first
preview finds it running; a preview sent while that start is under way waits for the same start (one engine, the
right rows); viewers and other teams cannot ask for it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from teams.models import Role, Team
from tests.factories import TeamFactory
from tests.support.processes import descendants
from tests.support.servers import wait_until
from tests.support.worker import Worker

pytestmark = pytest.mark.django_db(transaction=True)


def team_engines(worker: Worker, team: str) -> list[int]:
    """The worker's engine processes of `team` (each engine's working directory is its team's scratch directory)."""
    assert worker.worker is not None
    found = []
    for pid in descendants(worker.worker.pid):
        try:
            if ("lakeport_engine.engine" in Path(f"/proc/{pid}/cmdline").read_text(errors="replace")
                    and Path(os.readlink(f"/proc/{pid}/cwd")).name == team):
                found.append(pid)
        except OSError:  # gone meanwhile
            continue
    return found


def preview_rows(client: Any, team: str) -> list[list[Any]]:
    response = client.post(f"/api/v1/teams/{team}/sql/preview/", {"sql": "SELECT 40 + 2 AS x"}, format="json")
    assert response.status_code == 200, response.json()
    return list(response.json()["rows"])


def test_opening_the_editor_starts_the_teams_engine_and_the_first_preview_uses_it(
    celery_worker: Worker, team: Team, developer_client: Any, viewer_client: Any, client_for: Any
) -> None:
    assert team_engines(celery_worker, team.name) == []
    first = developer_client.post(f"/api/v1/teams/{team.name}/engine/warm/")
    assert first.status_code == 202 and first.json() == {"requested": True}
    again = developer_client.post(f"/api/v1/teams/{team.name}/engine/warm/")
    assert again.status_code == 202 and again.json() == {"requested": False}  # once a minute per team
    wait_until(lambda: "engine.warm" in celery_worker.log() and team_engines(celery_worker, team.name),
               what="the warm-up to start the team's engine")
    [engine] = team_engines(celery_worker, team.name)

    assert preview_rows(developer_client, team.name) == [[42]]
    assert team_engines(celery_worker, team.name) == [engine]  # the warm engine answered: no second start

    assert viewer_client.post(f"/api/v1/teams/{team.name}/engine/warm/").status_code == 403  # runs no SQL
    outsider = client_for(Role.DEVELOPER, in_team=TeamFactory(name="globex"))
    assert outsider.post(f"/api/v1/teams/{team.name}/engine/warm/").status_code == 404


def test_a_preview_sent_while_the_engine_is_starting_waits_for_that_same_start(
    celery_worker: Worker, client_for: Any
) -> None:
    other = TeamFactory(name="initech")
    developer = client_for(Role.DEVELOPER, in_team=other)
    assert developer.post("/api/v1/teams/initech/engine/warm/").json() == {"requested": True}
    assert preview_rows(developer, "initech") == [[42]]  # sent at once: the start is (most likely) under way
    assert len(team_engines(celery_worker, "initech")) == 1


def test_signing_in_starts_the_engines_of_the_teams_where_the_user_writes_sql(celery_worker: Worker) -> None:
    from rest_framework.test import APIClient

    from tests.factories import MembershipFactory, UserFactory

    writes, reads = TeamFactory(name="hooli"), TeamFactory(name="piedpiper")
    user = UserFactory()
    MembershipFactory(team=writes, user=user, role=Role.DEVELOPER)
    MembershipFactory(team=reads, user=user, role=Role.VIEWER)  # a viewer runs no SQL: no engine for it
    browser = APIClient()
    signed_in = browser.post("/api/v1/auth/login/", {"username": user.username, "password": "pw-for-tests-only"},
                             format="json")
    assert signed_in.status_code == 200, signed_in.content
    wait_until(lambda: team_engines(celery_worker, "hooli"), what="signing in to start the team's engine")
    [engine] = team_engines(celery_worker, "hooli")
    assert preview_rows(browser, "hooli") == [[42]]
    assert team_engines(celery_worker, "hooli") == [engine]  # the first preview found it running
    assert team_engines(celery_worker, "piedpiper") == []

    wrong = APIClient().post("/api/v1/auth/login/", {"username": user.username, "password": "wrong"}, format="json")
    assert wrong.status_code in (401, 403)  # a failed sign-in starts nothing (nothing to assert beyond no crash)


def parse_servers(worker: Worker) -> list[int]:
    """The worker's parse server processes (jobs/engines/parser.py)."""
    assert worker.worker is not None
    return [pid for pid in descendants(worker.worker.pid)
            if "lakeport_engine.parse_server" in Path(f"/proc/{pid}/cmdline").read_text(errors="replace")]


def test_validation_while_the_engine_starts_answers_from_sparks_parser_and_fully_once_it_is_up(
    celery_worker: Worker, client_for: Any
) -> None:
    TeamFactory(name="umbrella")
    developer = client_for(Role.DEVELOPER, in_team=Team.objects.get(name="umbrella"))

    def validate(sql: str, **extra: Any) -> dict[str, Any]:
        response = developer.post("/api/v1/teams/umbrella/sql/validate/", {"sql": sql, **extra}, format="json")
        assert response.status_code == 200, response.content
        return dict(response.json())

    assert team_engines(celery_worker, "umbrella") == []
    quick = validate("SELECT 1;\n  SELEC 2", syntax_while_starting=True)  # no engine yet: Spark's parser answers
    assert quick["checked"] == "syntax" and quick["valid"] is False
    [error] = quick["errors"]
    assert (error["statement"], error["line"], error["column"]) == (1, 2, 3)
    assert "Syntax error in statement 2" in error["message"] and "SELEC" in error["message"]
    wait_until(lambda: team_engines(celery_worker, "umbrella"), what="the engine to start in the background")

    # a name only analysis knows: syntax-only says nothing of it; the engine's full check, once up, names it
    unknown = "SELECT no_such_column FROM (SELECT 1 AS x)"
    wait_until(lambda: validate(unknown, syntax_while_starting=True)["checked"] == "full",
               what="validation to be full once the engine is up")
    full = validate(unknown, syntax_while_starting=True)
    assert full["valid"] is False and "no_such_column" in full["errors"][0]["message"]
    assert validate(unknown)["checked"] == "full"  # without the switch a request always waits for the full check

    # the parse server holds no platform secret: its environment (and its JVM's) is the engines' allow-list
    servers = parse_servers(celery_worker)
    assert servers, "the editor worker runs a parse server"
    allowed = {"PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "JAVA_HOME", "SPARK_HOME", "LAKEPORT_DELTA_MODE",
               "LAKEPORT_JDBC_MYSQL_DRIVER", "LAKEPORT_DELTA_RETENTION_CHECK", "HOME", "TMPDIR", "PYTHONPATH",
               "PYTHONDONTWRITEBYTECODE"}
    for pid in servers + [c for s in servers for c in descendants(s)]:
        names = {entry.split(b"=", 1)[0].decode() for entry in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
                 if entry}
        assert names <= allowed | {"CLASSPATH", "JAVA_MAIN_CLASS_" + str(pid)}, names - allowed
