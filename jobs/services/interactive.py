"""The SQL editor's calls: validate (executes nothing) and preview (one query), run in the team's engine.

The web process never hosts Spark: it sends the call to a worker (Celery task `jobs.sql_interactive`), which
runs it in the team's engine (the same one the team's runs use) in a new session, so its catalogs, SQL conf
and temp views vanish with it, and polls the result backend for the answer.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from celery import current_app, states
from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.utils import timezone

from catalogs.access_history import access_refused
from core.errors import InvalidInput, NotFound, Unavailable
from core.queues import EDITOR_QUEUE
from grants.selectors import access_document
from jobs.engines import engine_key
from jobs.engines.calls import EngineCall
from jobs.engines.parser import parse_server
from jobs.engines.pool import engine_pool
from jobs.engines.process import EngineError, EngineKey, EngineProcess
from jobs.models import SqlJob
from jobs.services.jobs import check_default_catalog
from jobs.services.limits import editor_slot
from jobs.services.parameters import (
    PLACEHOLDER,
    ParameterError,
    RenderedScript,
    check_script_parameters,
    placeholders,
    script_rendered,
)
from jobs.services.results import result_bounded, storable
from lakeport_engine.errors import SparkRuntimeError
from lakeport_engine.protocol import AccessDocument, PreviewRequest, ValidateRequest
from lakeport_engine.script import split_statements
from lakeport_engine.sqltext import COMMENT, SPACE, Statement, statement_spans, tokenize, utf16_offsets
from lakeport_engine.streaming.statement import is_streaming
from lakeport_engine.syntax import SyntaxProblem
from lakeport_kernel.redaction import redact
from teams.models import Team

# First keywords of statements that only read; WITH/FROM/( may still wrap a write, so the parsed plan decides.
READ_KEYWORDS = {"select", "with", "values", "table", "from", "show", "describe", "desc", "explain", "("}
PLAN_CHECKED = {"with", "from", "("}
SETUP_KEYWORDS = {"use", "set"}
POLL_SECONDS = 0.005
ABANDONED = "The editor call was given up: it did not finish before the web stopped waiting for it."
logger = logging.getLogger("lakeport.jobs")


@dataclass(frozen=True)
class ValidationReport:
    """What validate found: `errors` ({"statement", "line", "column", "message"}), the last query's `schema`
    ({"name", "type"}) and where each statement is ({"index", "start", "end", "line"}); ValidationOutput writes it."""

    errors: list[dict[str, Any]] = field(default_factory=list)
    schema: list[dict[str, Any]] = field(default_factory=list)
    statements: list[dict[str, int]] = field(default_factory=list)
    checked: str = "full"  # "syntax": Spark's parser only, while the team's engine was starting

    @property
    def valid(self) -> bool:
        """True when nothing was found wrong."""
        return not self.errors


@dataclass(frozen=True)
class QueryPreview:
    """Up to `limit` rows of a previewed query, as the engine sent them; `streaming` when they are a batch over each
    STREAM(…) source's newest records. SqlPreviewOutput writes it (the rows whole)."""

    columns: list[dict[str, str]]
    rows: list[list[Any]]
    truncated: bool
    streaming: bool = False


def script_statements(sql: str) -> list[dict[str, int]]:
    """Where each statement of `sql` is: `index`, [`start`, `end`) without the `;`, and its first `line`.

    Offsets count UTF-16 code units, as JavaScript indexes a string (the editor marks with them); they equal
    character offsets unless an emoji or another character outside the Basic Multilingual Plane comes before.
    """
    js = utf16_offsets(sql)
    return [{"index": i, "start": js(span.start), "end": js(span.end), "line": span.line}
            for i, span in enumerate(statement_spans(sql))]


def _error(message: str, *, statement: int | None = None, line: int | None = None,
           column: int | None = None) -> dict[str, Any]:
    return {"statement": statement, "line": line, "column": column, "message": redact(message)}


def script_size_error(sql: str) -> str | None:
    """Why `sql` cannot be sent to an engine (empty, or over LAKEPORT_MAX_SCRIPT_BYTES), or None."""
    if not sql.strip():
        return "The SQL script is empty."
    size, limit = len(sql.encode("utf-8")), settings.LAKEPORT_MAX_SCRIPT_BYTES
    return f"The SQL script is {size} bytes; the limit is {limit} bytes." if size > limit else None


def _ask_engine(*, team: Team, mode: str, sql: str, limit: int = 0, check_writes: str | None = None,
                default_catalog: str = "", snapshot: dict[str, Any] | None = None,
                syntax_while_starting: bool = False, access: AccessDocument | None = None) -> dict[str, Any]:
    """Send an editor call to a worker and wait for its engine's answer (503 when no worker answers).

    The call holds one of the team's editor slots while it waits (503 naming the limit when none is free). The
    task carries the moment this wait ends: its message expires then, and a worker that takes it later, or is
    still running it then, gives it up (and cancels the engine's statement): nobody would read the answer.
    """
    with editor_slot(team_id=team.id, team=team.name):
        return _send_and_wait(team=team, mode=mode, sql=sql, limit=limit, check_writes=check_writes,
                              default_catalog=default_catalog, snapshot=snapshot,
                              syntax_while_starting=syntax_while_starting, access=access)


def _send_and_wait(*, team: Team, mode: str, sql: str, limit: int, check_writes: str | None,
                   default_catalog: str, snapshot: dict[str, Any] | None = None,
                   syntax_while_starting: bool = False, access: AccessDocument | None = None) -> dict[str, Any]:
    wait = settings.LAKEPORT_INTERACTIVE_TIMEOUT_SECONDS
    given_up_at = time.time() + wait  # wall clock: the worker compares it with its own
    kwargs: dict[str, Any] = {"team_id": team.id, "mode": mode, "sql": sql, "limit": limit,
                              "check_writes": check_writes, "give_up_at": given_up_at}
    if default_catalog:  # only when set: a worker of the previous release takes the call unchanged
        kwargs["default_catalog"] = default_catalog
    if snapshot:
        kwargs["snapshot"] = snapshot
    if syntax_while_starting:
        kwargs["syntax_while_starting"] = True
    if access is not None and (access.get("rows") or (not access["admin"] and access["governed"])):
        # the caller's privileges, computed here once (docs/access.md); left out when nothing is governed for them
        # and no row filter or mask exists (which means the same), so a worker of the previous release takes such a
        # call unchanged; row filters and masks hold for team admins too
        kwargs["access"] = access
    result = current_app.send_task("jobs.sql_interactive", queue=EDITOR_QUEUE, expires=wait, kwargs=kwargs)
    backend = current_app.backend
    deadline = time.monotonic() + wait
    try:
        while True:
            meta = backend.get_task_meta(result.id)
            if meta.get("status") == states.SUCCESS:
                answer = meta.get("result") or {}
                break
            if meta.get("status") in states.PROPAGATE_STATES:
                raise Unavailable("The team's engine could not answer; try again.")
            if time.monotonic() > deadline:
                raise Unavailable("No worker answered in time; the team's engine may be starting or busy. "
                                         "Try again in a moment.")
            time.sleep(POLL_SECONDS if time.monotonic() + 1 < deadline else 0.1)
    finally:
        backend.forget(result.id)
    if answer.get("busy"):
        raise Unavailable("Every engine of the workers is busy; try again in a moment.")
    if answer.get("abandoned"):  # the worker gave up at the same moment as this wait: the same answer
        raise Unavailable(f"The team's engine did not answer within {wait:g} s (LAKEPORT_INTERACTIVE_TIMEOUT_SECONDS); "
                          "the call was stopped. Try again in a moment, or submit a job for a long query.")
    return answer


def interactive_execute(*, team_id: int, mode: str, sql: str, limit: int = 0, check_writes: str | None = None,
                        give_up_at: float | None = None, default_catalog: str = "",
                        snapshot: dict[str, Any] | None = None,
                        syntax_while_starting: bool = False, access: AccessDocument | None = None) -> dict[str, Any]:
    """Worker side of an editor call: run it in the team's engine and return the engine's answer (plain data).

    `give_up_at` (epoch seconds) is when the web stops waiting: a call taken after it does nothing, and one still
    running then is cancelled in the engine, so an abandoned burst never holds the worker or the engine.
    `default_catalog` is current before the script, as for a run of a job with that default catalog.
    `syntax_while_starting` (validate only): when the engine is not up yet, answer with the parse server's syntax
    check (`"checked": "syntax"`) and leave the engine starting in the background.
    """
    fail = {"statement": None, "line": None, "column": None}
    if give_up_at is None:
        give_up_at = time.time() + settings.LAKEPORT_INTERACTIVE_TIMEOUT_SECONDS
    if time.time() >= give_up_at:
        return _abandoned(team_id=team_id, mode=mode, where="before start")
    team = Team.objects.get(id=team_id)
    try:
        key = engine_key(team=team.name, script=sql)
    except SparkRuntimeError as exc:  # validate reads `errors`, preview `error`
        error = {**fail, "statement": exc.statement, "message": redact(exc.message)}
        return {"succeeded": False, "errors": [error], "error": error}
    pool = engine_pool()
    with pool.lease(key) as engine:
        if engine is None:
            return {"busy": True}
        if (mode == "validate" and syntax_while_starting and settings.LAKEPORT_EDITOR_PARSE_SERVER
                and not key.dedicated and not engine.started.is_set()):
            problems = _syntax_while_starting(engine, key, sql, give_up_at=give_up_at)
            if problems is not None:  # the editor asks again for the full check once the engine is up
                return {"errors": problems, "schema": None, "checked": "syntax"}
        try:
            pool.start(engine)
        except EngineError as exc:
            return {"succeeded": False, "error": {**fail, "message": redact(str(exc))}}
        if time.time() >= give_up_at:  # the engine took that long to start
            return _abandoned(team_id=team_id, mode=mode, where="after engine start")
        with EngineCall(engine, editor_request(mode=mode, sql=sql, limit=limit, check_writes=check_writes,
                                               default_catalog=default_catalog, snapshot=snapshot,
                                               access=access)) as call:
            if not call.wait(max(0.0, give_up_at - time.time())):
                call.cancel()  # the engine stops the statement: an abandoned call holds no Spark job
                return _abandoned(team_id=team_id, mode=mode, where="running")
            return dict(call.result)


def _syntax_while_starting(engine: EngineProcess, key: EngineKey, sql: str, *,
                           give_up_at: float) -> list[SyntaxProblem] | None:
    """Start the engine in the background and answer with the parse server's check, unless the engine is up first
    (None: the caller asks the engine). The parse server, a bare JVM, is up long before an engine is."""
    if not engine.start_lock.locked():  # one start at a time: the editor's repeated asks add no waiting threads
        threading.Thread(target=_start_engine, args=(key,), daemon=True, name=f"lakeport-start-{key.team}").start()
    server = parse_server()
    server.start()
    while not server.ready:
        if engine.started.is_set() or time.time() >= give_up_at:
            return None
        time.sleep(0.1)
    return server.check(sql)


def _start_engine(key: EngineKey) -> None:
    """Start `key`'s engine in the background (a syntax-only validation answered meanwhile)."""
    pool = engine_pool()
    with pool.lease(key) as engine:
        if engine is not None:
            with contextlib.suppress(EngineError):  # the next call reports a start that fails
                pool.start(engine)


def editor_request(*, mode: str, sql: str, limit: int, check_writes: str | None,
                   default_catalog: str, snapshot: dict[str, Any] | None = None,
                   access: AccessDocument | None = None) -> ValidateRequest | PreviewRequest:
    """The engine request of an editor call (`validate`, else `preview`, with its consistent-read `snapshot`), with
    the caller's privileges."""
    if mode == "validate":
        return {"mode": "validate", "script": sql, "default_catalog": default_catalog or None, "access": access}
    request: PreviewRequest = {"mode": "preview", "script": sql, "preview_limit": limit, "check_writes": check_writes,
                               "default_catalog": default_catalog or None, "access": access}
    if snapshot:  # only when asked: an engine of the previous release takes the call unchanged
        request["snapshot"] = {"as_of": None, "versions": {}, "consistent": bool(snapshot.get("consistent"))}
    return request


def _abandoned(*, team_id: int, mode: str, where: str) -> dict[str, Any]:
    logger.info("editor.abandoned", extra={"team_id": team_id, "mode": mode, "where": where})
    return {"succeeded": False, "abandoned": True,
            "error": {"statement": None, "line": None, "column": None, "message": ABANDONED}}


def sql_validate(*, team: Team, sql: str, job_id: int | None = None, parameters: Mapping[str, Any] | None = None,
                 default_catalog: str = "", syntax_while_starting: bool = False,
                 user: User | AnonymousUser | None = None) -> ValidationReport:
    """Split, parse and analyse `sql` against the team's catalogs without executing any statement.

    Unqualified names resolve in `default_catalog` (a catalog of the team; 400 otherwise) as in a run of a job with
    that default catalog.

    Errors carry the 0-based statement index and the script-absolute line/column (of the script as written, when
    `${name}` parameters were rendered: see `editor_render`); `schema` is the output of the last query when the
    script analyses cleanly; `statements` is where each statement of the script as written is (`script_statements`).
    With `syntax_while_starting`, a team whose engine is still starting gets Spark's parser's answer at once
    (`checked == "syntax"`) instead of waiting for the start.
    """
    check_default_catalog(team=team, name=default_catalog)
    problem = script_size_error(sql)
    if problem:
        return ValidationReport(errors=[_error(problem, statement=None, line=1, column=1)])
    # split here, on the script as written: the browser marks statements with these and never splits itself
    statements = script_statements(sql)
    try:
        rendered = editor_render(team=team, sql=sql, job_id=job_id, overrides=parameters)
    except ParameterError as exc:
        return ValidationReport(errors=[parameter_error(sql, exc)], statements=statements)
    access = access_document(team=team, user=user)
    answer = _ask_engine(team=team, mode="validate", sql=rendered.sql if rendered else sql,
                         default_catalog=default_catalog, syntax_while_starting=syntax_while_starting, access=access)
    if answer.get("error") and not answer.get("errors"):
        return ValidationReport(errors=[_error(str(answer["error"].get("message") or "The engine failed."))],
                                statements=statements)
    errors, schema = answer.get("errors") or [], answer.get("schema")
    for e in errors:  # refused accesses go to the catalog history (rate-limited: validation runs as one types)
        access_refused(team_id=team.id, access=access, message=str(e.get("message", "")), entry="validate")
    return ValidationReport(errors=[{**_written(e, rendered), "message": redact(str(e.get("message", "")))}
                                    for e in errors], schema=list(schema or []), statements=statements,
                            checked="syntax" if answer.get("checked") == "syntax" else "full")


def editor_render(*, team: Team, sql: str, job_id: int | None,
                  overrides: Mapping[str, Any] | None) -> RenderedScript | None:
    """The editor's script with its `${name}` parameters rendered as a run of the job would get them, or None when
    it has none. Declarations and defaults come from the team's job `job_id` (another team's is a 404), `overrides`
    give values, `${ds}`/`${ts}` are now. An unknown parameter, or one without a value, raises ParameterError."""
    declared: Mapping[str, Any] = {}
    if job_id is not None:
        job = SqlJob.objects.filter(team=team, pk=job_id).first()
        if job is None:
            raise NotFound(f"No job {job_id} in team '{team.name}'.")
        declared = job.parameters
    if not PLACEHOLDER.search(sql) or not placeholders(sql):
        return None
    check_script_parameters(sql, declared)
    return script_rendered(sql, declared=declared, overrides=overrides, logical_date=timezone.now())


def parameter_error(sql: str, exc: ParameterError) -> dict[str, Any]:
    """A validation error at the first `${name}` the ParameterError is about (line 1 when it names none)."""
    match = next((m for m in PLACEHOLDER.finditer(sql) if m.group(1) == exc.field), None)
    offset = match.start() if match else 0
    line, column = sql.count("\n", 0, offset) + 1, offset - (sql.rfind("\n", 0, offset) + 1) + 1
    statement = None
    with contextlib.suppress(ValueError):
        statement = next((st.index for st in reversed(split_statements(sql)) if (st.line, st.column) <= (line, column)),
                         None)
    return _error(exc.message, statement=statement, line=line, column=column)


def _written(error: dict[str, Any], rendered: RenderedScript | None) -> dict[str, Any]:
    """`error` with its line/column in the script as written (they came from the rendered script)."""
    if rendered is None or not error.get("line"):
        return error
    line, column = rendered.written_position(int(error["line"]), int(error.get("column") or 1))
    return {**error, "line": line, "column": column}


def sql_preview(*, team: Team, sql: str, limit: int, job_id: int | None = None,
                parameters: Mapping[str, Any] | None = None, default_catalog: str = "",
                consistent: bool = False, user: User | AnonymousUser | None = None) -> QueryPreview:
    """Run one read-only query (optionally after `USE`/`SET`) and return up to `limit` rows.

    `consistent` reads the query's Delta tables at one consistent cut of their pipeline, as a run's
    `{"snapshot": {"consistent": true}}` (docs/materialized-views.md).

    Unqualified names resolve in `default_catalog`, as in `sql_validate`.

    `${name}` parameters are rendered as in `sql_validate`. A statement that writes, an empty script or a failing
    query raises a 400 whose message names the position (in the script as written).
    """
    check_default_catalog(team=team, name=default_catalog)
    statements = editor_statements(sql)  # the size and tokenizer checks, on the script as written
    try:
        rendered = editor_render(team=team, sql=sql, job_id=job_id, overrides=parameters)
    except ParameterError as exc:
        error = parameter_error(sql, exc)
        raise editor_refusal(f"Line {error['line']}, column {error['column']}: {exc.message}") from None
    if rendered is not None:  # split again only when rendering changed the text
        sql = rendered.sql
        statements = editor_statements(sql)
    if not statements:
        raise editor_refusal("The SQL script is empty.")
    for st in statements[:-1]:
        if first_keyword(st.sql) not in SETUP_KEYWORDS:
            raise editor_refusal(f"Preview runs one query (after optional USE/SET); statement {st.index + 1} at line "
                          f"{st.line} is '{first_keyword(st.sql).upper()}'. Submit a job to run a script.")
    last = statements[-1]
    keyword = first_keyword(last.sql)
    writes = f"Preview only runs queries that read; statement {last.index + 1} at line {last.line} " \
             f"('{keyword.upper()}') would write or change state. Submit a job to run it."
    # a streaming statement (… FROM STREAM(…) … [EMIT …]) previews as a batch of its SELECT over each source's
    # newest records: its INSERT target is never written (the engine refuses a query part that writes)
    streaming = is_streaming(last.sql)
    if keyword not in READ_KEYWORDS and not streaming:
        raise editor_refusal(writes)
    access = access_document(team=team, user=user)
    answer = _ask_engine(team=team, mode="preview", sql=sql, limit=limit,
                         check_writes=last.sql if keyword in PLAN_CHECKED and not streaming else None,
                         default_catalog=default_catalog, snapshot={"consistent": True} if consistent else None,
                         access=access)
    if answer.get("writes"):
        raise editor_refusal(writes)
    if not answer.get("succeeded"):
        error = _written(answer.get("error") or {}, rendered)
        message = str(error.get("message") or "The query failed.")
        access_refused(team_id=team.id, access=access, message=message, entry="preview")
        where = (f"Statement {error['statement'] + 1}, line {error.get('line')}, column {error.get('column')}: "
                 if error.get("statement") is not None and not message.startswith("Statement ") else "")
        raise editor_refusal(where + message)
    # as a run keeps its result: within LAKEPORT_RESULT_MAX_BYTES, NUL shown escaped (jobs/services/results.py)
    bounded = result_bounded({"columns": answer.get("columns") or [], "rows": answer.get("rows") or [],
                              "truncated": bool(answer.get("truncated"))}).result
    assert bounded is not None
    return QueryPreview(columns=bounded["columns"], rows=storable(bounded["rows"]), truncated=bounded["truncated"],
                        streaming=bool(answer.get("streaming")))


def editor_statements(sql: str) -> list[Statement]:
    """The statements of an editor script; a 400 for an oversized or untokenizable one."""
    problem = script_size_error(sql)
    if problem:
        raise editor_refusal(problem)
    try:
        return split_statements(sql)
    except ValueError as exc:
        raise editor_refusal(str(exc)) from None


def editor_refusal(message: str) -> InvalidInput:
    """A 400 for an editor call with one non-field message (the error body's `message` is the text itself)."""
    text = redact(message)
    return InvalidInput(text, {"non_field_errors": [text]})


def first_keyword(sql: str) -> str:
    """The statement's first keyword, lower-case ("" for an empty statement)."""
    for token in tokenize(sql):
        if token.kind not in (SPACE, COMMENT):
            return token.lower
    return ""
