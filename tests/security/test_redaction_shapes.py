"""The masking every message, log line, OpenLineage facet and Spark plan string goes through
(lakeport_kernel/redaction.py): the spellings of a typed password in SQL options and URLs, and JVM stack traces
cut from error text. The API-level replays are in test_run_outputs.py."""

from __future__ import annotations

import re

import pytest

from lakeport_kernel.redaction import redact, register_secret, spark_redaction_regex, without_jvm_frames

SECRET = "Opt-Secret-4411"
SPELLINGS = [
    f"OPTIONS (url 'jdbc:postgresql://h/db', user 'u', password '{SECRET}')",
    f"OPTIONS ('password' '{SECRET}')",
    f"OPTIONS ('password'='{SECRET}')",
    f"OPTIONS (\"password\" = \"{SECRET}\")",
    f"WITH ('url'='jdbc:mysql://h/db?user=u&password={SECRET}&x=1')",
    f"jdbc:postgresql://u:{SECRET}@h/db",
    f'{{"secret": "{SECRET}"}}',
    f"access_key: {SECRET}",
    f"Authorization: Bearer {SECRET}",
    f"SECRET_KEY {SECRET!r}",
]


def as_python(java_regex: str) -> str:
    """The Java regex with its `\\Q…\\E` quoted secrets (registered by other tests) in Python's spelling."""
    return re.sub(r"\\Q(.*?)\\E", lambda m: re.escape(m.group(1)), java_regex)


@pytest.mark.parametrize("text", SPELLINGS)
def test_typed_secrets_are_masked_in_every_spelling(text: str) -> None:
    assert SECRET not in redact(text), redact(text)
    # Spark applies the same shapes (as a Java regex) to plan strings; Python's re reads this subset alike
    assert SECRET not in re.sub(as_python(spark_redaction_regex()), "*********(redacted)", text), text


@pytest.mark.parametrize("text", ["Syntax error at or near token 'FROM'", "SELECT password FROM users",
                                  "Unexpected token 'x' at line 1", "the password is wrong"])
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact(text) == text


TRACE = """org.apache.spark.SparkException: Job aborted due to stage failure: Task 0 in stage 3.0 failed 1 times, most \
recent failure: Lost task 0.0 in stage 3.0 (TID 3) (127.0.0.1 executor driver): org.postgresql.util.PSQLException: \
ERROR: division by zero
\tat org.postgresql.core.v3.QueryExecutorImpl.receiveErrorResponse(QueryExecutorImpl.java:2733)
\tat org.apache.spark.sql.execution.datasources.jdbc.JDBCRDD.compute(JDBCRDD.scala:304)
\tat java.base/java.lang.Thread.run(Thread.java:840)
Caused by: java.sql.SQLException: the server said no
\tat sun.nio.ch.Net.connect0(Native Method)
\t... 12 more

Driver stacktrace:
\tat org.apache.spark.scheduler.DAGScheduler.failJobAndIndependentStages(DAGScheduler.scala:2393)"""


def test_jvm_frames_are_cut_and_the_message_kept() -> None:
    text = redact(TRACE)
    assert "ERROR: division by zero" in text and "Cause: java.sql.SQLException: the server said no" in text
    assert not re.search(r"^\s*at |Caused by:|Driver stacktrace|\.\.\. \d+ more", text, re.MULTILINE), text


def test_sql_that_only_looks_like_a_trace_is_kept() -> None:
    sql = "SELECT 1 -- Caused by: me\n  at least(1)\n... 3 more"
    assert without_jvm_frames(sql) == sql


def test_registered_secrets_join_the_spark_regex() -> None:
    value = "Reg-Secret-77$\\E.x"  # regex characters and Java's quote terminator inside a secret
    register_secret(value)
    assert re.sub(as_python(spark_redaction_regex()), "#", f"a {value} b") == "a # b"
