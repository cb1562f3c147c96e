"""Engine launch rules that need no Spark: the scrubbed environment, the static conf, the pool's bookkeeping."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pyspark
import pytest
from django.test import override_settings

from jobs.engines import default_engine
from jobs.engines.pool import EnginePool
from jobs.engines.process import EngineKey, engine_env, engine_launch, engine_python, engine_static_conf
from jobs.engines.spark_home import lean_spark_home, wanted_jar
from lakeport_engine.platform_jar import NODUMP_AGENT, PLATFORM_JAR
from tests.support.paths import REPO

PLATFORM_ENV = {
    "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "JAVA_HOME": "/usr/lib/jvm/java-17",
    "LAKEPORT_SECRET_KEYS": "fernet-key-1", "DJANGO_SECRET_KEY": "django-secret", "DATABASE_URL": "postgres://u:pw@db/x",
    "CELERY_BROKER_URL": "redis://:pw@redis/0", "PGPASSWORD": "pw", "AWS_SECRET_ACCESS_KEY": "aws",
    "AWS_ACCESS_KEY_ID": "AKIA", "GOOGLE_APPLICATION_CREDENTIALS": "/keys/gcp.json", "AZURE_STORAGE_KEY": "az",
}


def test_the_engine_environment_is_an_allow_list() -> None:
    env = engine_env(environ=PLATFORM_ENV, scratch=Path("/tmp/e/acme"), python="/venv/bin/python")
    for secret in ("fernet-key-1", "django-secret", "pw", "aws", "AKIA", "/keys/gcp.json", "az"):
        assert all(secret not in v for v in env.values()), secret
    assert env["PATH"] == "/usr/bin:/bin" and env["JAVA_HOME"] == "/usr/lib/jvm/java-17"
    assert env["HOME"] == "/tmp/e/acme" and env["TMPDIR"] == "/tmp/e/acme/tmp"
    assert env["SPARK_LOCAL_IP"] == "127.0.0.1"


def test_the_guard_switches_win_over_operator_and_catalog_conf(tmp_path: Path) -> None:
    hostile = {"spark.sql.restrictedMode.enabled": "false", "spark.sql.runSQLOnFiles": "true",
               "spark.ui.killEnabled": "true"}
    key = EngineKey(team="acme", static_conf=tuple(hostile.items()))
    with override_settings(LAKEPORT_SPARK_STATIC_CONF=hostile):
        conf = engine_static_conf(key=key, scratch=tmp_path, python="/venv/bin/python")
    assert conf["spark.sql.restrictedMode.enabled"] == "true"
    assert conf["spark.sql.runSQLOnFiles"] == "false"
    assert conf["spark.ui.killEnabled"] == "false"
    assert conf["spark.local.dir"] == str(tmp_path / "spark-local")


@pytest.mark.skipif(not PLATFORM_JAR.is_file(), reason="platform jar not built (no javac)")
def test_engines_get_the_platform_jar(tmp_path: Path) -> None:
    """The deletion-vector reader of the embedded Delta connector (platform/jvm) is on every engine's classpath."""
    conf = engine_static_conf(key=EngineKey(team="acme"), scratch=tmp_path, python="/venv/bin/python")
    assert str(PLATFORM_JAR) in conf["spark.jars"].split(",")


def test_an_operators_jvm_options_keep_the_engines_temp_dir(tmp_path: Path) -> None:
    with override_settings(LAKEPORT_SPARK_STATIC_CONF={"spark.driver.extraJavaOptions": "-XX:+UseG1GC"}):
        conf = engine_static_conf(key=EngineKey(team="acme"), scratch=tmp_path, python="/venv/bin/python")
    # and the platform's agent that makes the JVM non-dumpable (platform/jvm/native/nodump.c), built in setup
    assert NODUMP_AGENT.is_file()
    assert conf["spark.driver.extraJavaOptions"] == (f"-XX:+UseG1GC -Djava.io.tmpdir={tmp_path / 'tmp'} "
                                                     f"-agentpath:{NODUMP_AGENT}")


def test_the_launch_has_no_secret_on_its_command_line_or_in_its_init() -> None:
    with override_settings(LAKEPORT_SECRET_KEYS=["fernet-key-1"]):
        launch = engine_launch(EngineKey(team="acme"), environ=PLATFORM_ENV)
    text = " ".join(launch.command) + repr(launch.init) + repr(launch.env)
    for secret in ("fernet-key-1", "django-secret", "postgres://", "redis://"):
        assert secret not in text
    assert launch.cwd.endswith("/acme") and launch.init["team"] == "acme"


PYSPARK_HOME = Path(str(pyspark.__file__)).parent


def test_an_engines_spark_home_leaves_out_the_jars_it_never_loads(tmp_path: Path) -> None:
    shipped = {p.name for p in (PYSPARK_HOME / "jars").glob("*.jar")}
    sql = lean_spark_home(PYSPARK_HOME, tmp_path, hive=False)
    hive = lean_spark_home(PYSPARK_HOME, tmp_path, hive=True)
    sql_jars, hive_jars = ({p.name for p in (home / "jars").iterdir()} for home in (sql, hive))
    assert sql_jars < hive_jars < shipped
    for kept in ("spark-sql_", "spark-core_", "spark-catalyst_", "parquet-hadoop-", "orc-core-", "ivy-"):
        assert any(j.startswith(kept) for j in sql_jars), kept
    for dropped in ("spark-mllib_", "kubernetes-client-", "spark-connect_", "spark-yarn_", "breeze_"):
        assert any(j.startswith(dropped) for j in shipped) and not any(j.startswith(dropped) for j in hive_jars)
    for hive_only in ("spark-hive_", "hive-metastore-", "hive-exec-", "libthrift-"):
        assert not any(j.startswith(hive_only) for j in sql_jars) and any(j.startswith(hive_only) for j in hive_jars)
    # The rest of the package is there as it is: bin/spark-submit, python/lib/pyspark.zip for Python workers.
    assert (sql / "bin" / "spark-submit").resolve() == (PYSPARK_HOME / "bin" / "spark-submit").resolve()
    assert (sql / "python" / "lib" / "pyspark.zip").is_file()
    # Built once: a second engine gets the same directory, untouched; nobody else may write to it.
    before = (sql / "jars").stat().st_mtime_ns
    assert lean_spark_home(PYSPARK_HOME, tmp_path, hive=False) == sql and (sql / "jars").stat().st_mtime_ns == before
    assert (sql / "jars").stat().st_mode & 0o777 == 0o755
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".building")] == []
    # A temp-directory cleaner that took some links: the next engine gets the home built again.
    next((sql / "jars").glob("spark-sql_*.jar")).unlink()
    (sql / "bin").unlink()
    assert lean_spark_home(PYSPARK_HOME, tmp_path, hive=False) == sql
    assert {p.name for p in (sql / "jars").iterdir()} == sql_jars and (sql / "bin" / "spark-submit").exists()


def test_native_jars_of_other_systems_are_left_out() -> None:
    name = "netty-transport-native-epoll-4.2.13.Final-linux-{}.jar"
    assert wanted_jar(name.format("x86_64"), hive=False, machine="x86_64")
    assert not wanted_jar(name.format("aarch_64"), hive=False, machine="x86_64")
    assert wanted_jar(name.format("aarch_64"), hive=False, machine="aarch64")
    assert not wanted_jar("netty-tcnative-boringssl-static-2.0.76.Final-osx-x86_64.jar", hive=False, machine="x86_64")


@pytest.mark.parametrize(("master", "operator_home", "hive", "expected"), [
    ("local[2]", None, False, "sql-"), ("spark://10.0.0.1:7077", None, True, "hive-"),
    ("k8s://https://k8s:6443", None, False, None), ("yarn", None, False, None), ("local[2]", "/opt/spark", False, None),
])
def test_which_engines_start_from_the_lean_home(tmp_path: Path, master: str, operator_home: str | None, hive: bool,
                                                 expected: str | None) -> None:
    environ = {**PLATFORM_ENV, **({"SPARK_HOME": operator_home} if operator_home else {})}
    static = (("spark.sql.catalogImplementation", "hive"),) if hive else ()
    with override_settings(SPARK_MASTER=master, LAKEPORT_ENGINE_SCRATCH_DIR=str(tmp_path)):
        home = engine_launch(EngineKey(team="acme", static_conf=static), environ=environ).env.get("SPARK_HOME")
    if expected is None:
        assert home == operator_home
    else:
        assert home is not None and Path(home).parent == tmp_path / ".spark-homes" and Path(home).name.startswith(expected)


def test_the_lean_home_can_be_switched_off(tmp_path: Path) -> None:
    with override_settings(LAKEPORT_ENGINE_LEAN_CLASSPATH=False, LAKEPORT_ENGINE_SCRATCH_DIR=str(tmp_path)):
        assert "SPARK_HOME" not in engine_launch(EngineKey(team="acme"), environ=PLATFORM_ENV).env


@pytest.mark.parametrize(("configured", "expected"), [("warm", "warm"), ("isolated", "isolated"), ("", "warm")])
def test_default_engine_setting(configured: str, expected: str) -> None:
    with override_settings(LAKEPORT_JOB_ENGINE=configured):
        assert default_engine() == expected


def test_a_full_pool_evicts_the_least_recently_used_idle_engine_and_refuses_when_all_are_busy() -> None:
    pool = EnginePool(capacity=2, idle_seconds=600)
    pool._ensure_janitor = lambda: None  # type: ignore[method-assign]  # no thread for bookkeeping alone
    stopped: list[str] = []
    a, b, c = EngineKey(team="a"), EngineKey(team="b"), EngineKey(team="c")
    with pool.lease(a) as ea, pool.lease(b) as eb:
        assert ea is not None and eb is not None
        for e in (ea, eb):
            e.stop = lambda e=e: stopped.append(e.key.team)  # type: ignore[method-assign]
        with pool.lease(c) as ec:
            assert ec is None  # both busy: the caller's run stays QUEUED
    with pool.lease(b):
        pass  # b is used again: a is now the least recently used
    with pool.lease(c) as ec:
        assert ec is not None and stopped == ["a"]  # a was used least recently
    assert {e.key.team for e in pool.engines()} == {"b", "c"}


def test_the_engine_interpreter_imports_every_source_the_runtime_reads() -> None:
    """As root, engines may run the system Python (3.11.2 on Debian 12) with the virtualenv's packages on its path:
    what the virtualenv's newer Python does without (redis-py's async_timeout below 3.11.3) must still be there."""
    python, paths = engine_python("lakeport-engine")
    modules = ("lakeport_engine.engine", "lakeport_engine.streamio.redis_source", "lakeport_engine.streamio.nats_source",
               "lakeport_engine.delta.stream_source", "redis.asyncio")
    done = subprocess.run([python, "-c", "import importlib, sys; [importlib.import_module(m) for m in sys.argv[1:]]",
                           *modules], env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                                           "PYTHONPATH": os.pathsep.join([str(REPO), *paths])},
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, (python, done.stderr[-2000:])
