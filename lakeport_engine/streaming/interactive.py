"""The SQL editor's calls on streaming statements, in the team engine (no Django): validate, preview and live.

- **validate**: the statements before the streaming one are validated as a batch script; the streaming one is
  planned with `plan_streaming` (stream views, the SQL guard, Spark's analysis, EMIT/sink checks) without
  starting anything. Errors carry the statement index and its line, like batch validation.
- **preview**: the same query as a *batch* over a bounded sample of each source (its newest N records, read by
  the binding's `sample`), the watermark and EMIT ignored; the sink is never written (only the SELECT part runs).
- **live**: the query as a short streaming query over the real sources into a `foreachBatch` that only collects
  rows (never the sink), stopped after at most M seconds or K rows, its scratch checkpoint removed.

Each accepts `INSERT INTO … SELECT … FROM STREAM(…) … [EMIT …]` or a plain `SELECT … FROM STREAM(…)`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lakeport_engine.errors import SparkRuntimeError
from lakeport_engine.resolver import CatalogResolver, statement_refs
from lakeport_engine.sqltext import COMMENT, SPACE, SqlTextError, Statement, created_names, split_statements
from lakeport_engine.streaming.emit import APPEND, UPDATE
from lakeport_engine.streaming.query import plan_streaming, qualify, query_shape, refuse_reserved_names
from lakeport_engine.streaming.sinks import sink_for
from lakeport_engine.streaming.sources import register_stream_view, sample_rows, stream_view
from lakeport_engine.streaming.statement import StreamingStatement, is_streaming, parse_streaming, watermark_spans
from lakeport_engine.streaming.static_tables import delta_static_tables
from lakeport_kernel.redaction import redact, redact_secrets

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from lakeport_engine.script import ScriptRunner

DEFAULT_SAMPLE_RECORDS = 1000  # newest records of each source a preview reads
_QUERY_TARGET = "preview"  # the stand-in target of a plain SELECT (never bound, never written)
Rows = list[list[Any]]
WriteCheck = Callable[[str], bool]  # True when Spark's parsed plan of the SQL writes or runs a command


@dataclass(frozen=True)
class StreamingScript:
    """A script whose last statement is a streaming one, and the text before that statement."""

    statements: list[Statement]
    streaming: Statement
    prefix: str

    @property
    def insert(self) -> bool:
        """True when the streaming statement is an INSERT (else a plain SELECT … FROM STREAM(…))."""
        return _first_word(self.streaming) == "insert"


class StreamingPreviewError(SparkRuntimeError):
    """A streaming script the editor cannot preview (the message says what to change)."""


def streaming_script(script: str) -> StreamingScript | None:
    """The script's streaming statement (it must be the last one), or None for a batch script."""
    try:
        statements = split_statements(script)
    except SqlTextError:
        return None  # batch validation reports the position
    streaming = [s for s in statements if is_streaming(s.sql)]
    if not streaming:
        return None
    last = statements[-1]
    if streaming[-1] is not last or len(streaming) > 1:
        raise StreamingPreviewError(
            f"A script has one streaming statement, as its last statement; statement {streaming[0].index + 1} at "
            f"line {streaming[0].line} is streaming.", statement=streaming[0].index)
    lines = script.split("\n")
    offset = sum(len(line) + 1 for line in lines[: last.line - 1]) + last.column - 1
    return StreamingScript(statements, last, script[:offset])


def _first_word(stmt: Statement) -> str:
    for token in stmt.tokens:
        if token.kind not in (SPACE, COMMENT):
            return token.lower
    return ""


def _parse(found: StreamingScript) -> StreamingStatement:
    sql = found.streaming.sql
    return parse_streaming(sql if found.insert else f"INSERT INTO {_QUERY_TARGET} {sql}")


def _position_error(stmt: Statement, exc: BaseException, resolver: CatalogResolver | None = None) -> dict[str, Any]:
    if isinstance(exc, SparkRuntimeError):
        message = exc.message
    elif resolver is not None:
        message = resolver.describe_failure(exc, stmt)
    else:
        message = f"{type(exc).__name__}: {exc}".splitlines()[0]
    if not message.startswith("Statement "):
        message = f"Statement {stmt.index + 1}, line {stmt.line}: {message}"
    return {"statement": stmt.index, "line": stmt.line, "column": stmt.column, "message": redact(message)[:2000]}


def _child_resolver(runner: ScriptRunner, found: StreamingScript) -> CatalogResolver:
    """A resolver on a new session with the script's USE statements applied (nothing else runs)."""
    from lakeport_engine.guard import SqlGuard

    child = runner.spark.newSession()
    resolver = CatalogResolver(child, runner.store, team=runner.team, connect_timeout=runner.resolver.connect_timeout,
                               delta_mode=runner.resolver.delta_mode, guard=SqlGuard(child, runner.policy))
    for stmt in found.statements[:-1]:
        refs = statement_refs(stmt)
        if refs.use is not None or refs.namespace is not None:
            resolver.execute(stmt)
    return resolver


def _columns(frame: DataFrame) -> list[dict[str, str]]:
    return [{"name": f.name, "type": f.dataType.simpleString()} for f in frame.schema.fields]


def _json_rows(rows: list[Any]) -> Rows:
    from lakeport_engine.script import json_value

    return [[_masked(json_value(v)) for v in row] for row in rows]


def _masked(value: Any) -> Any:
    # a value the user typed may be a catalog secret: results are masked like logs
    if isinstance(value, str):
        return redact_secrets(value)
    if isinstance(value, list):
        return [_masked(v) for v in value]
    return value


# ---- validate ------------------------------------------------------------------------------------------------
def validate_streaming(runner: ScriptRunner, script: str, *,
                       writes: WriteCheck) -> tuple[list[dict[str, Any]], list[dict[str, str]] | None] | None:
    """Errors and output schema of a streaming script, planned without starting (None: not a streaming script).

    `writes(sql)` says whether Spark's parsed plan of a query writes (`FROM s INSERT INTO …`): refused unrun.
    """
    try:
        found = streaming_script(script)
    except StreamingPreviewError as exc:
        return [{"statement": exc.statement, "line": None, "column": None, "message": exc.message}], None
    if found is None:
        return None
    if found.prefix.strip():
        errors, _ = runner.validate(found.prefix)
        if errors:
            return errors, None
    stmt = found.streaming
    resolver = _child_resolver(runner, found)
    try:
        parsed = _parse(found)
        _refuse_writes(parsed, stmt, writes)
        if found.insert:
            plan = plan_streaming(resolver, stmt, stream_view=stream_view)
            return [], _columns(plan.frame)
        frame, _ = _stream_query(resolver, stmt, parsed, stream_view)
        return [], _columns(frame)
    except Exception as exc:  # noqa: BLE001 - every refusal becomes a positioned validation error
        if found.insert and _sink_made_earlier(found, exc):
            return [], None  # CREATE TABLE earlier in the script makes the sink: fine at run time
        return [_position_error(stmt, exc, resolver)], None


def _sink_made_earlier(found: StreamingScript, exc: BaseException) -> bool:
    made: set[str] = set()
    for stmt in found.statements[:-1]:
        made |= created_names(stmt.tokens)
    try:
        target = parse_streaming(found.streaming.sql).target[-1].lower()
    except SparkRuntimeError:
        return False
    return target in made and "exist" in str(exc).lower()


# ---- preview -------------------------------------------------------------------------------------------------
def preview_streaming(runner: ScriptRunner, script: str, *, limit: int, writes: WriteCheck,
                      sample: int = DEFAULT_SAMPLE_RECORDS) -> dict[str, Any] | None:
    """Rows and columns of the streaming query run as a batch over each source's newest `sample` records
    (None: not a streaming script). Earlier statements may only be USE/SET; the sink is never written."""
    try:
        found = streaming_script(script)
    except StreamingPreviewError as exc:
        return {"succeeded": False, "error": {"statement": exc.statement, "line": None, "column": None,
                                              "message": exc.message}}
    if found is None:
        return None
    if found.prefix.strip():
        result = runner.run(found.prefix)  # USE/SET only (the platform refused anything else)
        if not result.succeeded:
            return {"succeeded": False, "error": result.error}
    stmt = found.streaming
    resolver = runner.resolver

    def sample_view(res: CatalogResolver, catalog: str, database: str, table: str) -> str:
        return register_stream_view(res, sample_rows(res, catalog, database, table, sample))

    try:
        parsed = _parse(found)
        _refuse_writes(parsed, stmt, writes)
        frame, _ = _stream_query(resolver, stmt, parsed, sample_view, streaming=False)
        frame = _named_as_sink(frame, resolver, parsed, found)
        fetched = frame.limit(limit + 1).collect()
    except Exception as exc:  # noqa: BLE001 - the statement's message, positioned
        return {"succeeded": False, "error": _position_error(stmt, exc, resolver)}
    return {"succeeded": True, "columns": _columns(frame), "rows": _json_rows(fetched[:limit]),
            "truncated": len(fetched) > limit, "streaming": True}


def _refuse_writes(parsed: StreamingStatement, stmt: Statement, writes: WriteCheck) -> None:
    """What the user wrote, before platform views replace STREAM(…): no reserved `__lp_` name (the guard lets the
    platform's own views through, so a user naming one must be refused here), and a query part that only reads
    (`FROM STREAM(s) INSERT INTO t SELECT …` hides a write in it)."""
    refuse_reserved_names(parsed, stmt)
    query = parsed.query_with_views(["s" for _ in parsed.sources])
    if writes(query):
        raise StreamingPreviewError(
            f"Statement {stmt.index + 1} at line {stmt.line}: the query after INSERT INTO must only read "
            "(a SELECT); it writes or changes state.", statement=stmt.index)


def _named_as_sink(frame: DataFrame, resolver: CatalogResolver, parsed: StreamingStatement,
                   found: StreamingScript) -> DataFrame:
    """An INSERT's rows under the sink's column names (INSERT INTO matches columns by position), as the job would
    write them; the query's own names when the sink cannot be read (validate reports why)."""
    if not found.insert:
        return frame
    try:
        catalog, database, table = qualify(parsed.target, resolver, what="target table")
        binding = resolver.bind(catalog, statement=found.streaming.index)
        if binding is None:
            return frame
        sink = sink_for(resolver.spark, catalog_type=binding.type, catalog=catalog, spark_catalog=binding.spark_name,
                        config=binding.configuration, database=database, table=table, columns=parsed.columns)
    except Exception:  # noqa: BLE001 - a preview still shows the query's rows
        return frame
    columns = list(getattr(sink, "columns", ()) or ())
    return frame.toDF(*columns) if len(columns) == len(frame.columns) else frame


def _stream_query(resolver: CatalogResolver, stmt: Statement, parsed: StreamingStatement,
                  view: Callable[[CatalogResolver, str, str, str], str], *,
                  streaming: bool = True) -> tuple[DataFrame, list[str]]:
    """The SELECT part of `parsed` over `view`s of its sources, checked by the SQL guard, analysed by Spark."""
    views = [view(resolver, *qualify(ref.parts, resolver, what="stream")) for ref in parsed.sources]
    query = parsed.query_with_views(views)
    if not streaming:
        query = _without_watermark(query)
    rewritten = split_statements(query)[0]
    rewritten = Statement(stmt.index, rewritten.sql, stmt.line, stmt.column, rewritten.tokens)
    prepared, _ = resolver.prepare(rewritten)
    if resolver.guard is not None:
        scope = dataclasses.replace(resolver.guard_scope(), platform_views=frozenset(views))
        resolver.guard.check(prepared, rewritten, scope)
    resolver.check_locations(prepared, rewritten)  # a static Hive table joined to a stream is read too
    prepared, _ = delta_static_tables(resolver, prepared)  # after the guard, which checks the tables' own names
    frame = resolver.spark.sql(prepared)
    return frame, views


def _without_watermark(query: str) -> str:
    """The query without its `WATERMARK col DELAY OF INTERVAL …` clauses (a batch has no watermark)."""
    for start, stop in reversed(watermark_spans(query)):
        query = query[:start] + " " + query[stop:]
    return query


# ---- live ----------------------------------------------------------------------------------------------------
@dataclass
class LiveOutcome:
    """How a live preview ended: rows sent, and why it stopped (`seconds`, `rows`, `cancelled`, `failed`)."""

    columns: list[dict[str, str]]
    rows: int
    reason: str
    error: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"succeeded": self.error is None, "columns": self.columns, "rows_sent": self.rows,
                "stopped": self.reason, "error": self.error}


def live_preview(runner: ScriptRunner, script: str, *, seconds: float, max_rows: int, stop: threading.Event,
                 writes: WriteCheck, send_rows: Callable[[list[dict[str, str]], Rows], None]) -> LiveOutcome:
    """Run the streaming query over its real sources for at most `seconds` or `max_rows` rows, sending each
    micro-batch's rows with `send_rows(columns, rows)`; never writes the sink; `stop` ends it early."""
    try:
        found = streaming_script(script)
    except StreamingPreviewError as exc:
        return LiveOutcome([], 0, "failed", {"statement": exc.statement, "line": None, "column": None,
                                             "message": exc.message})
    if found is None:
        return LiveOutcome([], 0, "failed", {"statement": None, "line": None, "column": None, "message":
                           "Live preview runs a streaming query: read a source as FROM STREAM(<catalog>.<db>.<stream>)."})
    if found.prefix.strip():
        result = runner.run(found.prefix)
        if not result.succeeded:
            return LiveOutcome([], 0, "failed", result.error)
    stmt = found.streaming
    resolver = runner.resolver
    try:
        parsed = _parse(found)
        _refuse_writes(parsed, stmt, writes)
        frame, _ = _stream_query(resolver, stmt, parsed, stream_view)
        shape, _ = query_shape(frame)
        frame = _named_as_sink(frame, resolver, parsed, found)
    except Exception as exc:  # noqa: BLE001
        return LiveOutcome([], 0, "failed", _position_error(stmt, exc, resolver))
    columns = _columns(frame)
    # updates show rows within seconds; an append-mode window would wait for its watermark
    mode = UPDATE if shape.aggregates else APPEND
    sent = [0]
    lock = threading.Lock()

    def on_batch(batch: DataFrame, batch_id: int) -> None:
        with lock:
            room = max_rows - sent[0]
        if room <= 0:
            return
        rows = _json_rows(batch.limit(room).collect())
        if rows:
            with lock:
                sent[0] += len(rows)
            send_rows(columns, rows)

    checkpoint = tempfile.mkdtemp(prefix="lakeport-live-")
    query = None
    reason, error = "seconds", None
    try:
        writer = frame.writeStream.outputMode(mode).foreachBatch(on_batch).option("checkpointLocation", checkpoint)
        query = writer.trigger(processingTime="1 second").start()
        deadline = time.monotonic() + seconds
        while query.isActive:
            if stop.is_set():
                reason = "cancelled"
                break
            if sent[0] >= max_rows:
                reason = "rows"
                break
            if time.monotonic() >= deadline:
                break
            with contextlib.suppress(Exception):
                query.awaitTermination(0.2)  # type: ignore[arg-type]  # Spark takes float seconds (its stub says int)
        failure = query.exception()
        if failure is not None:
            from lakeport_engine.streaming.errors import user_message

            reason, error = "failed", _position_error(stmt, SparkRuntimeError(user_message(failure)))
    except Exception as exc:  # noqa: BLE001
        reason, error = "failed", _position_error(stmt, exc, resolver)
    finally:
        if query is not None:
            with contextlib.suppress(Exception):
                query.stop()
        shutil.rmtree(checkpoint, ignore_errors=True)
    return LiveOutcome(columns, sent[0], reason, error)


__all__ = ["DEFAULT_SAMPLE_RECORDS", "LiveOutcome", "StreamingPreviewError", "StreamingScript", "live_preview",
           "preview_streaming", "streaming_script", "validate_streaming"]
