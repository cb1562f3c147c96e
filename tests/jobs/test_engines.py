"""Engine launch rules that need no Spark: the scrubbed environment, the static conf, the pool's bookkeeping."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from django.test import override_settings

from jobs.engines import default_engine
from jobs.engines.pool import EnginePool
from jobs.engines.process import EngineKey, engine_env, engine_launch, engine_python, engine_static_conf
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


def test_an_operators_jvm_options_keep_the_engines_temp_dir(tmp_path: Path) -> None:
    with override_settings(LAKEPORT_SPARK_STATIC_CONF={"spark.driver.extraJavaOptions": "-XX:+UseG1GC"}):
        conf = engine_static_conf(key=EngineKey(team="acme"), scratch=tmp_path, python="/venv/bin/python")
    assert conf["spark.driver.extraJavaOptions"] == f"-XX:+UseG1GC -Djava.io.tmpdir={tmp_path / 'tmp'}"


def test_the_launch_has_no_secret_on_its_command_line_or_in_its_init() -> None:
    with override_settings(LAKEPORT_SECRET_KEYS=["fernet-key-1"]):
        launch = engine_launch(EngineKey(team="acme"), environ=PLATFORM_ENV)
    text = " ".join(launch.command) + repr(launch.init) + repr(launch.env)
    for secret in ("fernet-key-1", "django-secret", "postgres://", "redis://"):
        assert secret not in text
    assert launch.cwd.endswith("/acme") and launch.init["team"] == "acme"


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
    modules = ("jobs.spark.engine", "jobs.spark.streaming.redis_source", "jobs.spark.streaming.nats_source",
               "jobs.spark.delta.stream_source", "redis.asyncio")
    done = subprocess.run([python, "-c", "import importlib, sys; [importlib.import_module(m) for m in sys.argv[1:]]",
                           *modules], env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                                           "PYTHONPATH": os.pathsep.join([str(REPO), *paths])},
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, (python, done.stderr[-2000:])
