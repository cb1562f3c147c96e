"""Job parameters through the public API: typed `${name}` placeholders, per-run overrides, built-in `${ds}`/`${ts}`,
clear 400s naming the parameter, and values that can never close a string or add a statement."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import pytest

from jobs.models import JobRun
from jobs.services.parameters import ParameterError, render_script, resolve_values
from lakeport_engine.sqltext import split_statements

SQL = "SELECT * FROM t WHERE day = ${day} AND amount > ${min_amount} AND who = ${who} AND ok = ${ok} LIMIT ${n}"
PARAMS = {
    "day": {"type": "date", "default": "2026-01-31"},
    "min_amount": {"type": "decimal", "default": "10.50"},
    "who": {"type": "string", "default": "ann"},
    "ok": {"type": "boolean", "default": True},
    "n": {"type": "int", "default": 10},
}


@pytest.fixture
def dev(client_for: Any) -> Any:
    return client_for("developer")


def _job(dev: Any, sql: str = SQL, parameters: dict | None = None) -> dict:
    response = dev.post("/api/v1/teams/acme/jobs/", {"name": "daily", "sql": sql, "parameters": parameters or PARAMS},
                        format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def _submit(dev: Any, job_id: int, parameters: dict | None = None) -> Any:
    return dev.post(f"/api/v1/teams/acme/jobs/{job_id}/runs/", {"parameters": parameters or {}}, format="json")


def test_defaults_and_overrides_are_rendered_as_typed_literals_and_shown_in_the_run(dev: Any) -> None:
    job = _job(dev)
    assert job["parameters"]["day"] == {"type": "date", "default": "2026-01-31"}
    response = _submit(dev, job["id"], {"day": "2026-02-01", "n": "5"})
    assert response.status_code == 201, response.json()
    run = response.json()
    assert run["parameters"]["day"] == {"type": "date", "value": "2026-02-01"}
    assert run["parameters"]["n"] == {"type": "int", "value": "5"}
    assert run["parameters"]["ds"]["type"] == "date"
    stored = JobRun.objects.get(id=run["id"]).sql
    assert stored == ("SELECT * FROM t WHERE day = DATE '2026-02-01' AND amount > 10.50BD AND who = 'ann' "
                      "AND ok = TRUE LIMIT 5")
    # shown again on the run page's endpoint
    assert dev.get(f"/api/v1/teams/acme/runs/{run['id']}/").json()["parameters"]["who"]["value"] == "ann"


@pytest.mark.parametrize(("parameters", "named"), [
    ({"nope": "1"}, "nope"),                                 # unknown parameter
    ({"n": "5; DROP TABLE t"}, "n"),                         # injection into a number
    ({"day": "2026-01-01' OR '1'='1"}, "day"),               # injection into a date
    ({"ok": "yes"}, "ok"),
    ({"min_amount": "NaN"}, "min_amount"),
])
def test_bad_values_are_400_naming_the_parameter(dev: Any, parameters: dict, named: str) -> None:
    job = _job(dev)
    response = _submit(dev, job["id"], parameters)
    assert response.status_code == 400, response.json()
    error = response.json()["error"]
    assert f"'{named}'" in error["message"]
    assert named in error["details"]["parameters"]
    assert not JobRun.objects.filter(job_id=job["id"]).exists()


def test_a_string_value_stays_one_literal_whatever_it_holds(dev: Any) -> None:
    job = _job(dev, sql="SELECT ${who} AS who", parameters={"who": {"type": "string"}})
    attack = "x'; DROP TABLE t; -- \\' /* ${ds}"
    run = _submit(dev, job["id"], {"who": attack}).json()
    sql = JobRun.objects.get(id=run["id"]).sql
    statements = split_statements(sql)
    assert len(statements) == 1  # no statement added
    assert "DROP" not in sql.split("'", 1)[0] and sql.endswith("' AS who")
    assert run["parameters"]["who"]["value"] == attack
    assert "${" not in sql  # Spark's own ${…} substitution (confs, env) finds nothing in a value


def test_unknown_placeholder_and_quoted_placeholder_are_refused_when_the_job_is_saved(dev: Any) -> None:
    response = dev.post("/api/v1/teams/acme/jobs/", {"name": "j1", "sql": "SELECT ${missing}"}, format="json")
    assert response.status_code == 400
    assert "'${missing}'" in response.json()["error"]["message"]
    response = dev.post("/api/v1/teams/acme/jobs/", {"name": "j2", "sql": "SELECT * FROM t WHERE d = '${ds}'"},
                        format="json")
    assert response.status_code == 400
    assert "inside a string literal" in response.json()["error"]["message"]
    response = dev.post("/api/v1/teams/acme/jobs/", {"name": "j3", "sql": "SELECT 1", "parameters": {
        "x": {"type": "money"}}}, format="json")
    assert response.status_code == 400 and "'x'" in response.json()["error"]["message"]


def test_a_parameter_without_default_needs_a_value() -> None:
    values = resolve_values(declared={"n": {"type": "int", "default": None}}, overrides={},
                            logical_date=datetime(2026, 3, 29, 0, 30, tzinfo=UTC), time_zone="Europe/Berlin")
    with pytest.raises(ParameterError, match="'n' has no default"):
        render_script("SELECT ${n}", values)


def test_builtins_follow_the_logical_date_in_the_time_zone() -> None:
    # 23:30 UTC on 28 March is already 29 March in Berlin.
    values = resolve_values(declared={}, overrides=None, logical_date=datetime(2026, 3, 28, 23, 30, tzinfo=UTC),
                            time_zone="Europe/Berlin")
    rendered = render_script("SELECT ${ds}, ${ts}, x -${ds}", values)
    assert rendered.sql == ("SELECT DATE '2026-03-29', TIMESTAMP '2026-03-28 23:30:00+00:00', "
                            "x -DATE '2026-03-29'")
    negative = render_script("SELECT 1 -${n}", {"n": ("int", -5)})
    assert negative.sql == "SELECT 1 -(-5)"  # never `--5`, which would start a comment


def test_positions_in_a_rendered_script_map_back_to_where_they_were_written() -> None:
    written = "SELECT ${n} AS a,\n  x + ${n}, y FROM t WHERE d = ${ds}"
    rendered = render_script(written, {"n": ("int", 123456), "ds": ("date", date(2026, 1, 31))})
    lines = rendered.sql.splitlines()
    for token in ("x", "y FROM", "WHERE"):
        column = lines[1].index(token) + 1
        assert rendered.written_position(2, column) == (2, written.splitlines()[1].index(token) + 1), token
    assert rendered.written_position(1, lines[0].index("AS") + 1) == (1, written.index("AS") + 1)
    # inside a literal: the `${name}` it came from
    assert rendered.written_position(2, lines[1].index("DATE") + 3) == (2, written.splitlines()[1].index("${ds}") + 1)
