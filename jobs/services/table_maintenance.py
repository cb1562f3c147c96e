"""OPTIMIZE and VACUUM of a Delta table as platform runs, started by a team admin from the metadata browser's table
panel: one SQL job per table and operation (`optimize <cat>.<db>.<table>`, script `OPTIMIZE …`), like a
materialized view's refresh, so maintenance has a run's log, result (Delta's metrics), lineage and history
(docs/delta.md)."""

from __future__ import annotations

import re
from typing import Any

from django.db import IntegrityError, transaction

from catalogs.models import Catalog
from core.errors import InvalidInput, NotFound
from jobs.models import SqlJob
from jobs.services.runs import Submission, run_submit
from teams.models import Team

OPERATIONS = ("optimize", "vacuum")
# The connector's rule for database and table names (lakeport_engine.delta.catalog.check_name): the names are
# written into the job's SQL between backticks, so nothing else may pass.
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
MAX_RETAIN_HOURS = 24 * 365 * 10


def maintenance_catalog(*, team: Team, catalog: str) -> Catalog:
    """The team's Delta catalog `catalog`; another team's or a missing one is NotFound (404)."""
    row = Catalog.objects.filter(team=team, catalog_name=catalog).first()
    if row is None:
        raise NotFound(f"No catalog '{catalog}' in team '{team.name}'.")
    if row.catalog_type != "delta":
        raise InvalidInput(f"OPTIMIZE and VACUUM run on Delta catalogs; '{catalog}' is a {row.catalog_type} "
                           "catalog.", details={"name": ["not a Delta catalog"]})
    return row


def maintenance_sql(*, catalog: Catalog, database: str, table: str, operation: str,
                    retain_hours: int | None = None) -> str:
    """The statement a maintenance run executes; names and options are checked, never spliced in raw."""
    for field, value in (("database", database), ("table", table)):
        if not _NAME.match(value):
            raise InvalidInput(f"'{value}' is not a valid {field} name of a Delta catalog (letters, digits, '_', "
                               "'-', starting with a letter or digit).", details={field: ["invalid name"]})
    if operation not in OPERATIONS:
        raise InvalidInput(f"operation must be one of {', '.join(OPERATIONS)}.", details={"operation": ["invalid"]})
    qualified = f"`{catalog.catalog_name}`.`{database}`.`{table}`"
    if operation == "optimize":
        if retain_hours is not None:
            raise InvalidInput("retain_hours applies to VACUUM only.", details={"retain_hours": ["vacuum only"]})
        return f"OPTIMIZE {qualified}"
    if retain_hours is None:
        return f"VACUUM {qualified}"
    if not 0 <= retain_hours <= MAX_RETAIN_HOURS:
        raise InvalidInput(f"retain_hours must be between 0 and {MAX_RETAIN_HOURS}.",
                           details={"retain_hours": ["out of range"]})
    return f"VACUUM {qualified} RETAIN {retain_hours} HOURS"


def _job_name(catalog: Catalog, database: str, table: str, operation: str) -> str:
    return f"{operation} {catalog.catalog_name}.{database}.{table}"[:200]


def maintenance_job(*, catalog: Catalog, database: str, table: str, operation: str,
                    retain_hours: int | None = None) -> SqlJob:
    """The table's job for `operation` (created on first use; its SQL follows the latest request)."""
    sql = maintenance_sql(catalog=catalog, database=database, table=table, operation=operation,
                          retain_hours=retain_hours)
    name = _job_name(catalog, database, table, operation)
    try:
        with transaction.atomic():
            job, _ = SqlJob.objects.get_or_create(team_id=catalog.team_id, name=name, defaults={"sql": sql})
    except IntegrityError:  # a concurrent first request created it
        job = SqlJob.objects.get(team_id=catalog.team_id, name=name)
    if job.sql != sql:
        job.sql = sql
        job.save(update_fields=["sql"])
    return job


def maintenance_submit(*, team: Team, catalog: str, database: str, table: str, operation: str, user: Any,
                       retain_hours: int | None = None) -> Submission:
    """Queue an OPTIMIZE or VACUUM run of the team's Delta table."""
    row = maintenance_catalog(team=team, catalog=catalog)
    job = maintenance_job(catalog=row, database=database, table=table, operation=operation,
                          retain_hours=retain_hours)
    return run_submit(job=job, user=user)


def maintenance_jobs(*, team: Team, catalog: str, database: str, table: str) -> list[int]:
    """Ids of the table's maintenance jobs, for its maintenance history."""
    row = maintenance_catalog(team=team, catalog=catalog)
    names = [_job_name(row, database, table, op) for op in OPERATIONS]
    return list(SqlJob.objects.filter(team_id=row.team_id, name__in=names).values_list("id", flat=True))
