"""The warm engine: one SparkContext per worker process, created lazily; every run gets `spark.newSession()`.

A new session has its own SQL conf, catalogs, current catalog and temp views, so runs cannot see each other's
state, while the JVM, the executors and the JDBC driver classes stay warm. Static conf (Hive support, jars)
belongs to the context: a run needing a different one is routed elsewhere (see jobs/engines/__init__.py).
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from typing import Any

from django.conf import settings

from jobs.engines.base import Outcome, last_result
from jobs.spark.progress import stage_progress

logger = logging.getLogger("lakeport.jobs")

_lock = threading.Lock()
_spark: Any = None


def warm_static_conf() -> dict[str, str]:
    """Static conf the warm context is created with."""
    conf = {
        "spark.app.name": "lakeport-warm",
        # FAIR so a short run is not stuck behind a long one sharing the context.
        "spark.scheduler.mode": "FAIR",
        "spark.ui.showConsoleProgress": "false",  # progress goes to the run row, not a worker's stderr
    }
    jars = [j for j in settings.SPARK_JDBC_JARS if os.path.exists(j)]
    if jars:
        conf["spark.jars"] = ",".join(jars)
    conf.update({str(k): str(v) for k, v in settings.LAKEPORT_SPARK_STATIC_CONF.items()})
    return conf


def warm_session() -> Any:
    """The process-wide SparkSession (created on first use, or the one already active in this process)."""
    global _spark
    with _lock:
        if _spark is None or _spark.sparkContext._jsc is None:
            from pyspark import SparkContext
            from pyspark.sql import SparkSession

            os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
            if SparkContext._active_spark_context is not None:
                # A context already lives in this process (one per process): use it as is.
                _spark = SparkSession.builder.getOrCreate()
            else:
                builder = SparkSession.builder.master(settings.SPARK_MASTER)
                for key, value in warm_static_conf().items():
                    builder = builder.config(key, value)
                _spark = builder.getOrCreate()
            logger.info("engine.warm_started", extra={"app_id": _spark.sparkContext.applicationId})
        return _spark


def warm_context_has(conf: dict[str, str]) -> bool:
    """True when the warm context already runs with every key/value of `conf` (so a run needing it fits)."""
    if not conf:
        return True
    spark_conf = warm_session().sparkContext.getConf()
    return all(spark_conf.get(k) == v for k, v in conf.items())


def job_group_for(run_id: int) -> str:
    return f"lakeport-run-{run_id}"


def new_run_session(*, spark_conf: dict[str, str]) -> Any:
    """A fresh session on the warm context with the run's (allow-listed) SQL conf applied."""
    session = warm_session().newSession()
    for key, value in spark_conf.items():
        session.conf.set(key, value)
    return session


def catalog_store(team: str) -> Any:
    """The catalog store for `team` inside this Django process (the ORM, secrets opened here)."""
    from jobs.engines.store import DjangoCatalogStore

    return DjangoCatalogStore(team)


class WarmEngine:
    """Runs a script in a new session of this process's warm SparkContext."""

    name = "warm"

    def execute(self, *, run: Any, recorder: Any, script: str) -> Outcome:
        """Run `script` for `run`, reporting to `recorder`; cancel arrives through `recorder.on_cancel`."""
        from jobs.spark.script import ScriptRunner

        session = new_run_session(spark_conf=run.spark_conf or {})
        sc = session.sparkContext
        group = job_group_for(run.id)
        recorder.set_app(app_id=sc.applicationId, ui_url=sc.uiWebUrl or "")
        runner = ScriptRunner(session, catalog_store(run.team.name), team=run.team.name,
                              preview_limit=settings.LAKEPORT_RESULT_PREVIEW_ROWS, listener=recorder, job_group=group)
        recorder.sample_progress_with(lambda: stage_progress(sc, group))
        recorder.on_cancel(runner.cancel)
        if run.default_catalog:
            use_default_catalog(runner, run.default_catalog)
        result = runner.run(script)
        recorder.set_progress(**stage_progress(sc, group))  # the final counts, even for runs shorter than a sample
        statements = [_as_dict(s) for s in result.statements]
        return Outcome(succeeded=result.succeeded, error=result.error, statements=statements,
                       catalogs_used=list(result.catalogs_used), result=last_result(statements), engine=self.name,
                       cancelled=result.cancelled)


def use_default_catalog(runner: Any, name: str) -> None:
    """Make `name` the current catalog of the runner's session before the script, as `USE CATALOG name` would."""
    from jobs.spark.script import split_statements

    runner.resolver.execute(split_statements(f"USE CATALOG `{name}`")[0])


def _as_dict(statement: Any) -> dict[str, Any]:
    from dataclasses import asdict, is_dataclass

    return asdict(statement) if is_dataclass(statement) else dict(statement)
