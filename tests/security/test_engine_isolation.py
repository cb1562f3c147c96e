"""Engine isolation, attacked through the public API as developers of two teams would (issues 12 and 28).

A real Celery worker running as root starts each team's engine as that team's own unprivileged OS user (created on
demand from the template `lakeport-test-t{team_id}`, deleted after the module); runs and editor calls of team acme
and team globex go through the API. Checked from the outside: the engine's /proc/<pid>/environ holds no platform
secret, it runs as its team's user in its team's scratch directory, the two teams never share a driver process or a
uid, catalogs reach an engine only for its own team, a SIGKILLed engine fails only its own team's run and the next
run gets a fresh engine, the web process never starts a JVM, and the Spark UI is on loopback with its kill links
off. With code execution in globex's engine (a native probe run as globex's engine user), acme's live engine's
memory and environment, its scratch and data directories and the platform's own files are out of reach. Attacks on
a run held mid-stage (tests/support/gate.py): another team cannot see its temporary view, the Spark UI's kill URLs
do not stop its stage, and a SIGKILL of its engine re-queues it (the job's `max_retries`) onto a fresh engine while
the other team's run carries on.
"""

from __future__ import annotations

import json
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.conf import settings
from rest_framework.test import APIClient

from catalogs.models import Catalog
from catalogs.secrets import seal_configuration
from jobs.models import TERMINAL_STATUSES, JobRun, RunStatus
from lakeport_engine.catalog_types.jdbc import JdbcConfig
from teams.models import Role, Team
from tests.jobs.conftest import PG_PASSWORD, running_worker, wait_status
from tests.support.engines import alive, engine_pid, engine_pids, run_log_text
from tests.support.gate import GATE_VIEW, Gate
from tests.support.probe import Probe
from tests.support.processes import descendants
from tests.support.servers import wait_until
from tests.support.worker import Worker

pytestmark = [pytest.mark.django_db(transaction=True)]

ENGINE_USERS = "lakeport-test-t{team_id}"  # one OS user per team, as in production (lakeport-t{team_id})
USER_PREFIX = ENGINE_USERS.split("{")[0]
# The worker's own directories, outside pytest's 0700 temp dirs so that engine users can pass through to theirs.
ISOLATION_ROOT = Path(tempfile.gettempdir()) / f"lakeport-isolation-{os.getpid()}"
SCRATCH_ROOT, DATA_DIR = ISOLATION_ROOT / "engines", ISOLATION_ROOT / "var"
# Values the worker holds and an engine must never see (the worker's env carries them all).
PLATFORM_SECRETS = {"DJANGO_SECRET_KEY": "isolation-test-django-secret", "AWS_SECRET_ACCESS_KEY": "aws-Secr3t-platform"}
LONG_QUERY = "SELECT count(*) FROM range(0, 40000000000)"


@pytest.fixture(scope="module")
def engine_worker(django_db_setup: Any, django_db_blocker: Any,
                  tmp_path_factory: pytest.TempPathFactory) -> Iterator[Worker]:
    """A worker as root whose engines run as their team's own user, with the Spark UI on (to attack it)."""
    if os.geteuid() != 0:
        pytest.fail("this suite runs as root (as `make run` does here): the engine users are what it proves")
    DATA_DIR.mkdir(parents=True)
    ISOLATION_ROOT.chmod(0o711)
    # A key file an operator left readable (the platform started without `make run`'s umask): the worker closes it.
    (DATA_DIR / "secret-keys").write_text(PLATFORM_SECRETS["DJANGO_SECRET_KEY"])
    (DATA_DIR / "secret-keys").chmod(0o644)
    try:
        with running_worker(tmp_path_factory, "isolation-worker", hostname="isolation@%h", env={
            "LAKEPORT_ENGINE_USER": ENGINE_USERS, "LAKEPORT_ENGINE_SCRATCH_DIR": str(SCRATCH_ROOT),
            "LAKEPORT_DATA_DIR": str(DATA_DIR), "LAKEPORT_SPARK_STATIC_CONF": "spark.driver.memory=1g,"
            "spark.sql.shuffle.partitions=2", **PLATFORM_SECRETS}, concurrency=3) as worker:
            yield worker
    finally:
        for entry in pwd.getpwall():
            if entry.pw_name.startswith(USER_PREFIX):
                subprocess.run(["userdel", "--force", entry.pw_name], capture_output=True, check=False)
        shutil.rmtree(ISOLATION_ROOT, ignore_errors=True)


def client_of(team: Team, client_for: Any) -> APIClient:
    return client_for(Role.DEVELOPER, in_team=team)


def submit(client: APIClient, team: str, sql: str, **fields: Any) -> int:
    job = client.post(f"/api/v1/teams/{team}/jobs/", {"name": f"j{os.urandom(3).hex()}", "sql": sql, **fields},
                      format="json")
    assert job.status_code == 201, job.json()
    run = client.post(f"/api/v1/teams/{team}/jobs/{job.json()['id']}/runs/")
    assert run.status_code in (200, 201), run.json()
    return int(run.json()["id"])


def engine_after_a_jdbc_run(team: Team, client_for: Any) -> int:
    """The pid of team acme's engine once it has run a query over its JDBC catalog `pg`."""
    run = submit(client_of(team, client_for), "acme", "SELECT sum(amount) AS total FROM pg.public.orders")
    assert wait_status(run, *TERMINAL_STATUSES).status == RunStatus.SUCCEEDED
    return engine_pid(run)


def environ_of(pid: int) -> dict[str, str] | None:
    """The environment of a live process; None for one that exited meanwhile (Spark's short-lived helpers)."""
    try:
        raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except (ProcessLookupError, FileNotFoundError):
        return None
    return dict(item.decode(errors="replace").split("=", 1) for item in raw if b"=" in item)


def uid_of(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"^Uid:\s+(\d+)", status, re.MULTILINE).group(1))  # type: ignore[union-attr]


@pytest.fixture
def globex(db: Any) -> Team:
    from tests.factories import TeamFactory

    return TeamFactory(name="globex")


@pytest.fixture
def acme_pg(team: Team, pg_source: Any) -> Catalog:
    """Team acme's JDBC catalog `pg` over a fresh PostgreSQL database with public.orders (2 rows)."""
    with psycopg.connect(pg_source.dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE public.orders (id int primary key, amount int)")
        conn.execute("INSERT INTO public.orders VALUES (1, 10), (2, 20)")
    return jdbc_catalog(team, pg_source.name)


def jdbc_catalog(team: Team, database: str) -> Catalog:
    """A JDBC catalog `pg` of `team` over the local PostgreSQL database `database`."""
    config = JdbcConfig.model_validate({
        "type": "postgresql", "base-url": "jdbc:postgresql://127.0.0.1:5432/", "default-database": database,
        "username": "postgres", "password": PG_PASSWORD})
    return Catalog.objects.create(team=team, catalog_type="jdbc", catalog_name="pg",
                                  configuration=seal_configuration(config))


@pytest.fixture
def gate(acme_pg: Catalog, pg_source: Any) -> Iterator[Gate]:
    """A closed gate (`pg.public.released`) in acme's source database, opened at the end whatever happened."""
    closed = Gate(pg_source.dsn).install()
    yield closed
    closed.open()  # a run a failed test left waiting finishes before the source database is dropped


def test_engines_hold_no_platform_secret_run_unprivileged_and_one_per_team(
    engine_worker: Worker, team: Team, globex: Team, client_for: Any, acme_pg: Catalog
) -> None:
    acme, other = client_of(team, client_for), client_of(globex, client_for)
    run_a = submit(acme, "acme", "SELECT sum(amount) AS total FROM pg.public.orders")
    run_b = submit(other, "globex", "SELECT 1 AS one")
    done_a, done_b = wait_status(run_a, *TERMINAL_STATUSES), wait_status(run_b, *TERMINAL_STATUSES)
    assert done_a.status == RunStatus.SUCCEEDED, done_a.error
    assert done_b.status == RunStatus.SUCCEEDED, done_b.error
    assert acme.get(f"/api/v1/teams/acme/runs/{run_a}/result/").json()["rows"] == [[30]]

    pid_a, pid_b = engine_pid(run_a), engine_pid(run_b)
    assert pid_a != pid_b  # two teams never share a driver
    assert done_a.spark_app_id != done_b.spark_app_id
    secrets = [*PLATFORM_SECRETS.values(), *settings.LAKEPORT_SECRET_KEYS, PG_PASSWORD]
    uids = {}
    for team_name, pid in (("acme", pid_a), ("globex", pid_b)):
        uids[team_name] = uid_of(pid)
        user = pwd.getpwuid(uids[team_name])  # the team's own user, made for it on demand
        assert user.pw_name.startswith(USER_PREFIX) and user.pw_gecos == f"Lakeport engine of team {team_name}"
        processes = [pid, *descendants(pid)]  # the Python engine and its JVM
        assert any(_is_java(p) for p in processes)
        for p in processes:
            env = environ_of(p)
            if env is None and p != pid:
                continue
            assert env is not None and uid_of(p) == uids[team_name]
            for name in ("LAKEPORT_SECRET_KEYS", "DJANGO_SECRET_KEY", "DATABASE_URL", "CELERY_BROKER_URL",
                         "PGPASSWORD", "AWS_SECRET_ACCESS_KEY"):
                assert name not in env
            blob = "\n".join(env.values())
            assert not [s for s in secrets if s in blob]
        assert Path(os.readlink(f"/proc/{pid}/cwd")) == SCRATCH_ROOT / team_name
    assert uids["acme"] != uids["globex"] and 0 not in uids.values()  # two teams never share a uid

    # The same team's next run reuses its engine: no new driver, a new session.
    again = submit(acme, "acme", "SELECT 2")
    assert wait_status(again, *TERMINAL_STATUSES).status == RunStatus.SUCCEEDED
    assert engine_pid(again) == pid_a


def test_a_team_engine_cannot_reach_another_teams_catalog(
    engine_worker: Worker, team: Team, globex: Team, client_for: Any, acme_pg: Catalog
) -> None:
    other = client_of(globex, client_for)
    run = submit(other, "globex", "SELECT * FROM pg.public.orders")
    done = wait_status(run, *TERMINAL_STATUSES)
    assert done.status == RunStatus.FAILED
    assert "Unknown catalog 'pg'" in done.error["message"]
    preview = other.post("/api/v1/teams/globex/sql/preview/", {"sql": "SELECT * FROM pg.public.orders"},
                         format="json")
    assert preview.status_code == 400 and "Unknown catalog 'pg'" in preview.json()["error"]["message"]


def test_sigkill_of_one_teams_engine_fails_only_its_run_and_the_next_run_gets_a_fresh_engine(
    engine_worker: Worker, team: Team, globex: Team, client_for: Any
) -> None:
    acme, other = client_of(team, client_for), client_of(globex, client_for)
    victim = submit(acme, "acme", LONG_QUERY)
    bystander = submit(other, "globex", "SELECT count(*) FROM range(0, 3000000)")
    wait_until(lambda: JobRun.objects.get(id=victim).status == RunStatus.RUNNING and "engine pid" in run_log_text(victim),
               what="the victim run to be running")
    pid = engine_pid(victim)
    os.kill(pid, signal.SIGKILL)

    lost = wait_status(victim, *TERMINAL_STATUSES)
    assert lost.status == RunStatus.FAILED
    assert "engine stopped" in lost.error["message"] and "Traceback" not in lost.error["message"]
    assert wait_status(bystander, *TERMINAL_STATUSES).status == RunStatus.SUCCEEDED

    after = submit(acme, "acme", "SELECT 3")
    assert wait_status(after, *TERMINAL_STATUSES).status == RunStatus.SUCCEEDED
    assert engine_pid(after) != pid


def test_editor_calls_never_start_spark_in_the_web_process(
    engine_worker: Worker, team: Team, client_for: Any
) -> None:
    client = client_of(team, client_for)
    before = _web_jvms(engine_worker)
    assert client.post("/api/v1/teams/acme/sql/validate/", {"sql": "SELECT 1 AS x"}, format="json").json()["valid"]
    preview = client.post("/api/v1/teams/acme/sql/preview/", {"sql": "SELECT 41 + 1 AS x"}, format="json")
    assert preview.status_code == 200 and preview.json()["rows"] == [[42]]
    assert _web_jvms(engine_worker) == before  # answered by the worker's engine


def _web_jvms(worker: Worker) -> set[int]:
    """JVMs under this test process (the web process here), less the worker's: its engine may start meanwhile."""
    assert worker.worker is not None
    below = descendants(os.getpid())
    engines = set(descendants(worker.worker.pid))  # read second: an engine starting in between is in it
    return {p for p in below if p not in engines and _is_java(p)}


def _is_java(pid: int) -> bool:
    try:
        return "java" in Path(f"/proc/{pid}/cmdline").read_text(errors="replace").split("\0")[0]
    except (OSError, ProcessLookupError):
        return False


def ui_get(client: APIClient, path: str) -> tuple[int, str]:
    """GET a page of a run's Spark UI through Lakeport's proxy (a streamed answer): status and text."""
    response = client.get(path)
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return response.status_code, body.decode(errors="replace")


def test_the_spark_ui_answers_only_lakeport_and_only_for_the_runs_team(
    engine_worker: Worker, team: Team, globex: Team, client_for: Any
) -> None:
    client = client_of(team, client_for)
    run = submit(client, "acme", "SELECT 1")
    assert wait_status(run, *TERMINAL_STATUSES).status == RunStatus.SUCCEEDED
    prefix = f"/t/acme/runs/{run}/spark"
    assert client.get(f"/api/v1/teams/acme/runs/{run}/").json()["spark_ui_url"] == f"{prefix}/"
    recorded = JobRun.objects.get(id=run)
    assert re.match(r"^http://(127\.0\.0\.1|localhost):\d+$", recorded.spark_ui_url), recorded.spark_ui_url
    # on loopback, the engine's port refuses whoever is not the proxy: pages and the REST API alike
    for path in ("/", "/jobs/", f"/api/v1/applications/{recorded.spark_app_id}/environment"):
        assert _ui_send(recorded.spark_ui_url + path, "GET") == 403, path

    status, environment = ui_get(client, f"{prefix}/api/v1/applications/{recorded.spark_app_id}/environment")
    assert status == 200, environment
    spark_props = dict(json.loads(environment)["sparkProperties"])
    assert spark_props["spark.ui.killEnabled"] == "false"
    assert spark_props["spark.sql.restrictedMode.enabled"] == "true"
    assert spark_props["spark.ui.filters"].startswith("io.lakeport.spark.UiAccessFilter")
    assert "ui_token" not in environment.lower() and "X-Lakeport-UI-Token" not in environment
    status, jobs = ui_get(client, f"{prefix}/jobs/")
    assert status == 200 and "Spark Jobs" in jobs
    assert f'href="{prefix}/' in jobs and 'href="/jobs/' not in jobs  # Spark writes its links under the proxy
    moved = client.get(f"/spark-ui/acme/runs/{run}/jobs/?id=1")  # API 1.5–1.6's address: redirected, not broken
    assert moved.status_code == 302 and moved["Location"] == f"{prefix}/jobs/?id=1", moved
    root = client.get(f"{prefix}/")
    assert root.status_code in (301, 302, 303, 307) and root["Location"].startswith(f"{prefix}/"), root

    # other teams, anonymous callers and anything but reading are refused
    assert client_of(globex, client_for).get(f"{prefix}/jobs/").status_code == 404
    assert APIClient().get(f"{prefix}/jobs/").status_code in (401, 403)
    assert client.post(f"{prefix}/jobs/job/kill/?id=0").status_code == 405
    assert client_for(Role.VIEWER, in_team=team).get(f"{prefix}/jobs/").status_code == 200  # viewers read runs too

    # crafted paths and Host headers never make the proxy call anything but that engine's UI port
    with socket.socket() as canary:
        canary.bind(("127.0.0.1", 0))
        canary.listen(8)
        canary.settimeout(0.5)
        port = canary.getsockname()[1]
        for path in (f"//127.0.0.1:{port}/", f"/..%2f..%2f:{port}/", f"@127.0.0.1:{port}/jobs/", "/%2e%2e/%2e%2e/",
                     f"http://127.0.0.1:{port}/", "/jobs/?x=\r\nHost:%20evil"):
            for headers in ({}, {"HTTP_X_FORWARDED_HOST": f"127.0.0.1:{port}"}, {"HTTP_HOST": f"127.0.0.1:{port}"}):
                answer = client.get(f"{prefix}/{path.lstrip('/')}", **headers)
                assert answer.status_code in (200, 302, 400, 404), (path, headers, answer.status_code)
                if answer.streaming:
                    b"".join(answer.streaming_content)
        with pytest.raises(TimeoutError):
            canary.accept()  # nobody ever connected to it

    # the engine stops: the run's UI is gone, and says so
    pid = engine_pid(run)
    os.kill(pid, signal.SIGKILL)
    wait_until(lambda: not alive(pid), what="the engine to die")
    gone = wait_until(lambda: (r := client.get(f"{prefix}/jobs/")).status_code == 404 and r, what="a 404")
    assert "engine that ran it has stopped" in gone.json()["error"]["message"]


def test_an_engine_loads_delta_and_arrow_libraries_only_when_a_statement_needs_them(
    engine_worker: Worker, team: Team, client_for: Any, acme_pg: Catalog
) -> None:
    # An idle team engine's memory (issue 12: ≤ 400 MiB) has no room for ~130 MiB of libraries it does not use.
    pid = engine_after_a_jdbc_run(team, client_for)
    assert "lakeport_engine.engine" in Path(f"/proc/{pid}/cmdline").read_text()
    maps = Path(f"/proc/{pid}/maps").read_text()
    loaded = [lib for lib in ("pyarrow", "deltalake", "psycopg", "numpy") if f"site-packages/{lib}" in maps]
    assert loaded == []


def test_an_engines_jvm_opens_only_the_jars_a_team_engine_uses(
    engine_worker: Worker, team: Team, client_for: Any, acme_pg: Catalog
) -> None:
    # Every jar a JVM opens keeps its directory in memory: an engine without Hive support opens no ML,
    # Kubernetes, Connect or Hive jar (issue 12, idle engine ≤ 400 MiB; jobs/engines/spark_home.py).
    jvm = next(p for p in descendants(engine_after_a_jdbc_run(team, client_for)) if _is_java(p))
    opened = set()
    for fd in os.listdir(f"/proc/{jvm}/fd"):
        target = os.readlink(f"/proc/{jvm}/fd/{fd}")
        if target.endswith(".jar"):
            opened.add(Path(target).name)
    assert any(j.startswith("spark-sql_") for j in opened) and any(j.startswith("postgresql") for j in opened)
    unused = [j for j in opened if j.startswith(("spark-mllib_", "kubernetes-", "spark-connect_", "spark-hive_",
                                                  "hive-", "breeze_", "spark-yarn_"))]
    assert unused == []


def test_a_temp_view_in_one_teams_engine_is_invisible_to_another_team(
    engine_worker: Worker, team: Team, globex: Team, client_for: Any, gate: Gate
) -> None:
    # Session-catalog tables are the guard's to refuse (rule session-catalog); temporary views are what a team
    # can create. acme's run keeps its view alive (held at the gate) while globex looks for it.
    acme, other = client_of(team, client_for), client_of(globex, client_for)
    holder = submit(acme, "acme", "CREATE TEMPORARY VIEW acme_secret AS SELECT id, amount FROM pg.public.orders;\n"
                                  f"SELECT state FROM pg.{GATE_VIEW};\nSELECT * FROM acme_secret ORDER BY id")
    gate.wait_for(1)

    probe = submit(other, "globex", "SELECT * FROM acme_secret")
    refused = wait_status(probe, *TERMINAL_STATUSES)
    assert refused.status == RunStatus.FAILED and "acme_secret" in refused.error["message"]
    assert not other.get(f"/api/v1/teams/globex/runs/{probe}/result/").json().get("rows")
    for sql in ("SELECT * FROM acme_secret", "SELECT * FROM spark_catalog.default.acme_secret",
                "SELECT * FROM global_temp.acme_secret"):
        preview = other.post("/api/v1/teams/globex/sql/preview/", {"sql": sql}, format="json")
        body = preview.json()
        assert preview.status_code == 400 and "rows" not in body, (sql, body)
        assert re.search(r"acme_secret|\(rule: (session-catalog|global-state)\)", body["error"]["message"]), body
    listing = other.post("/api/v1/teams/globex/sql/preview/", {"sql": "SHOW VIEWS"}, format="json")
    assert "acme_secret" not in json.dumps(listing.json())

    gate.open()
    done = wait_status(holder, *TERMINAL_STATUSES)
    assert done.status == RunStatus.SUCCEEDED, done.error  # the view was there all along, in acme's session
    assert acme.get(f"/api/v1/teams/acme/runs/{holder}/result/").json()["rows"] == [[1, 10], [2, 20]]


def test_the_spark_ui_kill_endpoints_do_not_stop_another_teams_running_stage(
    engine_worker: Worker, team: Team, globex: Team, client_for: Any, gate: Gate
) -> None:
    acme = client_of(team, client_for)
    victim = submit(acme, "acme", f"SELECT state FROM pg.{GATE_VIEW}")
    gate.wait_for(1)  # its stage is active, its task blocked in the source database
    # globex cannot read acme's run; an attacker on the host finds the UI by scanning loopback ports instead.
    assert client_of(globex, client_for).get(f"/api/v1/teams/acme/runs/{victim}/").status_code == 404
    run = wait_until(lambda: JobRun.objects.filter(id=victim).exclude(spark_ui_url="").first(),
                     what="the run's Spark UI address")
    proxy = f"/t/acme/runs/{victim}/spark"
    api = f"{proxy}/api/v1/applications/{run.spark_app_id}"

    def ui_json(path: str) -> Any:
        status, text = ui_get(acme, path)
        assert status == 200, (path, text[:300])
        return json.loads(text)

    stages = wait_until(lambda: ui_json(f"{api}/stages?status=active"), what="an active stage")
    jobs = ui_json(f"{api}/jobs?status=running")
    assert jobs

    # Spark 4 wants the UI's CSRF token on a kill; its pages hand it out beside their kill links, when those are on.
    pages = ["/jobs/", "/stages/", *(f"/stages/stage/?id={s['stageId']}&attempt=0" for s in stages),
             *(f"/jobs/job/?id={j['jobId']}" for j in jobs)]
    tokens = {t for page in pages for t in re.findall(r'name="csrfToken" value="([^"]+)"', ui_get(acme, proxy + page)[1])}
    kills = [("/stages/stage/kill/", s["stageId"]) for s in stages] + [("/jobs/job/kill/", j["jobId"]) for j in jobs]
    direct = run.spark_ui_url  # what an attacker scanning loopback finds: every request refused by the filter
    for path, target in kills:
        for token in tokens or {""}:
            form = urllib.parse.urlencode({"id": target, "terminate": "true", "csrfToken": token})
            assert _ui_send(f"{direct}{path}?{form}", "POST", form.encode()) == 403
            assert _ui_send(f"{direct}{path}?{form}", "GET") == 403
            assert acme.post(f"{proxy}{path}?{form}").status_code == 405  # the proxy only reads
            ui_get(acme, f"{proxy}{path}?{form}")  # and a GET kill is off in the UI itself
    still = {s["stageId"]: s["status"] for s in ui_json(f"{api}/stages")}
    assert all(still[s["stageId"]] == "ACTIVE" for s in stages), still

    gate.open()
    done = wait_status(victim, *TERMINAL_STATUSES)
    assert done.status == RunStatus.SUCCEEDED, done.error
    assert acme.get(f"/api/v1/teams/acme/runs/{victim}/result/").json()["rows"] == [["released"]]


def _ui_send(url: str, method: str, form: bytes | None = None) -> int:
    """Send `method` (with a urlencoded `form`) straight to an engine's Spark UI `url`; the HTTP status."""
    request = urllib.request.Request(url, method=method, data=form,
                                     headers={"Content-Type": "application/x-www-form-urlencoded"} if form else {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def test_a_sigkilled_engine_with_retries_requeues_its_run_onto_a_fresh_engine_and_spares_other_teams(
    engine_worker: Worker, team: Team, globex: Team, client_for: Any, gate: Gate, pg_source: Any
) -> None:
    jdbc_catalog(globex, pg_source.name)  # globex's own catalog over the same source, behind the same gate
    acme, other = client_of(team, client_for), client_of(globex, client_for)
    victim = submit(acme, "acme", f"SELECT state FROM pg.{GATE_VIEW}", max_retries=1)
    bystander = submit(other, "globex", f"SELECT state FROM pg.{GATE_VIEW}")
    gate.wait_for(2)  # both runs are mid-stage
    killed, spared = engine_pid(victim), engine_pid(bystander)
    assert killed != spared
    os.kill(killed, signal.SIGKILL)

    # The worker re-queues the run (attempt 2), which starts a fresh engine and waits at the gate again.
    wait_until(lambda: len(engine_pids(victim)) == 2, what="the second attempt to report its engine")
    retried = JobRun.objects.get(id=victim)
    assert retried.attempt == 2 and retried.status == RunStatus.RUNNING
    log = run_log_text(victim)
    assert "engine stopped" in log and "Re-queued" in log and log.count("started on") == 2
    assert engine_pids(victim)[1] != killed and alive(spared)

    gate.open()
    done, other_done = wait_status(victim, *TERMINAL_STATUSES), wait_status(bystander, *TERMINAL_STATUSES)
    assert done.status == RunStatus.SUCCEEDED and done.attempt == 2, done.error
    assert acme.get(f"/api/v1/teams/acme/runs/{victim}/result/").json()["rows"] == [["released"]]
    assert other_done.status == RunStatus.SUCCEEDED and other_done.attempt == 1, other_done.error
    assert other.get(f"/api/v1/teams/globex/runs/{bystander}/result/").json()["rows"] == [["released"]]
    assert alive(spared)  # globex's engine carried on: same process, never restarted


@pytest.fixture(scope="module")
def probe(engine_worker: Worker) -> Probe:
    """The native probe, where every engine user may run it."""
    return Probe.build(ISOLATION_ROOT / "probe")


def test_code_in_one_teams_engine_cannot_read_another_teams_engine_memory_environment_or_directories(
    engine_worker: Worker, team: Team, globex: Team, client_for: Any, acme_pg: Catalog, probe: Probe
) -> None:
    # acme's engine has run a query over its JDBC catalog: the decrypted password lives in its memory. The probe
    # runs as globex's engine user: what code that escaped globex's SQL guard could try from globex's engine.
    acme, other = client_of(team, client_for), client_of(globex, client_for)
    run_a = submit(acme, "acme", "SELECT sum(amount) AS total FROM pg.public.orders")
    run_b = submit(other, "globex", "SELECT 1 AS one")
    assert wait_status(run_a, *TERMINAL_STATUSES).status == RunStatus.SUCCEEDED
    assert wait_status(run_b, *TERMINAL_STATUSES).status == RunStatus.SUCCEEDED
    pid_a, pid_b = engine_pid(run_a), engine_pid(run_b)
    jvm_a = next(p for p in descendants(pid_a) if _is_java(p))
    user_a, user_b = pwd.getpwuid(uid_of(pid_a)), pwd.getpwuid(uid_of(pid_b))
    scratch_a, data_a = SCRATCH_ROOT / "acme", DATA_DIR / "teams" / "acme"
    instance_dirs = sorted(p for sub in ("tmp", "spark-local") for p in (scratch_a / sub).iterdir())
    assert instance_dirs and data_a.is_dir()
    for path in (scratch_a, data_a, *instance_dirs):  # the team's own, closed to everyone else
        assert (path.stat().st_uid, path.stat().st_mode & 0o777) == (user_a.pw_uid, 0o700), path

    tries = [("mem", str(pid_a)), ("mem", str(jvm_a)), ("read", f"/proc/{pid_a}/environ"),
             ("read", f"/proc/{jvm_a}/environ"), ("ptrace", str(pid_a)),
             ("ptrace", str(jvm_a)), ("list", str(scratch_a)), *(("list", str(p)) for p in instance_dirs),
             ("list", str(data_a)), ("list", str(DATA_DIR)), ("read", str(DATA_DIR / "secret-keys"))]
    as_globex = probe.run(user_b, [("mem", "self"), *tries])
    assert as_globex.pop(("mem", "self")) == "ok"  # the probe reads memory where the kernel lets it
    assert set(as_globex) == set(tries)
    reached = {t: r for t, r in as_globex.items() if r not in ("EACCES", "EPERM")}
    assert reached == {}, reached
    assert user_a.pw_uid != user_b.pw_uid

    # acme's own user reaches its directories (so the walls above are the uid's), but not even it reads the
    # engine's memory or environment, nor traces it: the engine process is non-dumpable, and so is its JVM (the
    # platform's agent, platform/jvm/native/nodump.c: exec had made it dumpable again).
    as_acme = probe.run(user_a, [("list", str(scratch_a)), ("list", str(data_a)), ("mem", str(pid_a)),
                                 ("read", f"/proc/{pid_a}/environ"), ("mem", str(jvm_a)),
                                 ("read", f"/proc/{jvm_a}/environ"), ("ptrace", str(jvm_a))])
    assert as_acme == {("list", str(scratch_a)): "ok", ("list", str(data_a)): "ok",
                       ("mem", str(pid_a)): "EACCES", ("read", f"/proc/{pid_a}/environ"): "EACCES",
                       ("mem", str(jvm_a)): "EACCES", ("read", f"/proc/{jvm_a}/environ"): "EACCES",
                       ("ptrace", str(jvm_a)): "EPERM"}
    assert alive(pid_a) and alive(jvm_a)  # every try above left acme's engine running
