"""runner.py through real `spark-submit`: file and database stores, events, exit codes, a standalone cluster."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyspark
import pytest
from django.conf import settings

from catalogs.models import Catalog
from catalogs.secrets import seal_configuration
from lakeport_engine.catalog_types.jdbc import JdbcConfig
from lakeport_engine.platform_jar import PLATFORM_JAR
from lakeport_engine.runner import build_py_files, format_table
from tests.conftest import JDBC_JARS
from tests.delta.test_features import _delta_rs
from tests.factories import TeamFactory
from tests.spark.conftest import (
    CUSTOMERS,
    MARIA_PASSWORD,
    ORDERS,
    PG_PASSWORD,
    hive_config,
    maria_config,
    maria_rows,
    pg_config,
    pg_rows,
)
from tests.support.net import free_port, wait_for_port
from tests.support.paths import REPO

pytestmark = pytest.mark.spark

SPARK_HOME = Path(pyspark.__file__).parent
SPARK_SUBMIT = SPARK_HOME / "bin" / "spark-submit"
DELTA_GOLDEN = REPO / "tests" / "delta" / "golden"
RUNNER = REPO / "lakeport_engine" / "runner.py"

CROSS_SCRIPT = """\
USE CATALOG pg_sales;
CREATE TABLE IF NOT EXISTS shop.order_totals (customer STRING, total DECIMAL(12,2));
INSERT INTO shop.order_totals
SELECT o.customer, SUM(o.amount)
FROM pg_sales.shop.orders o JOIN maria_crm.crm.customers c ON o.customer = c.name
GROUP BY o.customer;
SELECT * FROM pg_sales.shop.order_totals ORDER BY customer;
"""


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DJANGO_SETTINGS_MODULE")}
    env.update(PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable, SPARK_LOCAL_IP="127.0.0.1", **extra)
    return env


def submit(args: list[str], *, cwd: Path, env: dict[str, str] | None = None, conf: dict[str, str] | None = None,
           master: str = "local[1]", app: Path = RUNNER, py_files: Path | None = None,
           jars: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    cmd = [str(SPARK_SUBMIT), "--master", master, "--driver-memory", "768m", "--jars", ",".join([*JDBC_JARS, *jars]),
           "--conf", "spark.ui.enabled=false"]
    for key, value in (conf or {}).items():
        cmd += ["--conf", f"{key}={value}"]
    if py_files is not None:
        cmd += ["--py-files", str(py_files)]
    cmd += [str(app), *args]
    assert not any(PG_PASSWORD in c or MARIA_PASSWORD in c for c in cmd)  # nothing secret on the command line
    return subprocess.run(cmd, cwd=cwd, env=env or _env(), capture_output=True, text=True, timeout=600)


def expected_totals() -> list[list[str]]:
    names = {n for n, _ in CUSTOMERS}
    totals: dict[str, Decimal] = {}
    for customer, amount in ORDERS:
        if customer in names:
            totals[customer] = totals.get(customer, Decimal(0)) + amount
    return [[c, str(t)] for c, t in sorted(totals.items())]


def test_format_table_pads_columns() -> None:
    text = format_table([{"name": "a", "type": "int"}, {"name": "bb", "type": "string"}], [[1, None], [22, "x"]])
    assert text.splitlines()[1] == "| a  | bb   |"
    assert text.splitlines()[3] == "| 1  | NULL |"
    assert text.endswith("2 rows")


def test_bad_arguments_exit_2_without_starting_spark(tmp_path: Path) -> None:
    script = tmp_path / "s.sql"
    script.write_text("SELECT 1")
    base = [sys.executable, str(RUNNER)]
    with_password = subprocess.run([*base, "--store", "postgresql://u:hunter22@h:5432/db", "--team", "t", str(script)],
                                   capture_output=True, text=True, env=_env(), timeout=60)
    assert with_password.returncode == 2
    assert "must not carry a password" in with_password.stderr and "hunter22" not in with_password.stderr
    missing = subprocess.run([*base, "--team", "t", str(script)], capture_output=True, text=True, env=_env(), timeout=60)
    assert missing.returncode == 2 and "--store" in missing.stderr
    no_file = subprocess.run([*base, "--store", "memory:", "--team", "t", str(tmp_path / "nope.sql")],
                             capture_output=True, text=True, env=_env(), timeout=60)
    assert no_file.returncode == 2


def test_spark_submit_runs_the_issue_script_from_a_file_store(tmp_path: Path, sales_db: Any, crm_db: str,
                                                             hive_metastore: Any, spark: Any) -> None:
    from tests.spark.test_issue_script import ISSUE_SCRIPT

    catalogs = tmp_path / "catalogs.json"
    catalogs.write_text(json.dumps([
        {"catalog_name": "pg_sales", "catalog_type": "jdbc", "configuration": pg_config(sales_db)},
        {"catalog_name": "maria_crm", "catalog_type": "jdbc", "configuration": maria_config()},
        {"catalog_name": "warehouse_hive", "catalog_type": "hive", "configuration": hive_config(hive_metastore)},
    ]))
    catalogs.chmod(0o600)
    script = tmp_path / "script.sql"
    script.write_text(ISSUE_SCRIPT)
    events, eventlog = tmp_path / "events.jsonl", tmp_path / "eventlog"
    eventlog.mkdir()
    try:
        proc = submit(["--store", f"file:{catalogs}", "--team", "acme", "--events", str(events), str(script)],
                      cwd=tmp_path, conf={"spark.eventLog.enabled": "true", "spark.eventLog.dir": str(eventlog),
                                          "spark.eventLog.compress": "false"})
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]

        # stdout: each statement, and the last one's table
        assert proc.stdout.count("\n-- [") == 7
        for customer, total in expected_totals():
            assert any(line.startswith(f"| {customer}") and total in line for line in proc.stdout.splitlines())
        assert sorted([c, str(t)] for c, t in pg_rows(sales_db, "SELECT customer, total FROM shop.order_totals")) == \
            expected_totals()

        # events: start/end per statement, then script_end
        lines = [json.loads(line) for line in events.read_text().splitlines()]
        kinds = [e["event"] for e in lines]
        assert kinds.count("statement_start") == 7 and kinds.count("statement_end") == 7
        assert kinds[-1] == "script_end" and lines[-1]["succeeded"] is True
        assert lines[-1]["catalogs_used"] == ["pg_sales", "maria_crm", "warehouse_hive"]
        assert [e for e in lines if e["event"] == "statement_end"][-1]["rows"] == expected_totals()

        # the table exists in the shared metastore: this test session sees it
        assert sorted(tuple(r) for r in spark.sql("SELECT * FROM spark_catalog.marts.customer_city").collect()) == \
            sorted(CUSTOMERS)

        # no secret in what the run left behind: stdout, stderr, events, the Spark event log (what the UI shows)
        logs = [proc.stdout, proc.stderr, events.read_text()]
        logs += [p.read_text(errors="replace") for p in eventlog.rglob("*") if p.is_file()]
        assert len(logs) > 3  # an event log was written
        for text in logs:
            assert PG_PASSWORD not in text and MARIA_PASSWORD not in text
        # the event log records the SQL executions on the catalogs — without their passwords
        recorded = "".join(logs[3:])
        assert "SparkListenerSQLExecutionStart" in recorded and "pg_sales" in recorded
    finally:
        spark.sql("DROP DATABASE IF EXISTS spark_catalog.marts CASCADE")


@pytest.mark.django_db(transaction=True)
def test_spark_submit_with_the_database_store_and_other_teams_catalog(tmp_path: Path, sales_db: Any) -> None:
    from django.db import connection

    acme, globex = TeamFactory(name="acme"), TeamFactory(name="globex")
    sealed = seal_configuration(JdbcConfig.model_validate(pg_config(sales_db)))
    Catalog.objects.create(team=acme, catalog_type="jdbc", catalog_name="pg_sales", configuration=sealed)
    Catalog.objects.create(team=globex, catalog_type="jdbc", catalog_name="globex_pg", configuration=sealed)
    dsn = f"postgresql://postgres@127.0.0.1:5432/{connection.settings_dict['NAME']}"
    env = _env(LAKEPORT_SECRET_KEYS=",".join(settings.LAKEPORT_SECRET_KEYS))
    script = tmp_path / "s.sql"

    script.write_text("SELECT count(*) AS n FROM pg_sales.shop.orders")
    ok = submit(["--store", dsn, "--team", "acme", str(script)], cwd=tmp_path, env=env)
    assert ok.returncode == 0, ok.stdout[-2000:] + ok.stderr[-2000:]
    assert f"| {len(ORDERS)} " in ok.stdout

    script.write_text("SELECT 1;\nSELECT count(*) FROM globex_pg.shop.orders")
    denied = submit(["--store", dsn, "--team", "acme", str(script)], cwd=tmp_path, env=env)
    assert denied.returncode == 1
    assert "Unknown catalog 'globex_pg' for team 'acme'." in denied.stdout
    assert PG_PASSWORD not in denied.stdout + denied.stderr


# ---- a real Spark standalone cluster --------------------------------------------------------------------
@pytest.fixture
def standalone_cluster(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """A master and a 1-core/1g worker started from the pyspark package on 127.0.0.1; stopped afterwards."""
    port, ui, worker_ui = free_port(), free_port(), free_port()
    env = _env(SPARK_HOME=str(SPARK_HOME), SPARK_DAEMON_MEMORY="384m", SPARK_WORKER_DIR=str(tmp_path / "work"),
               SPARK_LOG_DIR=str(tmp_path / "logs"))
    spark_class = str(SPARK_HOME / "bin" / "spark-class")
    logs: list[Any] = []
    procs: list[subprocess.Popen[bytes]] = []
    try:
        for name, cmd in [
            ("master", [spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                        "--port", str(port), "--webui-port", str(ui)]),
            ("worker", [spark_class, "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1", "--cores", "1",
                        "--memory", "1g", "--webui-port", str(worker_ui), f"spark://127.0.0.1:{port}"]),
        ]:
            log = open(tmp_path / f"{name}.log", "wb")  # noqa: SIM115 - closed in finally
            logs.append(log)
            procs.append(subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT))
            wait_for_port(port if name == "master" else worker_ui, timeout=120)
        for _ in range(120):  # the worker has registered with the master
            with urllib.request.urlopen(f"http://127.0.0.1:{ui}/json/", timeout=5) as resp:
                if json.load(resp).get("aliveworkers", 0) >= 1:
                    break
            time.sleep(0.5)
        else:
            raise RuntimeError("the worker did not register; see worker.log")
        yield f"spark://127.0.0.1:{port}", f"http://127.0.0.1:{ui}/json/"
    finally:
        for proc in reversed(procs):
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for log in logs:
            log.close()


def test_cross_catalog_script_on_a_standalone_cluster_with_py_files(tmp_path: Path,
                                                                   standalone_cluster: tuple[str, str],
                                                                   sales_db: Any, crm_db: str) -> None:
    """JDBC on two servers, and an embedded Delta table with deletion vectors read by the platform's JVM reader
    (platform/jvm, shipped with --jars) in the cluster's executor, not in the driver."""
    master, status_url = standalone_cluster
    assert PLATFORM_JAR.is_file(), "build-jvm.sh builds the platform jar (make test does)"
    warehouse = tmp_path / "lake"
    shutil.copytree(DELTA_GOLDEN / "dv-partitioned-with-checkpoint", warehouse / "default" / "dv")
    [(kept, total)] = _delta_rs(warehouse / "default" / "dv", "SELECT count(*), sum(col1) FROM t")
    # cluster shape: the package travels as --py-files; the entry point lives outside the repository
    archive = build_py_files(tmp_path)
    app = tmp_path / "lakeport_main.py"
    app.write_text("import sys\nfrom lakeport_engine.runner import main\nsys.exit(main())\n")
    catalogs = tmp_path / "catalogs.json"
    catalogs.write_text(json.dumps([
        {"catalog_name": "pg_sales", "catalog_type": "jdbc", "configuration": pg_config(sales_db)},
        {"catalog_name": "maria_crm", "catalog_type": "jdbc", "configuration": maria_config()},
        {"catalog_name": "lake", "catalog_type": "delta", "configuration": {
            "warehouse": str(warehouse), "default-database": "default"}},
    ]))
    script = tmp_path / "script.sql"
    script.write_text(CROSS_SCRIPT + "EXPLAIN SELECT col1 FROM lake.default.dv;\n"
                                     "SELECT count(*) AS n, sum(col1) AS s FROM lake.default.dv;\n")
    proc = submit(["--store", f"file:{catalogs}", "--team", "acme", str(script)], cwd=tmp_path,
                  master=master, app=app, py_files=archive, jars=(str(PLATFORM_JAR),),
                  conf={"spark.executor.memory": "512m", "spark.cores.max": "1"})
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "DeletionVectorParquet" in proc.stdout  # the JVM reader's scan, not the SQL-expression fallback
    # the rows delta-rs keeps, counted by the executor (which loaded the reader from the shipped jar)
    assert format_table([{"name": "n", "type": "bigint"}, {"name": "s", "type": "bigint"}],
                        [[kept, total]]) in proc.stdout
    with urllib.request.urlopen(status_url, timeout=5) as resp:  # the master ran it, with an executor
        apps = json.load(resp)["completedapps"]
    assert [(a["name"], a["state"]) for a in apps] == [("lakeport-script", "FINISHED")]
    assert sorted([c, str(t)] for c, t in pg_rows(sales_db, "SELECT customer, total FROM shop.order_totals")) == \
        expected_totals()
    assert sorted(maria_rows("SELECT name, city FROM customers")) == sorted(CUSTOMERS)
