"""`apply -f` creating, redefining and pruning materialized views (the `materialized_views` section's `query`).

An entry with a `query` declares the view itself: `{name: lake.shop.totals, query: "SELECT …", partitioned_by:
[who], refresh: on_commit | schedule | manual, cron, time_zone}`. Creating or redefining a view computes data and
dropping one deletes it, which only the team's engine does, so the document's Spark part runs as two runs of the
team's job `apply materialized views`, awaited by the apply:

1. **check** — every new or changed definition is created under a scratch name over its query with no rows
   (`SELECT * FROM (<query>) WHERE 1 = 0`, so the check reads no data) and dropped again: the statement's own
   rules (Delta tables of the team only, no time travel or non-deterministic functions, the SQL guard, columns
   and partitioning that exist) judge it exactly as the SQL statement would. A failure is a 400 naming the view,
   and nothing of the document is applied.
2. **apply** — `DROP MATERIALIZED VIEW` for views pruned or redefined, `CREATE MATERIALIZED VIEW` (with the
   entry's refresh clause) for new and redefined ones.

Then the rest of the document is applied in its transaction. A view is "changed" when its entry's query or
partitioning differs from the entry that made it (`MaterializedView.declared`); a view made by SQL that an entry
gives a query to is redefined once and is then the document's. Prune drops only views a document made (never one
made by SQL), like the other sections' prune limited to what the document manages.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from catalogs.models import Catalog, MaterializedView
from core.errors import InvalidInput
from jobs.models import RunStatus, SqlJob
from jobs.services.parameters import ParameterError
from jobs.services.run_waits import run_await_end
from jobs.services.runs import run_submit
from lakeport_engine.sqltext import SqlTextError, split_statements
from teams.models import Team

APPLY_JOB = "apply materialized views"
CHECK_PREFIX = "lakeport_apply_check_"
WAIT_SECONDS = 900.0  # a CREATE computes the view: the apply waits as long as a long editor call would
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class ViewChange:
    """One view the document's Spark part creates (`create`), redefines (`replace`) or drops (`drop`)."""

    name: str  # catalog.database.view
    action: str
    index: int = -1  # its entry in `materialized_views` (-1 for a pruned view)
    declared: dict[str, Any] = field(default_factory=dict)
    create_sql: str = ""
    check_sql: str = ""


def _quoted(name: str) -> str:
    return ".".join(f"`{part}`" for part in name.split("."))


def _declared(entry: dict[str, Any]) -> dict[str, Any]:
    query = entry.get("query")
    if not isinstance(query, str) or not query.strip():
        raise InvalidInput.of({"query": ["A view's query is one SELECT (text)."]})
    try:
        statements = split_statements(query)
    except SqlTextError as exc:
        raise InvalidInput.of({"query": [str(exc)]}) from None
    if len(statements) != 1:
        raise InvalidInput.of({"query": [f"A view's query is one statement; this has {len(statements)}."]})
    partitioned = entry.get("partitioned_by") or []
    if not isinstance(partitioned, list) or not all(isinstance(c, str) and _NAME.match(c) for c in partitioned):
        raise InvalidInput.of({"partitioned_by": ["A list of column names."]})
    return {"query": statements[0].sql.strip(), "partitioned_by": list(partitioned)}


def _refresh_clause(entry: dict[str, Any]) -> str:
    refresh = entry.get("refresh", "manual")
    if refresh == "on_commit":
        return " REFRESH ON COMMIT"
    if refresh == "schedule":
        cron, zone = str(entry.get("cron") or "").strip(), str(entry.get("time_zone") or "")
        return f" SCHEDULE CRON '{cron}'" + (f" AT TIME ZONE '{zone}'" if zone else "")
    return ""


def _create_sql(target: str, declared: dict[str, Any], refresh: str, query: str) -> str:
    partition = f" PARTITIONED BY ({', '.join(declared['partitioned_by'])})" if declared["partitioned_by"] else ""
    return f"CREATE MATERIALIZED VIEW {_quoted(target)}{partition}{refresh} AS\n{query}"


def views_plan(*, team: Team, entries: list[dict[str, Any]], prune: bool,
               fail: Any) -> list[ViewChange]:
    """What the document's Spark part does, validated without Spark (names, catalogs, query shape); entries
    without a `query` only set refresh (declarative/pipelines.py). `fail(label, name, exc)` makes the 400."""
    views = {f"{v.catalog.catalog_name}.{v.database}.{v.name}": v
             for v in MaterializedView.objects.select_related("catalog").filter(catalog__team=team)}
    changes: list[ViewChange] = []
    for index, entry in enumerate(entries):
        name = entry["name"]
        if "query" not in entry and "partitioned_by" not in entry:
            continue
        try:
            parts = name.split(".")
            if len(parts) != 3 or not all(_NAME.match(p) for p in parts):
                raise InvalidInput.of({"name": ["A view's name is catalog.database.view (plain names)."]})
            catalog = Catalog.objects.filter(team=team, catalog_name=parts[0]).first()
            if catalog is None:
                raise InvalidInput.of({"name": [f"No catalog '{parts[0]}' in team '{team.name}'."]})
            if catalog.catalog_type != "delta":
                raise InvalidInput.of({"name": [f"Catalog '{parts[0]}' is a {catalog.catalog_type} catalog; "
                                                "materialized views live in Delta catalogs."]})
            declared = _declared(entry)
        except InvalidInput as exc:
            raise fail(f"materialized_views[{index}]", name, exc) from None
        existing = views.get(name)
        if existing is not None and existing.declared == declared:
            continue  # the same definition: only its refresh settings may change (pipelines.py)
        scratch = f"{parts[0]}.{parts[1]}.{CHECK_PREFIX}{parts[2]}"[:255]
        changes.append(ViewChange(
            name=name, action="create" if existing is None else "replace", index=index, declared=declared,
            create_sql=_create_sql(name, declared, _refresh_clause(entry), declared["query"]),
            check_sql=(_create_sql(scratch, declared, "", f"SELECT * FROM (\n{declared['query']}\n) AS "
                                   "lakeport_apply_check WHERE 1 = 0")
                       + f";\nDROP MATERIALIZED VIEW IF EXISTS {_quoted(scratch)}")))
    if prune:
        listed = {e["name"] for e in entries}
        changes += [ViewChange(name=n, action="drop") for n, v in sorted(views.items())
                    if n not in listed and v.declared]
    return changes


def _run_script(*, team: Team, actor: User | None, script: str) -> tuple[bool, dict[str, Any] | None, int]:
    """Run `script` as a run of the team's `apply materialized views` job and wait for it to end."""
    with transaction.atomic():
        job, _ = SqlJob.objects.select_for_update().get_or_create(team=team, name=APPLY_JOB,
                                                                  defaults={"sql": script})
        job.sql = script  # the run keeps its own copy of the script: the job's text is only the newest
        job.save(update_fields=["sql"])
        run = run_submit(job=job, user=actor).run
    deadline = time.monotonic() + WAIT_SECONDS
    while not run.is_finished and time.monotonic() < deadline:
        run = run_await_end(run=run, seconds=min(30.0, deadline - time.monotonic()))
    if not run.is_finished:
        return False, {"message": f"run {run.id} of '{APPLY_JOB}' did not end within {int(WAIT_SECONDS)} s"}, run.id
    return run.status == RunStatus.SUCCEEDED, run.error, run.id


def views_execute(*, team: Team, actor: User | None, changes: list[ViewChange], fail: Any) -> list[int]:
    """Check every new or changed definition, then drop and create (see the module doc); the runs' ids."""
    runs: list[int] = []
    checked = [c for c in changes if c.action != "drop"]
    try:
        if checked:
            ok, error, run_id = _run_script(team=team, actor=actor, script=";\n".join(c.check_sql for c in checked))
            runs.append(run_id)
            if not ok:
                statement = (error or {}).get("statement")
                bad = checked[min(int(statement) // 2, len(checked) - 1)] if isinstance(statement, int) else None
                message = str((error or {}).get("message") or f"run {run_id} failed")
                if bad is None:
                    raise InvalidInput(f"Nothing was applied; the materialized views' check (run {run_id}) failed: "
                                       f"{message}", {"materialized_views": [message]})
                raise fail(f"materialized_views[{bad.index}]", bad.name,
                           InvalidInput(message, {"query": [message]}))
        script = [f"DROP MATERIALIZED VIEW IF EXISTS {_quoted(c.name)}" for c in changes if c.action != "create"]
        script += [c.create_sql for c in checked]
        ok, error, run_id = _run_script(team=team, actor=actor, script=";\n".join(script))
        runs.append(run_id)
    except ParameterError as exc:  # `${…}` in a query: the runs render parameters as any job's
        raise InvalidInput(f"Nothing was applied; invalid entry materialized_views: {exc.message}",
                           {"materialized_views": [exc.message]}) from None
    if not ok:
        message = str((error or {}).get("message") or f"run {run_id} failed")
        raise InvalidInput(f"The materialized views' apply (run {run_id}) failed after their check passed: {message} "
                           "(the views it dropped or created before the failure are in that run's log; the rest of "
                           "the document was not applied).", {"materialized_views": [message]})
    for change in checked:  # remember the entry that made each view: an unchanged document changes nothing
        catalog, database, name = change.name.split(".")
        MaterializedView.objects.filter(catalog__team=team, catalog__catalog_name=catalog, database=database,
                                        name=name).update(declared=change.declared)
    return runs


__all__ = ["APPLY_JOB", "ViewChange", "views_execute", "views_plan"]
