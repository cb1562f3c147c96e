"""Findings (issue 28, low) about what a run, a validate and a preview give back, replayed through the public API
as a developer of team acme on a real worker, team engine, PostgreSQL and MariaDB:

- a NUL character in a result crashed the worker task ("worker lost" ~80 s later): NUL and control characters in
  cells, error messages and log lines are stored, and the run ends normally;
- a 60 MB single-cell result was stored with the run: results are cut at LAKEPORT_RESULT_MAX_BYTES, flagged
  `truncated`, and the run's log names the setting (the run still SUCCEEDS); previews are cut the same way;
- JDBC errors returned Java stack traces in API bodies: run errors, statement errors, log lines, validate and
  preview answers carry the server's message but no JVM frame;
- the OpenLineage SQL facet and the Spark UI's SQL tab carried secrets a user typed: the catalog's password typed
  as a literal, and `password=…` / `OPTIONS (password '…')` spellings, are masked in every OpenLineage event and
  in the plan descriptions of the Spark UI (its REST API, what the SQL tab shows).
"""

from __future__ import annotations

import html
import json
import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from catalogs.models import Catalog
from catalogs.secrets import seal_configuration
from jobs.engines.spark_ui import ui_token
from jobs.models import JobRun, RunStatus, SqlJob
from lakeport_engine.catalog_types.jdbc import JdbcConfig
from teams.models import Role, Team
from tests.jobs.conftest import PG_PASSWORD, running_worker, wait_status
from tests.support.leakscan import file_text
from tests.support.worker import Worker

pytestmark = pytest.mark.django_db(transaction=True)

MAX_BYTES = 100_000  # the worker's LAKEPORT_RESULT_MAX_BYTES in this module
OL_FILE = "ol-events.jsonl"
TYPED = "hunter2-Typed-77x"  # a value typed after `password=`: masked by shape, never registered anywhere
OPTION_SECRET = "S3cr3t-Opt-Value9"
JVM_FRAME = re.compile(r"^\s*at [\w$.]+\(|Caused by:|Driver stacktrace|\.\.\. \d+ more", re.MULTILINE)
API = "/api/v1/teams/acme"


@pytest.fixture(scope="module")
def ol_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("openlineage")


@pytest.fixture(scope="module")
def worker(django_db_setup: Any, django_db_blocker: Any, tmp_path_factory: pytest.TempPathFactory,
           ol_dir: Path) -> Iterator[Worker]:
    transport = json.dumps({"type": "file", "log_file_path": str(ol_dir / OL_FILE), "append": True})
    with running_worker(tmp_path_factory, "outputs-worker", beat=False, env={
            "LAKEPORT_OPENLINEAGE_TRANSPORT": transport, "LAKEPORT_RESULT_MAX_BYTES": str(MAX_BYTES),
            "LAKEPORT_SPARK_EVENT_LOG_DIR": str(ol_dir / "spark-events" / "{team}"),  # for a history server
            # the Spark UI on (test workers turn it off), to read its SQL tab
            "LAKEPORT_SPARK_STATIC_CONF": "spark.driver.memory=1g,spark.sql.shuffle.partitions=2"}) as started:
        yield started


@pytest.fixture
def pg(team: Team, pg_source: Any) -> Catalog:
    """JDBC catalog `pg` on a PostgreSQL database with public.orders and a view that divides by zero when read."""
    with psycopg.connect(pg_source.dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE public.orders (id int primary key, customer text)")
        conn.execute("INSERT INTO public.orders VALUES (1, 'ann'), (2, 'bob')")
        conn.execute("CREATE VIEW public.ratio AS SELECT id, 100 / (id - id) AS boom FROM public.orders")
    config = JdbcConfig.model_validate({
        "type": "postgresql", "base-url": "jdbc:postgresql://127.0.0.1:5432/", "default-database": pg_source.name,
        "username": "postgres", "password": PG_PASSWORD})
    return Catalog.objects.create(team=team, catalog_type="jdbc", catalog_name="pg",
                                  configuration=seal_configuration(config))


@pytest.fixture
def maria(team: Team, mariadb_source: Any) -> Catalog:
    """JDBC catalog `maria` on a MariaDB database with a view over a dropped table (the server errors on read)."""
    with mariadb_source.connect() as conn, conn.cursor() as cur:
        cur.execute("CREATE TABLE gone (a INT)")
        cur.execute("CREATE VIEW broken AS SELECT a FROM gone")
        cur.execute("DROP TABLE gone")
        cur.execute("CREATE TABLE fine (a INT)")
        cur.execute("INSERT INTO fine VALUES (1)")
    config = JdbcConfig.model_validate({
        "type": "mysql", "base-url": f"jdbc:mysql://{mariadb_source.host}:{mariadb_source.port}/",
        "default-database": mariadb_source.name, "username": mariadb_source.user,
        "password": mariadb_source.password})
    return Catalog.objects.create(team=team, catalog_type="jdbc", catalog_name="maria",
                                  configuration=seal_configuration(config))


def run_of(client: Any, team: Team, sql: str) -> tuple[JobRun, dict[str, Any]]:
    """Submit `sql` as a job's run (the job made directly: its raw script is never an API answer here)."""
    job = SqlJob.objects.create(team=team, name=f"job-{uuid.uuid4().hex[:12]}", sql=sql)
    response = client.post(f"{API}/jobs/{job.id}/runs/", {}, format="json")
    assert response.status_code == 201, response.json()
    done = wait_status(response.json()["id"], RunStatus.SUCCEEDED, RunStatus.FAILED)
    return done, client.get(f"{API}/runs/{done.id}/").json()


def log_of(client: Any, run_id: int) -> str:
    return "\n".join(line["message"] for line in client.get(f"{API}/runs/{run_id}/log/").json()["lines"])


def test_nul_and_control_characters_survive_storage(worker: Worker, team: Team, client_for: Any, pg: Catalog) -> None:
    dev = client_for(Role.DEVELOPER)
    run, body = run_of(dev, team, "SELECT concat('a', chr(0), 'b') AS nul, concat('x', chr(1), chr(27), chr(127), "
                                  "'\\t', '\\u00e9\\u2028') AS ctl, customer FROM pg.public.orders ORDER BY id")
    assert run.status == RunStatus.SUCCEEDED, (run.error, body)
    result = dev.get(f"{API}/runs/{run.id}/result/").json()
    # NUL is shown escaped (PostgreSQL stores no NUL; documented in docs/jobs.md); every other character as it is
    assert result["rows"] == [["a\\u0000b", "x\x01\x1b\x7f\t\u00e9\u2028", "ann"],
                              ["a\\u0000b", "x\x01\x1b\x7f\t\u00e9\u2028", "bob"]]
    # a NUL inside an error message (the statement raises it) and the log line that repeats it
    failed, body = run_of(dev, team, "SELECT raise_error(concat('7', chr(0), ' is not a number')) AS n")
    assert failed.status == RunStatus.FAILED, body
    assert "7\\u0000" in body["error"]["message"] and "\x00" not in body["error"]["message"]
    assert "7\\u0000" in log_of(dev, failed.id)
    # the editor shows the same escaped value
    preview = dev.post(f"{API}/sql/preview/", {"sql": "SELECT concat('a', chr(0), 'b') AS nul"}, format="json")
    assert preview.status_code == 200, preview.json()
    assert preview.json()["rows"] == [["a\\u0000b"]]


def test_a_huge_result_is_cut_to_the_size_limit(worker: Worker, team: Team, client_for: Any, settings: Any) -> None:
    settings.LAKEPORT_RESULT_MAX_BYTES = MAX_BYTES  # the web process answers previews (the worker has it already)
    dev = client_for(Role.DEVELOPER)
    run, body = run_of(dev, team, "SELECT 1 AS n, repeat('x', 3000000) AS big")
    assert run.status == RunStatus.SUCCEEDED, (run.error, body)
    stored = run.result
    assert stored is not None and stored["truncated"] is True
    assert len(json.dumps(stored).encode()) <= MAX_BYTES
    [[n, big]] = dev.get(f"{API}/runs/{run.id}/result/").json()["rows"]
    assert n == 1 and big.startswith("xxxx") and big.endswith("…") and len(big) > MAX_BYTES // 4
    assert "LAKEPORT_RESULT_MAX_BYTES" in log_of(dev, run.id) and str(MAX_BYTES) in log_of(dev, run.id)

    # many ordinary rows: whole rows are kept up to the limit
    run, body = run_of(dev, team, "SELECT id, repeat('y', 3000) AS pad FROM range(90)")
    assert run.status == RunStatus.SUCCEEDED, (run.error, body)
    result = dev.get(f"{API}/runs/{run.id}/result/").json()
    assert result["truncated"] is True and 25 < len(result["rows"]) < 40  # ~3 KB a row of 100 KB
    *whole, last = result["rows"]
    assert [r[0] for r in result["rows"]] == list(range(len(result["rows"])))
    assert all(r[1] == "y" * 3000 for r in whole) and (last[1] == "y" * 3000 or last[1].endswith("y…"))

    preview = dev.post(f"{API}/sql/preview/", {"sql": "SELECT 1 AS n, repeat('x', 3000000) AS big"}, format="json")
    assert preview.status_code == 200
    assert preview.status_code == 200 and preview.json()["truncated"] is True
    assert len(preview.content) <= MAX_BYTES + 1000 and preview.json()["rows"][0][1].endswith("x…")


def assert_no_frames(text: str, where: str) -> None:
    assert not JVM_FRAME.search(text), (where, text[:3000])


def test_jdbc_errors_carry_no_jvm_frames(worker: Worker, team: Team, client_for: Any, pg: Catalog,
                                         maria: Catalog, mariadb_source: Any) -> None:
    dev = client_for(Role.DEVELOPER)
    cases = [("SELECT * FROM pg.public.ratio", "division by zero"),  # PostgreSQL errors while the task reads
             ("SELECT * FROM pg.public.nope", "nope"),  # a bad table
             (f"SELECT * FROM maria.{mariadb_source.name}.broken", "broken")]  # MariaDB: a view over a dropped table
    for sql, named in cases:
        run, body = run_of(dev, team, sql)
        assert run.status == RunStatus.FAILED, body
        message = body["error"]["message"]
        assert named in message.lower(), (sql, message)
        assert_no_frames(json.dumps(body), f"run {sql}")
        assert_no_frames(log_of(dev, run.id), f"log {sql}")
        validate = dev.post(f"{API}/sql/validate/", {"sql": sql}, format="json")
        assert validate.status_code == 200, validate.content[:500]
        assert_no_frames(validate.content.decode(), f"validate {sql}")
        preview = dev.post(f"{API}/sql/preview/", {"sql": sql}, format="json")
        assert preview.status_code == 400 and named in preview.json()["error"]["message"].lower(), preview.json()
        assert_no_frames(preview.content.decode(), f"preview {sql}")


def _event_log_text(path: Path) -> str:
    """A Spark event log file's text: Spark 4 writes them zstd-compressed (`spark.eventLog.compress`)."""
    text = file_text(path)
    assert text is not None, path
    return text


def _ui_json(client: Any, path: str) -> Any:
    """A Spark UI REST answer through Lakeport's proxy (the engine's port answers nobody else)."""
    response = client.get(path)
    assert response.status_code == 200, path
    return json.loads(b"".join(response.streaming_content))


def test_typed_secrets_never_reach_openlineage_or_spark_ui_plans(worker: Worker, team: Team, client_for: Any,
                                                                 pg: Catalog, ol_dir: Path) -> None:
    dev = client_for(Role.DEVELOPER)
    # the catalog's own password typed as a literal (results mask it) and a JDBC-style `password=` fragment
    run, body = run_of(dev, team, f"SELECT customer, '{PG_PASSWORD}' AS typed, 'jdbc:x://h/db?password={TYPED}' "
                                  f"AS url FROM pg.public.orders WHERE customer <> 'password={TYPED}' ORDER BY id")
    assert run.status == RunStatus.SUCCEEDED, (run.error, body)
    rows = dev.get(f"{API}/runs/{run.id}/result/").json()["rows"]
    assert [r[1] for r in rows] == ["***", "***"]  # as before: results mask a registered secret
    # an inline JDBC source with its password in OPTIONS: refused by the guard, but its text still travels
    refused, body = run_of(dev, team, "CREATE TABLE loot USING jdbc OPTIONS (url 'jdbc:postgresql://h/db', "
                                      f"user 'u', password '{OPTION_SECRET}', dbtable 't')")
    assert refused.status == RunStatus.FAILED
    assert OPTION_SECRET not in json.dumps(body) and OPTION_SECRET not in log_of(dev, refused.id)

    events = [json.loads(line) for line in (ol_dir / OL_FILE).read_text().splitlines() if line.strip()]
    ours = [e for e in events if e["job"]["name"] in (run.job.name, refused.job.name)]
    assert {e["eventType"] for e in ours} >= {"START", "COMPLETE", "FAIL"}, [e["eventType"] for e in ours]
    text = json.dumps(ours)
    for secret in (PG_PASSWORD, TYPED, OPTION_SECRET):
        assert secret not in text, secret
    assert all("***" in e["job"]["facets"]["sql"]["query"] for e in ours)  # the SQL is there, masked

    # the SQL tab's plan descriptions, through the Spark UI's REST API (the tab renders the same store)
    assert run.spark_ui_url and run.spark_app_id
    executions = _ui_json(dev, f"/t/{team.name}/runs/{run.id}/spark/api/v1/applications/{run.spark_app_id}/sql"
                               "?details=true&planDescription=true&length=1000")
    plans = [e["planDescription"] for e in executions if "orders" in e["planDescription"]]
    assert plans, [e["planDescription"][:200] for e in executions]
    for plan in plans:
        assert PG_PASSWORD not in plan and TYPED not in plan, plan
    assert any("redacted" in plan for plan in plans)
    # the SQL tab's graph: its node labels are the typed SQL (Spark does not redact them); the proxy masks them
    ours_exec = [e for e in executions if "orders" in e["planDescription"]]
    for execution in ours_exec:
        page = dev.get(f"/t/{team.name}/runs/{run.id}/spark/SQL/execution/?id={execution['id']}")
        assert page.status_code == 200
        text = b"".join(page.streaming_content).decode()
        assert "orders" in text and "***" in text  # the graph is there, the typed password masked in it
        assert PG_PASSWORD not in text and html.escape(PG_PASSWORD) not in text
    assert PG_PASSWORD not in json.dumps(executions)

    # the team's Spark event log (what a history server shows once the engine is gone): the run's query is there.
    # Like the SQL tab's graph, its plan node labels keep literals the user typed (docs/security.md, known gaps).
    events_dir = ol_dir / "spark-events" / team.name  # Spark 4 rolls event logs: a directory per application
    logs = [p for p in events_dir.rglob("*") if p.is_file() and run.spark_app_id in str(p)]
    assert logs, list(events_dir.rglob("*"))
    events_text = "".join(_event_log_text(p) for p in logs)
    assert "SparkListenerSQLExecutionStart" in events_text and "orders" in events_text
    # the engine's environment and conf as logged: no catalog password, typed secret or UI token
    environments = [line for line in events_text.splitlines() if "SparkListenerEnvironmentUpdate" in line]
    assert environments
    for secret in (PG_PASSWORD, TYPED, OPTION_SECRET, ui_token(team.name)):
        assert all(secret not in line for line in environments), secret
    # the refused statement never ran, and the UI's token is never in Spark's hands as data
    assert OPTION_SECRET not in events_text and ui_token(team.name) not in events_text
    # The known gap (docs/security.md), pinned so that a fix shows here: the SQL graph's node labels in the event
    # log keep the password this test typed as a literal. The log goes once read, so that the session's leak scan
    # (which reads zstd event logs) judges every other file rather than this deliberate one.
    assert PG_PASSWORD in events_text
    for path in logs:
        path.unlink()
