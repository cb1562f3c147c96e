"""runner.py finds the JDBC driver jars itself when it starts Spark (`python runner.py`), and under a plain
`spark-submit` without `--jars` it says exactly which `--jars` to add (the issue's ClassNotFoundException)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lakeport_engine.session import jdbc_jars
from tests.spark.conftest import pg_config
from tests.spark.test_runner_cli import RUNNER, SPARK_SUBMIT, _env

pytestmark = pytest.mark.spark


def test_jdbc_jars_come_from_the_setting_or_debian(tmp_path: Path) -> None:
    jar = tmp_path / "driver.jar"
    jar.write_bytes(b"PK")
    assert jdbc_jars({"SPARK_JDBC_JARS": f"{jar},{tmp_path / 'missing.jar'}"}) == [str(jar)]
    assert jdbc_jars({}) == [p for p in ("/usr/share/java/postgresql.jar", "/usr/share/java/mariadb-java-client.jar")
                             if Path(p).is_file()]


def test_plain_python_runner_reads_a_jdbc_catalog_without_jars_flags(tmp_path: Path, sales_db: Any) -> None:
    catalogs = tmp_path / "catalogs.json"
    catalogs.write_text(json.dumps([{"catalog_name": "pg_sales", "catalog_type": "jdbc",
                                     "configuration": pg_config(sales_db)}]))
    catalogs.chmod(0o600)
    script = tmp_path / "q.sql"
    script.write_text("SELECT count(*) AS n FROM pg_sales.shop.orders")
    proc = subprocess.run([sys.executable, str(RUNNER), "--master", "local[1]", "--store", f"file:{catalogs}",
                           "--team", "acme", str(script)], cwd=tmp_path, env=_env(), capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "ClassNotFoundException" not in proc.stdout + proc.stderr
    assert "1 row" in proc.stdout


def test_spark_submit_without_jars_says_which_jars_to_add(tmp_path: Path) -> None:
    catalogs = tmp_path / "catalogs.json"
    catalogs.write_text("[]")
    catalogs.chmod(0o600)
    script = tmp_path / "q.sql"
    script.write_text("SELECT 1 AS one")
    proc = subprocess.run([str(SPARK_SUBMIT), "--master", "local[1]", "--conf", "spark.ui.enabled=false", str(RUNNER),
                           "--store", f"file:{catalogs}", "--team", "acme", str(script)],
                          cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert ("Add to spark-submit: --jars /usr/share/java/postgresql.jar,/usr/share/java/mariadb-java-client.jar"
            in proc.stdout + proc.stderr)  # spark-submit merges the Python driver's stderr into its stdout
