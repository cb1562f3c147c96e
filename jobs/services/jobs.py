"""Writes of SQL jobs: create, update, delete, with the checks every job must pass."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from catalogs.models import Catalog
from core.errors import Conflict, InvalidInput
from jobs.models import Engine, JobKind, SqlJob
from jobs.services.parameters import (
    ParameterError,
    check_script_parameters,
    clean_declarations,
    script_rendered,
)
from lakeport_engine.sqltext import SqlTextError
from lakeport_engine.streaming.emit import EMIT_RULE, split_emit
from lakeport_engine.streaming.errors import StreamingStatementError
from lakeport_engine.streaming.script import SHAPE_RULE, split_script
from lakeport_engine.streaming.statement import parse_streaming
from teams.models import Team

MAX_CONF_ENTRIES = 100


def check_script(sql: str) -> None:
    """Refuse an empty script or one above LAKEPORT_MAX_SCRIPT_BYTES, with a message saying which."""
    if not sql or not sql.strip():
        raise InvalidInput.of({"sql": ["The SQL script is empty."]})
    size = len(sql.encode("utf-8"))
    limit = settings.LAKEPORT_MAX_SCRIPT_BYTES
    if size > limit:
        raise InvalidInput.of({"sql": [f"The SQL script is {size} bytes; the limit is {limit} bytes."]})


def check_kind(*, kind: str, sql: str, parameters: dict[str, Any] | None = None) -> None:
    """A streaming job's script must be batch statements then one streaming INSERT (… FROM STREAM(…) [EMIT …]).

    Its streaming statement is also checked as its driver will read it (rendered with the parameters' defaults, as
    a stream runs): an EMIT clause the runtime does not know, or a statement that is not `INSERT INTO … SELECT …
    FROM STREAM(…)`, is refused here rather than at the first start. What depends on the team's catalogs stays
    with the start (streams/services/statement.py): a catalog may be created after the job.
    """
    if kind != JobKind.STREAMING:
        return
    try:
        split_script(sql)
    except (StreamingStatementError, SqlTextError) as exc:
        raise InvalidInput.of({"sql": [f"Not a streaming script: {exc} (rule: {SHAPE_RULE})"]}) from None
    try:
        rendered = script_rendered(sql, declared=parameters or {}, logical_date=timezone.now())
    except ParameterError:
        return  # the start says which parameter cannot render (rule: parameters)
    _, statement = split_script(rendered.sql)
    line = rendered.written_position(statement.line, statement.column)[0]
    for rule, check in ((EMIT_RULE, split_emit), (SHAPE_RULE, parse_streaming)):
        try:
            check(statement.sql)
        except StreamingStatementError as exc:
            raise InvalidInput.of({"sql": [f"Statement {statement.index + 1} (line {line}): {exc} (rule: {rule})"]}) \
                from None


def clean_spark_conf(conf: Any) -> dict[str, str]:
    """Spark conf overrides as strings; keys must be on the admin allow-list (LAKEPORT_SPARK_CONF_ALLOWLIST)."""
    if conf is None:
        return {}
    if not isinstance(conf, dict):
        raise InvalidInput.of({"spark_conf": ["Expected an object of Spark conf keys to values."]})
    if len(conf) > MAX_CONF_ENTRIES:
        raise InvalidInput.of({"spark_conf": [f"At most {MAX_CONF_ENTRIES} entries."]})
    allowed = set(settings.LAKEPORT_SPARK_CONF_ALLOWLIST)
    cleaned: dict[str, str] = {}
    for key, value in conf.items():
        if key not in allowed:
            raise InvalidInput.of(
                {"spark_conf": [f"Spark conf '{str(key)[:200]}' is not on the allow-list; allowed: {', '.join(sorted(allowed))}."]}
            )
        if isinstance(value, bool):
            value = "true" if value else "false"
        if not isinstance(value, (str, int, float)) or len(str(value)) > 1000:
            raise InvalidInput.of({"spark_conf": [f"Spark conf '{key}' needs a string, number or boolean value."]})
        cleaned[key] = str(value)
    return cleaned


def check_default_catalog(*, team: Team, name: str) -> None:
    """A job's default catalog must exist in its team."""
    if name and not Catalog.objects.filter(team=team, catalog_name=name).exists():
        raise InvalidInput.of({"default_catalog": [f"No catalog named '{name}' in team '{team.name}'."]})


@transaction.atomic
def job_create(
    *,
    team: Team,
    user: Any,
    name: str,
    sql: str,
    spark_conf: dict[str, Any] | None = None,
    default_catalog: str = "",
    engine: str = Engine.DEFAULT,
    max_retries: int = 0,
    parameters: dict[str, Any] | None = None,
    kind: str = JobKind.BATCH,
) -> SqlJob:
    """Create a SQL job in `team`; a duplicate name, empty/oversized script, unknown catalog or conf key is refused.

    A bad parameter declaration or a `${name}` the job does not declare raises ParameterError naming it.
    """
    check_script(sql)
    declared = clean_declarations(parameters)
    check_script_parameters(sql, declared)
    check_kind(kind=kind, sql=sql, parameters=declared)
    conf = clean_spark_conf(spark_conf)
    check_default_catalog(team=team, name=default_catalog)
    if SqlJob.objects.filter(team=team, name=name).exists():
        raise InvalidInput.of({"name": [f"A job named '{name}' already exists in team '{team.name}'."]})
    try:
        with transaction.atomic():
            return SqlJob.objects.create(
                team=team, name=name, sql=sql, spark_conf=conf, default_catalog=default_catalog, engine=engine,
                max_retries=max_retries, parameters=declared, kind=kind,
                created_by=user if getattr(user, "is_authenticated", False) else None,
            )
    except IntegrityError:  # a concurrent create with the same name
        raise InvalidInput.of({"name": [f"A job named '{name}' already exists in team '{team.name}'."]}) from None


@transaction.atomic
def job_update(*, job: SqlJob, data: dict[str, Any]) -> SqlJob:
    """Change the given fields of `job` (name, sql, spark_conf, default_catalog, engine, max_retries, parameters,
    kind).

    Runs already submitted keep the script and conf they were submitted with.
    """
    job = SqlJob.objects.select_for_update().get(pk=job.pk)
    if "sql" in data:
        check_script(data["sql"])
        job.sql = data["sql"]
    if "spark_conf" in data:
        job.spark_conf = clean_spark_conf(data["spark_conf"])
    if "default_catalog" in data:
        check_default_catalog(team=job.team, name=data["default_catalog"])
        job.default_catalog = data["default_catalog"]
    if "name" in data and data["name"] != job.name:
        if SqlJob.objects.filter(team_id=job.team_id, name=data["name"]).exclude(pk=job.pk).exists():
            raise InvalidInput.of({"name": [f"A job named '{data['name']}' already exists in this team."]})
        job.name = data["name"]
    for field in ("engine", "max_retries", "kind"):
        if field in data:
            setattr(job, field, data[field])
    if "parameters" in data:
        job.parameters = clean_declarations(data["parameters"])
    check_script_parameters(job.sql, job.parameters)
    check_kind(kind=job.kind, sql=job.sql, parameters=job.parameters)
    job.updated_at = timezone.now()
    job.save()
    return job


@transaction.atomic
def job_delete(*, job: SqlJob) -> None:
    """Delete a job and its finished runs; a job with a queued or running run is refused (cancel it first)."""
    from jobs.models import RunStatus

    if job.runs.filter(status__in=[RunStatus.QUEUED, RunStatus.RUNNING]).exists():
        raise Conflict("The job has a queued or running run; cancel it before deleting the job.")
    job.delete()
