"""A team engine with timestamps (bench only): `lakeport_engine.engine` with its request path wrapped by timers.

Started instead of `python -m lakeport_engine.engine` by bench/_profiled_worker.py. Every wrapped call appends
`{"rid", "name", "t0", "t1"}` (wall-clock seconds, shared with the worker and the benchmark on one machine) to
`profile.jsonl` in the engine's working directory (the team's scratch directory). `rid` is the engine request
id the call served; messages read from the channel are recorded as `recv:<op>` with the id they carry.
Nothing else changes: the engine code that runs is the platform's.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

from pyspark.sql import SparkSession
from pyspark.sql.classic.dataframe import DataFrame

from lakeport_engine import channel as C
from lakeport_engine import engine as E
from lakeport_engine import guard as G
from lakeport_engine import resolver as R
from lakeport_engine import script as S

OUT = Path(os.getcwd()) / "profile.jsonl"
_local = threading.local()
_lock = threading.Lock()
_out = open(OUT, "a", buffering=1)  # noqa: SIM115 (the engine's lifetime)


def record(name: str, t0: float, t1: float, rid: str | None = None) -> None:
    line = json.dumps({"rid": rid or getattr(_local, "rid", None), "name": name, "t0": t0, "t1": t1})
    with _lock:
        _out.write(line + "\n")


def timed(owner: Any, attr: str, name: str | None = None) -> None:
    original = getattr(owner, attr)
    label = name or f"{getattr(owner, '__name__', owner)}.{attr}"

    @functools.wraps(original)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        t0 = time.time()
        try:
            return original(*args, **kwargs)
        finally:
            record(label, t0, time.time())

    setattr(owner, attr, wrapper)


_run_request = E.EngineHost._run_request


def run_request(self: Any, request_id: str, request: dict[str, Any]) -> None:
    _local.rid = request_id
    t0 = time.time()
    try:
        _run_request(self, request_id, request)
    finally:
        record("engine._run_request", t0, time.time())
        _local.rid = None


E.EngineHost._run_request = run_request

_messages = C.Channel.messages


def messages(self: Any):  # noqa: ANN201
    for message in _messages(self):
        now = time.time()
        if message.get("op") in ("run", "answer"):
            record(f"recv:{message.get('op')}", now, now, rid=str(message.get("id") or message.get("ask")))
        yield message


C.Channel.messages = messages

_send = C.Channel.send


def send(self: Any, message: dict[str, Any]) -> None:
    t0 = time.time()
    try:
        _send(self, message)
    finally:
        if message.get("op") in ("result", "catalog", "catalogs", "contains"):
            record(f"send:{message.get('op')}", t0, time.time())


C.Channel.send = send

_schema = DataFrame.__dict__["schema"].func  # a cached_property in classic PySpark


def _timed_schema(self: Any) -> Any:
    t0 = time.time()
    try:
        return _schema(self)
    finally:
        record("DataFrame.schema (first access: JVM schema → JSON)", t0, time.time())


_cached = functools.cached_property(_timed_schema)
_cached.__set_name__(DataFrame, "schema")
DataFrame.schema = _cached

for owner, attr, name in [
    (E.EngineHost, "_runner", "engine._runner (newSession + ScriptRunner)"),
    (E.EngineHost, "_preview", "engine._preview"),
    (E, "plan_writes", "engine.plan_writes"),
    (E.PlatformAsker, "ask", "asker.ask (catalog question over the channel)"),
    (S.ScriptRunner, "__init__", "ScriptRunner.__init__"),
    (S.ScriptRunner, "run", "ScriptRunner.run"),
    (S.ScriptRunner, "_static_error", "ScriptRunner._static_error"),
    (S.ScriptRunner, "_run_statement", "ScriptRunner._run_statement"),
    (S.ScriptRunner, "_preview", "ScriptRunner._preview (schema + limit + collect)"),
    (S, "split_statements", "split_statements"),
    (R.CatalogResolver, "unknown_catalogs", "resolver.unknown_catalogs"),
    (R.CatalogResolver, "syntax_error", "resolver.syntax_error (parsePlan)"),
    (R.CatalogResolver, "prepare", "resolver.prepare (bind)"),
    (R.CatalogResolver, "bind", "resolver.bind"),
    (R.CatalogResolver, "check", "resolver.check (guard with scope)"),
    (R.CatalogResolver, "execute", "resolver.execute"),
    (R.CatalogResolver, "spark_catalogs", "resolver.spark_catalogs (conf dump)"),
    (R.jdbc_binding, "register", "jdbc_binding.register"),
    (G.SqlGuard, "check", "guard.check"),
    (G.SqlGuard, "_parse", "guard._parse (parsePlan + toJSON)"),
    (SparkSession, "newSession", "spark.newSession"),
    (SparkSession, "sql", "spark.sql (parse + analyse)"),
    (DataFrame, "collect", "DataFrame.collect"),
    (DataFrame, "limit", "DataFrame.limit"),
]:
    timed(owner, attr, name)

if __name__ == "__main__":
    sys.exit(E.main())
