"""Statement boundaries from the API: `sql/validate/` and a run's statements say where each statement is, so the
browser never splits a script itself (real worker, the team's engine, PostgreSQL)."""

from __future__ import annotations

from typing import Any

import pytest

from jobs.models import JobRun, RunStatus
from tests.jobs.conftest import wait_status
from tests.jobs.test_worker_runs import create_job, submit
from tests.support.worker import Worker

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.spark]

VALIDATE = "/api/v1/teams/acme/sql/validate/"
RUNS = "/api/v1/teams/acme/runs/"

# `;` in a block comment, a nested block comment, strings, a quoted name and `--` comments; an emoji (two UTF-16
# units, one character) and accented letters before the third statement, which fails.
SCRIPT = (
    "/* setup; not a statement */\n"
    "SELECT ';' AS semi, \"a;b\" AS dq; -- trailing; comment\n"
    "SELECT 1 AS `prénom;😀`, '😀 émoji;' AS s /* inner ; */ ;\n"
    "-- a comment; with semicolons\n"
    "/* nested /* ; */ still ; a comment */\n"
    "SELECT nope FROM range(3)"
)
TEXTS = [
    "SELECT ';' AS semi, \"a;b\" AS dq",
    "SELECT 1 AS `prénom;😀`, '😀 émoji;' AS s",
    "SELECT nope FROM range(3)",
]


@pytest.fixture(autouse=True)
def _worker(celery_worker: Worker) -> None:
    """Validate and runs go to a worker, which runs them in the team's engine."""


def js_slice(text: str, start: int, end: int) -> str:
    """`text[start:end]` as JavaScript indexes a string (UTF-16 code units)."""
    return text.encode("utf-16-le")[2 * start:2 * end].decode("utf-16-le")


def js_index(text: str, part: str) -> int:
    return len(text[:text.index(part)].encode("utf-16-le")) // 2


def test_validate_says_where_each_statement_is_in_javascript_units(developer_client: Any) -> None:
    body = developer_client.post(VALIDATE, {"sql": SCRIPT}, format="json").json()
    spans = body["statements"]
    assert [s["index"] for s in spans] == [0, 1, 2]
    assert [js_slice(SCRIPT, s["start"], s["end"]) for s in spans] == TEXTS
    assert [s["line"] for s in spans] == [2, 3, 6]
    # the emojis before the third statement count twice: a Python index would be two short
    assert spans[2]["start"] == js_index(SCRIPT, TEXTS[2]) == SCRIPT.index(TEXTS[2]) + 2


def test_an_error_in_the_third_statement_names_the_third_span(developer_client: Any) -> None:
    body = developer_client.post(VALIDATE, {"sql": SCRIPT}, format="json").json()
    assert body["valid"] is False
    [error] = body["errors"]
    assert error["statement"] == 2 and "nope" in error["message"]
    span = body["statements"][error["statement"]]
    assert js_slice(SCRIPT, span["start"], span["end"]) == "SELECT nope FROM range(3)"
    assert error["line"] == span["line"] == 6


def test_an_untokenizable_script_still_has_spans(developer_client: Any) -> None:
    sql = "SELECT 1;\nSELECT 'open; -- never closed"
    body = developer_client.post(VALIDATE, {"sql": sql}, format="json").json()
    assert body["errors"][0]["statement"] == 1 and body["errors"][0]["line"] == 2
    assert [js_slice(sql, s["start"], s["end"]) for s in body["statements"]] == [
        "SELECT 1", "SELECT 'open; -- never closed"]


def test_an_empty_script_has_no_statements(developer_client: Any) -> None:
    body = developer_client.post(VALIDATE, {"sql": "  \n"}, format="json").json()
    assert body["statements"] == [] and body["valid"] is False


def test_a_runs_statements_say_where_they_start_in_its_script(developer_client: Any) -> None:
    sql = "SELECT '😀;' AS smile; /* ; */ SELECT 2 AS two;\n-- x;\nSELECT no_such_column\n  FROM range(3);\nSELECT 4"
    run = submit(developer_client, create_job(developer_client, sql))
    assert wait_status(run["id"], RunStatus.SUCCEEDED, RunStatus.FAILED).status == RunStatus.FAILED
    body = developer_client.get(f"{RUNS}{run['id']}/").json()
    statements = body["statements"]
    assert [s["status"] for s in statements] == ["succeeded", "succeeded", "failed", "skipped"]
    assert [js_slice(sql, s["start"], s["end"]) for s in statements] == [s["sql"] for s in statements] == [
        "SELECT '😀;' AS smile", "SELECT 2 AS two", "SELECT no_such_column\n  FROM range(3)", "SELECT 4"]
    assert [(s["line"], s["column"]) for s in statements] == [(1, 1), (1, 31), (3, 1), (5, 1)]
    # the failed statement's `line` is where it starts; where it failed is the run's error
    assert body["error"]["statement"] == 2 and body["error"]["line"] >= 3


def test_a_run_recorded_before_spans_is_served_without_them(developer_client: Any, make_job: Any) -> None:
    job = make_job("SELECT 1;\nSELECT bad")
    old = [{"index": 0, "sql": "SELECT 1", "status": "succeeded", "line": 1, "column": 1, "error": None},
           {"index": 1, "sql": "SELECT bad", "status": "failed", "line": 2, "column": 8, "error": "bad"}]
    run = JobRun.objects.create(job=job, team=job.team, sql=job.sql, status=RunStatus.FAILED, statements=old,
                                error={"statement": 1, "line": 2, "column": 8, "message": "bad"})
    statements = developer_client.get(f"{RUNS}{run.id}/").json()["statements"]
    assert [(s["start"], s["end"]) for s in statements] == [(None, None), (None, None)]
    assert [(s["line"], s["column"]) for s in statements] == [(1, 1), (None, None)]  # 2:8 was where it failed


def test_the_answer_the_editors_marker_tests_use(developer_client: Any) -> None:
    # frontend/src/features/sql-editor/hooks/diagnostics.test.ts marks this text with this answer
    sql = "SELECT '😀;' AS smile; /* ; */ SELECT nope FROM range(3);\n-- x;\nSELECT `prénom` FROM t"
    body = developer_client.post(VALIDATE, {"sql": sql}, format="json").json()
    assert body["statements"] == [{"index": 0, "start": 0, "end": 21, "line": 1},
                                  {"index": 1, "start": 31, "end": 56, "line": 1},
                                  {"index": 2, "start": 64, "end": 86, "line": 3}]
    assert (body["errors"][0]["statement"], body["errors"][0]["line"], body["errors"][0]["column"]) == (1, 1, 31)
