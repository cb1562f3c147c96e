"""Where a run executes: always in an engine process of its team, never in the worker or the web process.

`warm` runs share the team's long-lived engine (one per team and static conf, a new SparkSession per run);
`isolated` runs get an engine of their own, stopped when the run ends. See docs/engines.md.
"""

from __future__ import annotations

from django.conf import settings

from jobs.engines.process import EngineKey
from jobs.engines.store import DjangoCatalogStore
from jobs.models import Engine
from lakeport_engine.resolver import static_conf
from lakeport_engine.sqltext import SqlTextError


def default_engine() -> str:
    """The platform default (LAKEPORT_JOB_ENGINE)."""
    return Engine.ISOLATED if settings.LAKEPORT_JOB_ENGINE == Engine.ISOLATED else Engine.WARM


def static_conf_for(*, script: str, team: str) -> dict[str, str]:
    """Static Spark conf the script's catalogs need before the session starts ({} for JDBC/Delta only)."""
    try:
        return dict(static_conf(script, DjangoCatalogStore(team), team))
    except SqlTextError:
        return {}  # the engine reports the script's syntax error with its position


def engine_key(*, team: str, script: str, engine: str = Engine.DEFAULT, run_id: int | None = None) -> EngineKey:
    """The engine a script of `team` runs on: the team's shared one for its static conf, or a dedicated one.

    A script whose static conf (a Hive catalog's metastore) differs from the plain engine's gets an engine keyed
    by that conf: one SparkContext per process, so a running engine cannot change it.
    """
    wanted = engine if engine != Engine.DEFAULT else default_engine()
    static = tuple(sorted(static_conf_for(script=script, team=team).items()))
    dedicated = f"run{run_id}" if wanted == Engine.ISOLATED and run_id is not None else ""
    return EngineKey(team=team, static_conf=static, dedicated=dedicated)
