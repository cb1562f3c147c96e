"""Engines that execute a run's script: warm (shared SparkContext, new session per run) and isolated
(`spark-submit` per run). `engine_for()` picks one per run; see docs/jobs.md ("Engines") for the rules."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings

from jobs.models import Engine

logger = logging.getLogger("lakeport.jobs")

CLUSTER_MASTER_PREFIXES = ("spark://", "k8s://", "yarn")


def default_engine() -> str:
    """The platform default (LAKEPORT_JOB_ENGINE); cluster masters always mean isolated."""
    if settings.SPARK_MASTER.startswith(CLUSTER_MASTER_PREFIXES):
        return Engine.ISOLATED
    return Engine.ISOLATED if settings.LAKEPORT_JOB_ENGINE == Engine.ISOLATED else Engine.WARM


def static_conf_for(*, script: str, team: str) -> dict[str, str]:
    """Static Spark conf the script's catalogs need before the session starts ({} for JDBC/Delta only)."""
    from jobs.engines.store import DjangoCatalogStore
    from jobs.spark.resolver import static_conf

    return dict(static_conf(script, DjangoCatalogStore(team), team))


def engine_for(*, run: Any, script: str) -> Any:
    """The engine for one run.

    `warm` unless the job or the platform asks for `isolated` or the master is a cluster; a script whose
    static conf (a Hive catalog) differs from the warm context's goes to an isolated driver started with that
    conf — one SparkContext per process, so the warm context cannot change it.
    """
    from jobs.engines.isolated import IsolatedEngine
    from jobs.engines.warm import WarmEngine, warm_context_has

    wanted = run.engine if run.engine != Engine.DEFAULT else default_engine()
    if settings.SPARK_MASTER.startswith(CLUSTER_MASTER_PREFIXES):
        wanted = Engine.ISOLATED
    static = static_conf_for(script=script, team=run.team.name)
    if wanted == Engine.WARM and warm_context_has(static):
        return WarmEngine()
    return IsolatedEngine(static_conf=static)
