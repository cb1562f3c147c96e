"""A run's outcome stores on PostgreSQL (the suite's database) and on `make run`'s SQLite alike, whatever characters
its cells, statements, errors and log lines hold (NUL, lone surrogates, other control characters), and its result
is cut to LAKEPORT_RESULT_MAX_BYTES. Stored through the worker's own service (`run_finish`), read back through the
API as a member would. tests/security/test_run_outputs.py replays the same through real runs on PostgreSQL."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from jobs.services.results import json_size, result_bounded, storable
from tests.support.worker import REPO

CELLS = ["a\x00b", "lone \ud800 high", "lone \udfff low", "ctl \x01\x1b\x7f\t\n\r", "é\u2028😀", "plain"]
SHOWN = ["a\\u0000b", "lone \\ud800 high", "lone \\udfff low", "ctl \x01\x1b\x7f\t\n\r", "é\u2028😀", "plain"]


def store_and_read() -> dict[str, Any]:
    """Store a run's outcome holding every awkward character, then read it through the API (any database)."""
    from rest_framework.test import APIClient

    from jobs.models import JobRun, RunStatus, SqlJob
    from jobs.services.runs import run_finish, run_log_lines
    from teams.models import Role
    from tests.factories import MembershipFactory, TeamFactory, UserFactory

    team = TeamFactory(name=f"chars-{uuid.uuid4().hex[:8]}")
    user = UserFactory()
    MembershipFactory(team=team, user=user, role=Role.VIEWER)
    job = SqlJob.objects.create(team=team, name="chars", sql="SELECT 1")
    run = JobRun.objects.create(job=job, team=team, sql=job.sql, status=RunStatus.RUNNING, attempt=1)
    run_log_lines(run_id=run.id, lines=[("INFO", f"live line {CELLS[0]} {CELLS[1]}")])
    statement = {"index": 0, "sql": f"SELECT '{CELLS[0]}'", "status": "failed", "started_at": None, "elapsed_ms": 1,
                 "rows": 1, "truncated": False, "line": 1, "column": 1, "start": 0, "end": 9,
                 "error": f"bad {CELLS[0]} {CELLS[1]}"}
    final = run_finish(run=run, succeeded=False, error={"statement": 0, "line": 1, "column": 1,
                                                        "message": f"bad {CELLS[0]} {CELLS[1]}"},
                       statements=[statement], catalogs_used=[], progress={},
                       result={"columns": [{"name": f"c{i}", "type": "string"} for i in range(len(CELLS))],
                               "rows": [CELLS, [{"k\x00": [CELLS[0]]}] * len(CELLS)], "truncated": False},
                       log_lines=[("ERROR", f"end line {CELLS[0]} {CELLS[2]}")])
    client = APIClient()
    client.force_authenticate(user)
    api = f"/api/v1/teams/{team.name}/runs/{run.id}"
    detail, result, log = (client.get(f"{api}{tail}") for tail in ("/", "/result/", "/log/"))
    return {"final": str(final), "status": [detail.status_code, result.status_code, log.status_code],
            "detail": detail.json(), "result": result.json(), "log": [line["message"] for line in log.json()["lines"]]}


def check(read: dict[str, Any]) -> None:
    assert read["final"] == "FAILED" and read["status"] == [200, 200, 200], read
    assert read["result"]["rows"] == [SHOWN, [{"k\\u0000": [SHOWN[0]]}] * len(SHOWN)]
    assert read["detail"]["error"]["message"] == f"bad {SHOWN[0]} {SHOWN[1]}"
    assert read["detail"]["statements"][0]["error"] == f"bad {SHOWN[0]} {SHOWN[1]}"
    assert read["detail"]["statements"][0]["sql"] == f"SELECT '{SHOWN[0]}'"
    assert f"live line {SHOWN[0]} {SHOWN[1]}" in read["log"] and f"end line {SHOWN[0]} {SHOWN[2]}" in read["log"]


@pytest.mark.django_db
def test_any_character_stores_on_postgresql() -> None:
    check(store_and_read())


SQLITE = """
import json, django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
from tests.jobs.test_result_storage import store_and_read
print("READ" + json.dumps(store_and_read()))
"""


def test_any_character_stores_on_the_default_sqlite(tmp_path: Path) -> None:
    """`make run`'s settings: config.settings.local on a fresh SQLite database."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_URL", "CELERY_"))}
    env.update({"DJANGO_SETTINGS_MODULE": "config.settings.local", "LAKEPORT_DATA_DIR": str(tmp_path),
                "LAKEPORT_SECRET_KEYS": "o1cQ3W2-OM0oTzqY1xs8nLzZ3a1ayTz0H5m2G0cOqdk="})
    done = subprocess.run([sys.executable, "-c", SQLITE], cwd=REPO, env=env, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert any(tmp_path.rglob("*.sqlite3")), list(tmp_path.rglob("*"))  # it really was SQLite
    check(json.loads(next(x for x in done.stdout.splitlines() if x.startswith("READ"))[len("READ"):]))


def test_storable_keeps_everything_else() -> None:
    value = {"k": ["a", 1, 2.5, None, True, {"n": "\x00"}], "t": ("\ud83d",)}
    assert storable(value) == {"k": ["a", 1, 2.5, None, True, {"n": "\\u0000"}], "t": ("\\ud83d",)}
    assert storable("no change") == "no change"


def test_a_result_is_cut_to_the_limit_and_flagged() -> None:
    columns = [{"name": "n", "type": "int"}, {"name": "s", "type": "string"}]
    whole = {"columns": columns, "rows": [[i, "x" * 100] for i in range(10)], "truncated": False}
    assert result_bounded(whole, max_bytes=10_000).cut == ""  # fits: unchanged
    cut = result_bounded(whole, max_bytes=600)
    assert cut.result is not None and cut.result["truncated"] and "600 bytes" in cut.cut
    assert json_size(cut.result) <= 600 and cut.result["rows"][0] == [0, "x" * 100]
    huge = result_bounded({"columns": columns, "rows": [[1, "é" * 1_000_000]], "truncated": False}, max_bytes=5_000)
    assert huge.result is not None and json_size(huge.result) <= 5_000
    [[n, text]] = huge.result["rows"]
    assert n == 1 and text.startswith("éé") and text.endswith("…") and "shortened" in huge.cut
    tiny = result_bounded({"columns": columns, "rows": [[1, "y" * 500]], "truncated": False}, max_bytes=120)
    assert tiny.result is not None and tiny.result["rows"] == [] and tiny.result["truncated"]
