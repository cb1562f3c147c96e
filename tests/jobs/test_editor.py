"""The editor's validate and preview endpoints: answered by the team's engine in a real worker (never in-process)."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

from catalogs.models import Catalog
from tests.jobs.conftest import PG_PASSWORD
from tests.jobs.test_jobs_api import error_of

pytestmark = [pytest.mark.django_db(transaction=True)]

VALIDATE = "/api/v1/teams/acme/sql/validate/"
PREVIEW = "/api/v1/teams/acme/sql/preview/"


@pytest.fixture(autouse=True)
def _worker(celery_worker: Any) -> None:
    """Editor calls go to a worker, which runs them in the team's engine."""


def order_count(pg_source: Any) -> int:
    with psycopg.connect(pg_source.dsn) as conn:
        return conn.execute("SELECT count(*) FROM public.orders").fetchone()[0]


def test_validate_a_good_script_returns_the_last_querys_schema(developer_client: Any, pg_catalog: Catalog) -> None:
    sql = "USE CATALOG pg;\nSELECT id, customer, amount * 2 AS doubled FROM public.orders"
    body = developer_client.post(VALIDATE, {"sql": sql}, format="json").json()
    assert body == {"valid": True, "errors": [], "schema": [
        {"name": "id", "type": "int"}, {"name": "customer", "type": "string"},
        {"name": "doubled", "type": "decimal(12,2)"}], "statements": [
        {"index": 0, "start": 0, "end": 14, "line": 1}, {"index": 1, "start": 16, "end": len(sql), "line": 2}],
        "checked": "full"}


@pytest.mark.parametrize(
    ("sql", "statement", "line", "text"),
    [
        ("SELECT 1;\nSELECT * FROM pg.public.orders WHERE id = ;", 1, 2, "Syntax error"),
        ("SELECT 1;\n\n  SELECT * FROM ghost.public.t", 1, 3, "Unknown catalog 'ghost'"),
        ("SELECT nope FROM pg.public.orders", 0, 1, "nope"),
        ("SELECT * FROM pg.public.no_such_table", 0, 1, "no_such_table"),
        ("SELECT 'unterminated", 0, 1, ""),
    ],
)
def test_validate_reports_errors_with_statement_line_and_column(
    developer_client: Any, pg_catalog: Catalog, sql: str, statement: int, line: int, text: str
) -> None:
    response = developer_client.post(VALIDATE, {"sql": sql}, format="json")
    assert response.status_code == 200
    body = response.json()
    assert body["valid"] is False and body["schema"] == []
    error = body["errors"][0]
    assert (error["statement"], error["line"]) == (statement, line)
    assert isinstance(error["column"], int) and error["column"] >= 1
    assert text in error["message"]


def test_validate_never_executes_a_statement(developer_client: Any, pg_catalog: Catalog, pg_source: Any) -> None:
    sql = "INSERT INTO pg.public.orders VALUES (9, 'zed', 1.00);\nSELECT count(*) AS n FROM pg.public.orders"
    body = developer_client.post(VALIDATE, {"sql": sql}, format="json").json()
    assert body["valid"] is True and body["schema"] == [{"name": "n", "type": "bigint"}]
    assert order_count(pg_source) == 3


def test_validate_an_empty_script(developer_client: Any) -> None:
    body = developer_client.post(VALIDATE, {"sql": "  \n"}, format="json").json()
    assert body["valid"] is False and body["errors"][0]["message"] == "The SQL script is empty."


def test_preview_returns_rows_within_the_limit(developer_client: Any, pg_catalog: Catalog) -> None:
    response = developer_client.post(PREVIEW, {"sql": "SELECT id, customer FROM pg.public.orders ORDER BY id",
                                               "limit": 2}, format="json")
    assert response.status_code == 200, response.json()
    assert response.json() == {"columns": [{"name": "id", "type": "int"}, {"name": "customer", "type": "string"}],
                               "rows": [[1, "ann"], [2, "bob"]], "truncated": True}
    full = developer_client.post(PREVIEW, {"sql": "USE CATALOG pg;\nSELECT count(*) AS n FROM public.orders"},
                                 format="json").json()
    assert full == {"columns": [{"name": "n", "type": "bigint"}], "rows": [[3]], "truncated": False}


@pytest.mark.parametrize(
    "sql",
    [
        "INSERT INTO pg.public.orders VALUES (9, 'zed', 1.00)",
        "WITH x AS (SELECT 9 AS id, 'zed' AS customer, 1.00 AS amount) INSERT INTO pg.public.orders SELECT * FROM x",
        "CREATE TABLE pg.public.made_by_preview (id int)",
        "DROP TABLE pg.public.orders",
        "DELETE FROM pg.public.orders",
        "SELECT 1; INSERT INTO pg.public.orders VALUES (9, 'zed', 1.00)",
        "CACHE TABLE c AS SELECT 1",
    ],
)
def test_preview_refuses_statements_that_write(
    developer_client: Any, pg_catalog: Catalog, pg_source: Any, sql: str
) -> None:
    response = developer_client.post(PREVIEW, {"sql": sql}, format="json")
    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == "invalid" and ("write" in error["message"] or "one query" in error["message"])
    assert order_count(pg_source) == 3
    with psycopg.connect(pg_source.dsn) as conn:
        assert conn.execute("SELECT to_regclass('public.made_by_preview')").fetchone()[0] is None


@pytest.mark.parametrize(
    ("body", "text"),
    [
        ({"sql": ""}, "empty"),
        ({"sql": "SELECT * FROM ghost.db.t"}, "Unknown catalog 'ghost'"),
        ({"sql": "SELECT * FROM pg.public.orders WHERE id ="}, "Syntax error"),
        ({"sql": "SELECT 1", "limit": 0}, "limit"),
        ({"sql": "SELECT 1", "limit": 100000}, "limit"),
    ],
)
def test_preview_bad_input_is_a_clear_400(developer_client: Any, pg_catalog: Catalog, body: dict, text: str) -> None:
    response = developer_client.post(PREVIEW, body, format="json")
    assert response.status_code == 400
    error = error_of(response)
    assert text in error["message"] + str(error["details"])
    assert PG_PASSWORD not in str(response.json())


def test_a_jobs_parameters_are_rendered_for_validate_and_preview(
        developer_client: Any, pg_catalog: Catalog, client_for: Any, other_team: Any) -> None:
    """A parameterised job opened in the editor validates and previews as its run would: `${name}` as typed
    literals (defaults, or the values sent), positions in the script as written, unknown names named."""
    job = developer_client.post("/api/v1/teams/acme/jobs/", {
        "name": "big orders", "sql": "SELECT id FROM pg.public.orders WHERE amount >= ${min_amount}",
        "parameters": {"min_amount": {"type": "decimal", "default": "15"}}}, format="json").json()
    sql = "SELECT id, ${ds} AS day\nFROM pg.public.orders WHERE amount >= ${min_amount} AND = 1"
    body = developer_client.post(VALIDATE, {"sql": sql, "job": job["id"]}, format="json").json()
    error = body["errors"][0]
    assert body["valid"] is False and "Syntax error" in error["message"]
    # Spark points at AND; the column is where AND is written, after `${min_amount}`, not where the literal put it
    assert (error["line"], error["column"]) == (2, sql.splitlines()[1].index("AND =") + 1), error

    good = "SELECT id FROM pg.public.orders WHERE amount >= ${min_amount} ORDER BY id"
    assert developer_client.post(VALIDATE, {"sql": good, "job": job["id"]}, format="json").json()["valid"] is True
    default = developer_client.post(PREVIEW, {"sql": good, "job": job["id"]}, format="json")
    assert default.status_code == 200, default.content
    given = developer_client.post(PREVIEW, {"sql": good, "job": job["id"], "parameters": {"min_amount": "0"}},
                                  format="json").json()
    assert len(given["rows"]) > len(default.json()["rows"])  # the value sent wins over the default

    unknown = developer_client.post(VALIDATE, {"sql": "SELECT 1 AS a,\n  ${limit} AS b"}, format="json").json()
    assert unknown["errors"][0]["line"] == 2 and unknown["errors"][0]["column"] == 3
    assert "Unknown parameter '${limit}'" in unknown["errors"][0]["message"]
    injected = developer_client.post(PREVIEW, {"sql": good, "job": job["id"], "parameters": {
        "min_amount": "0; DROP TABLE x"}}, format="json")
    assert injected.status_code == 400 and "min_amount" in error_of(injected)["message"]
    globex_job = client_for("developer", other_team).post("/api/v1/teams/globex/jobs/", {
        "name": "theirs", "sql": "SELECT 1"}, format="json").json()
    assert developer_client.post(VALIDATE, {"sql": good, "job": globex_job["id"]}, format="json").status_code == 404
