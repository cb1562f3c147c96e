"""A Celery worker with timestamps (bench only): the platform's worker, its engines started as
bench/_profiled_engine.py, and the editor-call path wrapped by timers.

    python bench/_profiled_worker.py <celery worker arguments…>

Appends `{"task", "rid", "name", "t0", "t1"}` lines (wall-clock seconds) to $LAKEPORT_BENCH_PROFILE:
task_prerun/task_postrun of `jobs.sql_interactive`, `interactive_execute`, `engine_key`, the pool's acquire,
the engine request sent and its result received. `task` is the Celery task id, `rid` the engine request id.
LAKEPORT_BENCH_ENGINE_ENV adds variables to the engines' environment (see below).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

import django  # noqa: E402

django.setup()

from celery.signals import task_postrun, task_prerun  # noqa: E402
from django.db.backends.base.base import BaseDatabaseWrapper  # noqa: E402

import jobs.engines as engines  # noqa: E402
import jobs.engines.pool as pool  # noqa: E402
import jobs.engines.process as process  # noqa: E402
import jobs.services.interactive as interactive  # noqa: E402

_local = threading.local()
_lock = threading.Lock()
_out = open(os.environ["LAKEPORT_BENCH_PROFILE"], "a", buffering=1)  # noqa: SIM115


def record(name: str, t0: float, t1: float, *, rid: str | None = None, task: str | None = None) -> None:
    line = json.dumps({"task": task or getattr(_local, "task", None), "rid": rid, "name": name, "t0": t0, "t1": t1})
    with _lock:
        _out.write(line + "\n")


def timed(owner: Any, attr: str, name: str) -> None:
    original = getattr(owner, attr)

    @functools.wraps(original)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        t0 = time.time()
        try:
            return original(*args, **kwargs)
        finally:
            record(name, t0, time.time())

    setattr(owner, attr, wrapper)


_launch = process.engine_launch


# LAKEPORT_BENCH_ENGINE_ENV="K=V;K2=V2": variables added to the engines' environment (an experiment on what the
# platform's allow-list would have to pass, e.g. MALLOC_ARENA_MAX), never set by the platform itself.
EXTRA_ENV = dict(kv.split("=", 1) for kv in os.environ.get("LAKEPORT_BENCH_ENGINE_ENV", "").split(";") if "=" in kv)


def launch(key: Any, *, environ: Any = None) -> Any:
    spec = _launch(key, environ=environ)
    assert spec.command[1:3] == ["-m", "lakeport_engine.engine"], spec.command
    return dataclasses.replace(spec, command=[spec.command[0], str(BENCH / "_profiled_engine.py"), *spec.command[3:]],
                               env={**spec.env, **EXTRA_ENV})


process.engine_launch = launch

_request = process.EngineProcess.request


def request(self: Any, payload: dict[str, Any], **kwargs: Any) -> Any:
    t0 = time.time()
    pending = _request(self, payload, **kwargs)
    record("worker: engine.request (send)", t0, time.time(), rid=pending.id)
    return pending


_finish = process.PendingRequest.finish


def finish(self: Any, result: dict[str, Any]) -> None:
    now = time.time()
    record("worker: result received", now, now, rid=self.id, task="")
    _finish(self, result)


process.PendingRequest.finish = finish
process.EngineProcess.request = request
timed(interactive, "interactive_execute", "worker: interactive_execute")
timed(engines, "engine_key", "worker: engine_key (static conf lookup)")
timed(pool.EnginePool, "_acquire", "worker: pool acquire")
timed(BaseDatabaseWrapper, "connect", "worker: new PostgreSQL connection")
timed(interactive.Team.objects, "get", "worker: Team.objects.get")  # this manager instance only


@task_prerun.connect
def _prerun(task_id: str | None = None, task: Any = None, **kwargs: Any) -> None:
    _local.task = task_id
    now = time.time()
    record(f"worker: task_prerun {getattr(task, 'name', '')}", now, now)


@task_postrun.connect
def _postrun(task_id: str | None = None, task: Any = None, **kwargs: Any) -> None:
    now = time.time()
    record(f"worker: task_postrun {getattr(task, 'name', '')}", now, now)
    _local.task = None


if __name__ == "__main__":
    from celery.__main__ import main

    sys.argv = ["celery", "-A", "config", *sys.argv[1:]]
    sys.exit(main())
