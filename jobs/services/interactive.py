"""The SQL editor's calls on the warm engine of this process: validate (executes nothing) and preview (one query).

Each call gets a new session of the warm SparkContext, so its catalogs, SQL conf and temp views vanish with it.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from rest_framework import exceptions

from jobs.spark.redaction import redact
from teams.models import Team

# First keywords of statements that only read; WITH/FROM/( may still wrap a write, so the parsed plan decides.
READ_KEYWORDS = {"select", "with", "values", "table", "from", "show", "describe", "desc", "explain", "("}
PLAN_CHECKED = {"with", "from", "("}
SETUP_KEYWORDS = {"use", "set"}
WRITE_NODE_RE = re.compile(
    r"^[\s:+\-|]*'?(InsertInto\w*|\w*Command|CreateTable\w*|ReplaceTable\w*|DropTable\w*|AppendData|"
    r"OverwriteByExpression|OverwritePartitionsDynamic|MergeIntoTable|UpdateTable|DeleteFromTable|\w*Write\w*)\b",
    re.MULTILINE,
)


@dataclass
class ValidationReport:
    """`{"valid", "errors": [{"statement", "line", "column", "message"}], "schema": [{"name", "type"}]}`."""

    errors: list[dict[str, Any]] = field(default_factory=list)
    schema: list[dict[str, Any]] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return not self.errors

    def as_dict(self) -> dict[str, Any]:
        return {"valid": self.valid, "errors": self.errors, "schema": self.schema}


def _error(message: str, *, statement: int | None = None, line: int | None = None, column: int | None = None) -> dict:
    return {"statement": statement, "line": line, "column": column, "message": redact(message)}


def _size_error(sql: str) -> str | None:
    if not sql.strip():
        return "The SQL script is empty."
    size, limit = len(sql.encode("utf-8")), settings.LAKEPORT_MAX_SCRIPT_BYTES
    return f"The SQL script is {size} bytes; the limit is {limit} bytes." if size > limit else None


def _runner(team: Team, **kwargs: Any) -> Any:
    from jobs.engines.store import DjangoCatalogStore
    from jobs.engines.warm import new_run_session
    from jobs.spark.script import ScriptRunner

    return ScriptRunner(new_run_session(spark_conf={}), DjangoCatalogStore(team.name), team=team.name, **kwargs)


def sql_validate(*, team: Team, sql: str) -> ValidationReport:
    """Split, parse and analyse `sql` against the team's catalogs without executing any statement.

    Errors carry the 0-based statement index and the script-absolute line/column; `schema` is the output of the
    last query when the script analyses cleanly.
    """
    problem = _size_error(sql)
    if problem:
        return ValidationReport(errors=[_error(problem, statement=None, line=1, column=1)])
    errors, schema = _runner(team).validate(sql)
    return ValidationReport(errors=[{**e, "message": redact(str(e.get("message", "")))} for e in errors],
                            schema=list(schema or []))


def sql_preview(*, team: Team, sql: str, limit: int) -> dict[str, Any]:
    """Run one read-only query (optionally after `USE`/`SET`) and return up to `limit` rows.

    A statement that writes, an empty script or a failing query raises a 400 whose message names the position.
    """
    from jobs.spark.script import split_statements

    problem = _size_error(sql)
    if problem:
        raise _refuse(problem)
    try:
        statements = split_statements(sql)
    except ValueError as exc:
        raise _refuse(str(exc)) from None
    if not statements:
        raise _refuse("The SQL script is empty.")
    for st in statements[:-1]:
        if _first_keyword(st.sql) not in SETUP_KEYWORDS:
            raise _refuse(f"Preview runs one query (after optional USE/SET); statement {st.index + 1} at line "
                          f"{st.line} is '{_first_keyword(st.sql).upper()}'. Submit a job to run a script.")
    last = statements[-1]
    keyword = _first_keyword(last.sql)
    if keyword not in READ_KEYWORDS or (keyword in PLAN_CHECKED and _plan_writes(last.sql)):
        raise _refuse(f"Preview only runs queries that read; statement {last.index + 1} at line {last.line} "
                      f"('{keyword.upper()}') would write or change state. Submit a job to run it.")
    runner = _runner(team, preview_limit=limit, job_group=f"lakeport-preview-{uuid.uuid4().hex[:12]}")
    result = runner.run(sql)
    if not result.succeeded:
        error = result.error or {}
        where = (f"Statement {error['statement'] + 1}, line {error.get('line')}, column {error.get('column')}: "
                 if error.get("statement") is not None else "")
        raise _refuse(where + str(error.get("message") or "The query failed."))
    final = result.statements[-1]
    return {"columns": final.columns or [], "rows": final.rows or [], "truncated": bool(final.truncated)}


def _refuse(message: str) -> exceptions.ValidationError:
    # One non-field message: the error body's `message` is then the text itself.
    return exceptions.ValidationError({"non_field_errors": [redact(message)]})


def _first_keyword(sql: str) -> str:
    from jobs.spark.sqltext import COMMENT, SPACE, tokenize

    for token in tokenize(sql):
        if token.kind not in (SPACE, COMMENT):
            return token.lower
    return ""


def _plan_writes(sql: str) -> bool:
    """True if Spark's parsed (unresolved) plan of `sql` contains a write or command node."""
    from jobs.engines.warm import warm_session

    try:
        plan = warm_session()._jsparkSession.sessionState().sqlParser().parsePlan(sql)
    except Exception:
        return False  # a syntax error: the run reports it with its position
    return bool(WRITE_NODE_RE.search(plan.toString()))
