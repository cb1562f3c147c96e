"""A streaming job's statement as its driver will run it, and the checks a start makes before anything is sent.

What can be decided without Spark is refused at start time with a 400 (`stream_statement_check`), so a user
hears at once what an asynchronous FAILED would only tell later: parameters that do not render, a script that is
not batch statements then one streaming INSERT, an EMIT clause the runtime does not know, a `STREAM(…)` or an
INSERT target in a catalog the team does not have, a `STREAM(…)` of a catalog type that cannot stream. Saving a
job runs the same check without the team's catalogs (`script_problem`, through the streaming kind's rules in
streams/services/kind_rules.py): a catalog may be created after the job. A start checks it again, rendered, and
against the team's catalogs as they are now (a catalog created, deleted or retyped since the job was saved).
Spark's analysis, the SQL guard and the sink's checks stay with the driver (a planning refusal there is still
FAILED at once).

The pure checks are the runtime's own (lakeport_engine/streaming: `split_script`, `split_emit`, `parse_streaming`;
lakeport_engine/bindings: which catalog types stream), none of which loads pyspark.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.utils import timezone

from catalogs.models import Catalog
from core.errors import InvalidInput
from jobs.models import SqlJob
from jobs.services.parameters import ParameterError, RenderedScript, script_rendered
from lakeport_engine.bindings import UnknownCatalogType, binding_for, can_stream
from lakeport_engine.sqltext import SqlTextError, Statement, first_keyword, use_catalog
from lakeport_engine.streaming.emit import EMIT_RULE, split_emit
from lakeport_engine.streaming.errors import StreamingStatementError
from lakeport_engine.streaming.script import SHAPE_RULE, split_script
from lakeport_engine.streaming.sources import STREAMING_TYPES
from lakeport_engine.streaming.statement import parse_streaming

# The rule a refusal names (as the SQL guard's "(rule: …)"), so a user and a test can tell the checks apart.
RULE_PARAMETERS = "parameters"
RULE_SHAPE = SHAPE_RULE
RULE_EMIT = EMIT_RULE
RULE_CATALOG = "unknown-catalog"
RULE_STREAM_TYPE = "stream-catalog-type"
RULE_NAME = "qualified-name"


def stream_script(job: SqlJob, *, at: datetime | None = None) -> RenderedScript:
    """The job's script as its driver runs it: each `${name}` rendered with its default (`ds`/`ts`: `at`, UTC).

    A parameter without a default, or a default that no longer parses, raises ParameterError naming it.
    """
    return _rendered(job.sql, job.parameters or {}, at=at)


def _rendered(sql: str, parameters: Mapping[str, Any], *, at: datetime | None = None) -> RenderedScript:
    return script_rendered(sql, declared=parameters, logical_date=at or timezone.now())


@dataclass(frozen=True)
class StatementProblem:
    """Why a streaming statement cannot start: the rule, the message, and where (statement index, written line)."""

    rule: str
    message: str
    statement: int | None = None
    line: int | None = None

    def text(self) -> str:
        where = f"Statement {self.statement + 1} (line {self.line}): " if self.statement is not None else ""
        return f"{where}{self.message} (rule: {self.rule})"


def stream_statement_check(*, job: SqlJob) -> None:
    """Refuse (InvalidInput, a 400) a streaming job whose statement its driver would refuse before Spark runs.

    `details` is `{"sql": [<statement, line, reason, rule>]}`, or the parameter error's
    `{"parameters": {name: [message]}}` when a parameter does not render.
    """
    try:
        rendered = stream_script(job)
    except ParameterError as exc:
        message = f"{exc.message} A streaming job runs with its parameters' defaults (rule: {RULE_PARAMETERS})."
        raise InvalidInput(f"The stream of job '{job.name}' cannot start: {message}",
                           {"parameters": {exc.field: [message]}}) from None
    problem = statement_problem(rendered, default_catalog=job.default_catalog,
                                catalog_types=_team_catalog_types(job.team_id))
    if problem is not None:
        raise InvalidInput(f"The stream of job '{job.name}' cannot start: {problem.text()}", {"sql": [problem.text()]})


def _team_catalog_types(team_id: int) -> dict[str, str]:
    return dict(Catalog.objects.filter(team_id=team_id).values_list("catalog_name", "catalog_type"))


def script_problem(sql: str, parameters: Mapping[str, Any]) -> StatementProblem | None:
    """The first reason a streaming job's script (as saved) cannot start, judged without Spark or the team's
    catalogs: its shape, then its streaming statement rendered with the parameters' defaults. A parameter that
    does not render is left to the start, which names it (rule: parameters)."""
    try:
        split_script(sql)
    except (StreamingStatementError, SqlTextError) as exc:
        return StatementProblem(RULE_SHAPE, f"Not a streaming script: {exc}")
    try:
        rendered = _rendered(sql, parameters)
    except ParameterError:
        return None
    return statement_problem(rendered, default_catalog="", catalog_types=None)


def statement_problem(rendered: RenderedScript, *, default_catalog: str,
                      catalog_types: Mapping[str, str] | None) -> StatementProblem | None:
    """The first reason the rendered script cannot start, judged without Spark (`catalog_types`: the team's
    catalogs by name; None skips the checks of names against them); None when only the driver can tell."""
    try:
        batch, statement = split_script(rendered.sql)
    except (StreamingStatementError, SqlTextError) as exc:
        return StatementProblem(RULE_SHAPE, f"Not a streaming script: {exc}")
    line = rendered.written_position(statement.line, statement.column)[0]

    def problem(rule: str, message: str) -> StatementProblem:
        return StatementProblem(rule, message, statement.index, line)

    try:
        split_emit(statement.sql)
    except StreamingStatementError as exc:
        return problem(RULE_EMIT, str(exc))
    try:
        parsed = parse_streaming(statement.sql)
    except StreamingStatementError as exc:
        return problem(RULE_SHAPE, str(exc))
    if catalog_types is None:
        return None
    # A USE in the batch prelude moves the current catalog: only the driver knows where unqualified names go then.
    current = None if _moves_catalog(batch) else (default_catalog or "").lower()
    names = [("target table", parsed.target, False)] + [("stream", ref.parts, True) for ref in parsed.sources]
    for what, parts, streamed in names:
        written = ".".join(parts)
        label = f"STREAM({written})" if streamed else f"INSERT INTO {written}"
        if len(parts) == 3:
            catalog = parts[0].lower()
        elif len(parts) > 3 or current is None:
            continue
        elif current:
            catalog = current
        else:
            return problem(RULE_NAME, f"{label}: name the {what} in full as <catalog>.<database>.<table>; "
                                      f"'{written}' does not say which catalog it is in (the job has no default "
                                      "catalog).")
        catalog_type = catalog_types.get(catalog)
        if catalog_type is None:
            known = ", ".join(sorted(catalog_types)) or "none"
            return problem(RULE_CATALOG, f"{label}: the team has no catalog named '{catalog}' (its catalogs: "
                                         f"{known}).")
        if streamed and not _streams(catalog_type):
            return problem(RULE_STREAM_TYPE, f"{label}: catalog '{catalog}' is a {catalog_type} catalog, which "
                                             "cannot be read as a stream; stream from a "
                                             f"{', '.join(STREAMING_TYPES)} catalog.")
    return None


def _moves_catalog(batch: list[Statement]) -> bool:
    return any(first_keyword(s.tokens) == "use" or use_catalog(s.tokens) is not None for s in batch)


def _streams(catalog_type: str) -> bool:
    try:
        return can_stream(binding_for(catalog_type))
    except UnknownCatalogType:
        return True  # a type this runtime has no binding for: the driver says so in its own words
