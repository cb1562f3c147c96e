"""Engine plumbing that needs no Spark: the spark-submit command, engine choice, the event tail."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.test import override_settings

from jobs.engines import default_engine
from jobs.engines.base import store_dsn
from jobs.engines.isolated import EventTail, SubmitSpec, spark_submit_command


def spec(**kw: object) -> SubmitSpec:
    base = dict(master="spark://10.0.0.5:7077", app_name="lakeport-run-7", store="postgresql://lakeport@db:5432/lp",
                team="acme", script_file="/tmp/x/script.sql", events_file="/tmp/x/events.jsonl", preview_limit=1000,
                jars=["/usr/share/java/postgresql.jar"], conf={"spark.sql.shuffle.partitions": "8"},
                spark_submit="/opt/spark/bin/spark-submit", runner="/srv/jobs/spark/runner.py")
    base.update(kw)
    return SubmitSpec(**base)  # type: ignore[arg-type]


def test_spark_submit_command_is_an_argument_list() -> None:
    assert spark_submit_command(spec()) == [
        "/opt/spark/bin/spark-submit", "--master", "spark://10.0.0.5:7077", "--name", "lakeport-run-7",
        "--jars", "/usr/share/java/postgresql.jar", "--conf", "spark.sql.shuffle.partitions=8",
        "/srv/jobs/spark/runner.py", "--store", "postgresql://lakeport@db:5432/lp", "--team", "acme",
        "--events", "/tmp/x/events.jsonl", "--preview-limit", "1000", "--app-name", "lakeport-run-7",
        "/tmp/x/script.sql",
    ]
    assert "--deploy-mode" in spark_submit_command(spec(master="k8s://https://api:6443"))


def test_the_database_password_goes_to_the_environment_never_the_command_line() -> None:
    db = {"ENGINE": "django.db.backends.postgresql", "PASSWORD": "db-Pa55word!", "USER": "lakeport",
          "HOST": "db.internal", "PORT": 5433, "NAME": "lp"}
    dsn, env = store_dsn(db)
    assert dsn == "postgresql://lakeport@db.internal:5433/lp"
    assert env == {"PGPASSWORD": "db-Pa55word!"}
    assert "db-Pa55word!" not in " ".join(spark_submit_command(spec(store=dsn)))


@pytest.mark.parametrize(
    ("master", "configured", "expected"),
    [("local[*]", "warm", "warm"), ("local[2]", "isolated", "isolated"), ("spark://m:7077", "warm", "isolated"),
     ("k8s://https://k:6443", "warm", "isolated"), ("yarn", "warm", "isolated")],
)
def test_cluster_masters_always_use_the_isolated_engine(master: str, configured: str, expected: str) -> None:
    with override_settings(SPARK_MASTER=master, LAKEPORT_JOB_ENGINE=configured):
        assert default_engine() == expected


def test_event_tail_reads_only_complete_lines(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_text(json.dumps({"event": "log", "message": "a"}) + "\n" + '{"event": "statement_st')
    tail = EventTail(path)
    assert tail.read() == [{"event": "log", "message": "a"}]
    with open(path, "a") as fh:
        fh.write('art", "index": 0, "total": 1}\n')
    assert tail.read() == [{"event": "statement_start", "index": 0, "total": 1}]
    assert tail.read() == []
