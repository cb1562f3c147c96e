"""Running a Spark SQL script statement by statement, with catalogs resolved at run time.

This is the contract the job engines use: `ScriptRunner(spark, store, team=…).run(script)` returns a
`ScriptResult` with one `StatementResult` per statement; a `ScriptListener` hears about each statement
as it starts and ends. A script stops at its first failing statement (the rest are "skipped"); syntax
errors and unknown catalogs are found before any statement runs.
"""

from __future__ import annotations

import base64
import datetime as dt
import math
import threading
import time
import uuid
from dataclasses import asdict, dataclass
from decimal import Decimal
from enum import StrEnum
from typing import Any, Protocol

from lakeport_engine.access import AccessPolicy
from lakeport_engine.bindings import lineage_catalogs
from lakeport_engine.errors import SparkRuntimeError
from lakeport_engine.guard import GuardPolicy, GuardRefusal, SqlGuard
from lakeport_engine.lineage_capture import LineageContext, StatementLineage, frame_lineage, write_lineage
from lakeport_engine.pins import SnapshotPins
from lakeport_engine.protocol import AccessDocument, LineageDocument
from lakeport_engine.resolver import CatalogResolver, session_catalogs, statement_refs
from lakeport_engine.row_policy import RowPolicy
from lakeport_engine.sqltext import (
    SqlTextError,
    Statement,
    StatementSpan,
    created_names,
    is_query,
    name_chains,
    split_statements,
)
from lakeport_engine.store import CatalogStore
from lakeport_engine.syntax import split_problem, statement_at, syntax_message
from lakeport_kernel.redaction import redact, redact_secrets

__all__ = [
    "ScriptListener",
    "ScriptResult",
    "ScriptRunner",
    "Statement",
    "StatementResult",
    "split_statements",
]

class StatementStatus(StrEnum):
    """A statement of a run: running, then succeeded or failed; skipped after a failure or a cancel."""

    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    SKIPPED = "skipped"


@dataclass
class StatementResult:
    """Outcome of one statement. `rows` are JSON-ready (Decimal → str, dates → ISO, bytes → base64)."""

    index: int
    sql: str
    status: StatementStatus
    started_at: float
    elapsed_ms: int
    columns: list[dict[str, str]] | None = None
    rows: list[list[Any]] | None = None
    truncated: bool = False
    error: str | None = None
    line: int | None = None
    column: int | None = None
    lineage: LineageDocument | None = None  # StatementLineage.as_dict(): datasets read/written, column lineage
    span: StatementSpan | None = None  # where the statement is in the script (`line`/`column` above: where it failed)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class ScriptResult:
    """Outcome of a script: every statement's result, the store catalogs it used, and the first error."""

    statements: list[StatementResult]
    catalogs_used: list[str]
    succeeded: bool
    error: dict[str, Any] | None = None
    cancelled: bool = False

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class ScriptListener(Protocol):
    """Hears a script's progress (the job engines persist it; the CLI prints it)."""

    def on_statement_start(self, index: int, total: int, sql: str) -> None:
        """Statement `index` (0-based) of `total` is about to run."""
        ...

    def on_statement_end(self, result: StatementResult) -> None:
        """A statement finished (succeeded, failed or skipped)."""
        ...

    def on_log(self, message: str) -> None:
        """A progress message, already redacted."""
        ...


@dataclass
class _Preview:
    columns: list[dict[str, str]] | None = None
    rows: list[list[Any]] | None = None
    truncated: bool = False


def json_value(value: Any) -> Any:
    """A Spark row value as JSON-ready data."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode()
    if hasattr(value, "asDict"):  # a nested Row (struct)
        return {k: json_value(v) for k, v in value.asDict().items()}
    if isinstance(value, dict):
        return {str(json_value(k)): json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_value(v) for v in value]
    return str(value)


class ScriptRunner:
    """Runs scripts on one Spark session with catalogs from `store`, resolved lazily per statement.

    `preview_limit` bounds the rows kept per statement; `job_group` is the Spark job group used for
    cancellation (generated if not given). `policy` is the SQL guard's policy (None: the default one); the
    guard is always on, in `run()` and in `validate()`. `lineage` turns per-statement lineage capture on;
    `snapshot` is the run's Delta snapshot request (`{"as_of": …}` / `{"versions": {table uri: version}}`).
    """

    def __init__(self, spark: Any, store: CatalogStore, *, team: str, preview_limit: int = 1000,
                 listener: ScriptListener | None = None, job_group: str | None = None,
                 connect_timeout: float = 10.0, delta_mode: str | None = None,
                 policy: GuardPolicy | None = None, lineage: bool = True,
                 snapshot: dict[str, Any] | None = None, access: AccessDocument | None = None) -> None:
        self.spark = spark
        self.access = AccessPolicy.from_document(access)  # the caller's privileges, checked by the guard
        # the row filters and column masks in force: the connectors read them from the session for every table read
        self.rows = RowPolicy.from_document(access)
        spark._lakeport_row_policy = self.rows
        self.capture_lineage = lineage
        # the embedded Delta connector reads its pins from the session while run() runs: one version per table
        self.pins = SnapshotPins.from_request(snapshot)
        self.policy = policy or GuardPolicy()
        self.guard = SqlGuard(spark, self.policy)
        self.store = store
        self.team = team
        self.preview_limit = max(0, preview_limit)
        self.listener = listener
        self.job_group = job_group or f"lakeport-{uuid.uuid4().hex[:12]}"
        self.resolver = CatalogResolver(spark, store, team=team, connect_timeout=connect_timeout,
                                        delta_mode=delta_mode, on_log=self._log, guard=self.guard,
                                        access=self.access)
        self._cancelled = threading.Event()
        self._in_statement = threading.Event()

    # ---- listener plumbing -----------------------------------------------------------------------------
    def _log(self, message: str) -> None:
        if self.listener is not None:
            self.listener.on_log(redact(message))

    def _end(self, result: StatementResult) -> StatementResult:
        if self.listener is not None:
            self.listener.on_statement_end(result)
        return result

    # ---- public API --------------------------------------------------------------------------------------
    def cancel(self) -> None:
        """Stop the script: cancel the running Spark jobs of this runner's job group; later statements are skipped."""
        self._cancelled.set()
        self.spark.sparkContext.cancelJobGroup(self.job_group)
        # A statement still being planned submits its job after this call, and cancelJobGroup only reaches jobs
        # that already exist: keep cancelling until the running statement has ended.
        threading.Thread(target=self._keep_cancelling, name="lakeport-cancel", daemon=True).start()

    def _keep_cancelling(self) -> None:
        while self._in_statement.is_set():
            time.sleep(0.2)
            try:
                self.spark.sparkContext.cancelJobGroup(self.job_group)
            except Exception:  # the context may be stopping; nothing left to cancel then
                return

    def run(self, script: str) -> ScriptResult:
        """Run the script statement by statement; stops at the first failure (the rest are skipped)."""
        self._cancelled.clear()
        try:
            statements = split_statements(script)
        except SqlTextError as exc:
            return ScriptResult([], [], False, {"statement": statement_at(script, exc.offset), "line": exc.line,
                                                "column": exc.column, "message": str(exc)})
        early = self._static_error(statements)
        if early is not None:
            return self._fail_before_start(statements, early)

        results: list[StatementResult] = []
        error: dict[str, Any] | None = None
        sc = self.spark.sparkContext
        sc.setJobGroup(self.job_group, f"Lakeport script ({len(statements)} statements)", interruptOnCancel=True)
        self.pins.statements = [stmt.sql for stmt in statements]  # a consistent cut covers every statement's tables
        self.spark._lakeport_snapshot = self.pins
        try:
            for stmt in statements:
                if error is not None or self._cancelled.is_set():
                    results.append(self._end(self._skipped(stmt)))
                    continue
                result = self._run_statement(stmt, len(statements))
                results.append(result)
                if result.status == StatementStatus.FAILED:
                    error = {"statement": stmt.index, "line": result.line, "column": result.column,
                             "message": result.error}
        finally:
            sc.setLocalProperty("spark.jobGroup.id", None)
            # pins belong to this run only: a later run or a direct read on the session reads the latest versions
            self.spark._lakeport_snapshot = None
        cancelled = self._cancelled.is_set()
        if cancelled and error is None:
            error = {"statement": None, "line": None, "column": None, "message": "Cancelled."}
        return ScriptResult(results, list(self.resolver.used), error is None, error, cancelled)

    def _run_statement(self, stmt: Statement, total: int) -> StatementResult:
        if self.listener is not None:
            self.listener.on_statement_start(stmt.index, total, redact(stmt.sql))
        started, t0 = time.time(), time.perf_counter()
        self._in_statement.set()
        try:
            # Checked after marking the statement running: a cancel that came before is seen here, one that comes
            # after finds the statement running and keeps cancelling its job group until it ends.
            if self._cancelled.is_set():
                raise _Cancelled()
            frame = self.resolver.execute(stmt)
            lineage = self._lineage(frame)
            preview = self._preview(frame)
        except Exception as exc:  # noqa: BLE001 - every failure becomes a failed statement with a clear message
            # Spark's own refusal (restricted mode at analysis) reads like the guard's
            exc = SqlGuard.refusal_for_error(exc, stmt) or exc
            message = "Cancelled." if self._cancelled.is_set() else self.resolver.describe_failure(exc, stmt)
            line, column = stmt.line, stmt.column
            if isinstance(exc, SparkRuntimeError):
                line, column = _reference_position(stmt, exc) or (line, column)
            return self._end(StatementResult(stmt.index, redact(stmt.sql), StatementStatus.FAILED, started, _ms(t0),
                                             error=redact(message), line=line, column=column, span=stmt.span))
        finally:
            self._in_statement.clear()
        return self._end(StatementResult(stmt.index, redact(stmt.sql), StatementStatus.SUCCEEDED, started, _ms(t0),
                                         preview.columns, preview.rows, preview.truncated, line=stmt.line,
                                         column=stmt.column, lineage=lineage, span=stmt.span))

    def _lineage(self, frame: Any) -> LineageDocument | None:
        """What the statement read and wrote, from the plan Spark analyzed to run it (None: capture off/nothing)."""
        state = session_catalogs(self.spark)
        views, writes = state.delta.take_lineage() if state.delta is not None else ({}, [])
        if state.iceberg is not None:  # the embedded Iceberg connector records its snapshot views and commits alike
            iceberg_views, iceberg_writes = state.iceberg.take_lineage()
            views, writes = {**views, **iceberg_views}, [*writes, *iceberg_writes]
        if state.paimon is not None:  # the embedded Paimon connector records its snapshot views and commits alike
            paimon_views, paimon_writes = state.paimon.take_lineage()
            views, writes = {**views, **paimon_views}, [*writes, *paimon_writes]
        if not self.capture_lineage:
            return None
        try:
            context = LineageContext(lineage_catalogs(state.bindings.values()), views)
            lineage = StatementLineage()
            for target, source in writes:
                lineage.merge(write_lineage(source, target, [], context))
            if frame is not None and hasattr(frame, "_jdf"):
                lineage.merge(frame_lineage(frame, context))
        except Exception as exc:  # noqa: BLE001 - lineage is an observation: it never fails the statement
            self._log(f"Lineage of this statement was not captured: {type(exc).__name__}.")
            return None
        return None if lineage.empty else lineage.as_dict()

    def _preview(self, df: Any) -> _Preview:
        if df is None or not getattr(df, "columns", None):
            return _Preview()
        columns = [{"name": f.name, "type": f.dataType.simpleString()} for f in df.schema.fields]
        fetched = df.limit(self.preview_limit + 1).collect()
        truncated = len(fetched) > self.preview_limit
        # a value the user typed may be a catalog secret (SELECT '<password>'): results are masked like logs
        rows = [[_redacted(json_value(v)) for v in row] for row in fetched[: self.preview_limit]]
        return _Preview(columns, rows, truncated)

    @staticmethod
    def _skipped(stmt: Statement) -> StatementResult:
        return StatementResult(stmt.index, redact(stmt.sql), StatementStatus.SKIPPED, time.time(), 0, line=stmt.line,
                               column=stmt.column, span=stmt.span)

    # ---- checks before anything runs ---------------------------------------------------------------------
    def _static_error(self, statements: list[Statement]) -> dict[str, Any] | None:
        """The first syntax error or unknown catalog, by statement order; None when the script may start."""
        unknown = self.resolver.unknown_catalogs(statements)
        for stmt in statements:
            syntax = self.resolver.syntax_error(stmt)
            if syntax is not None:
                line, column, message = syntax
                message = f"Syntax error in statement {stmt.index + 1} of {len(statements)}: {message}"
                return {"statement": stmt.index, "line": line, "column": column, "message": redact(message)}
            refusal = self._refusal(stmt)  # the rule a statement breaks says more than the catalog it names
            if refusal is not None:
                return refusal
            if unknown is not None and unknown.statement == stmt.index:
                line, column = _reference_position(stmt, unknown) or (stmt.line, stmt.column)
                return {"statement": stmt.index, "line": line, "column": column, "message": unknown.message}
        return None

    def _refusal(self, stmt: Statement) -> dict[str, Any] | None:
        """The guard's rules that need no catalog (checked for the whole script before anything runs)."""
        if statement_refs(stmt).use is not None:
            return None  # USE CATALOG is ours: the resolver binds the catalog or names it unknown
        try:
            self.guard.check(stmt.sql, stmt)
        except GuardRefusal as refusal:
            return {"statement": stmt.index, "line": stmt.line, "column": stmt.column, "message": redact(refusal.message)}
        return None

    def _fail_before_start(self, statements: list[Statement], error: dict[str, Any]) -> ScriptResult:
        results: list[StatementResult] = []
        for stmt in statements:
            if stmt.index == error["statement"]:
                result = StatementResult(stmt.index, redact(stmt.sql), StatementStatus.FAILED, time.time(), 0,
                                         error=error["message"], line=error["line"], column=error["column"],
                                         span=stmt.span)
            else:
                result = self._skipped(stmt)
            results.append(self._end(result))
        return ScriptResult(results, [], False, error)

    def use_catalog(self, name: str) -> None:
        """Make catalog `name` current before the script, as `USE CATALOG name` does (a job's default catalog)."""
        self.resolver.execute(split_statements(f"USE CATALOG `{name}`")[0])

    def validate(self, script: str) -> tuple[list[dict[str, Any]], list[dict[str, str]] | None]:
        """Check a script without running it: splitting, syntax, unknown catalogs, and analysis of its queries.

        Analysis happens in a child session (`spark.newSession()`), where catalogs are bound and USE
        statements applied; only SELECT/WITH queries are analysed (lazily, never executed). Returns the
        errors and the output schema of the last query (None when there is none or it cannot be analysed).
        """
        try:
            statements = split_statements(script)
        except SqlTextError as exc:
            return [dict(split_problem(script, exc))], None
        errors: list[dict[str, Any]] = []
        unknown = self.resolver.unknown_catalogs(statements)
        for stmt in statements:
            syntax = self.resolver.syntax_error(stmt)
            if syntax is not None:
                line, column, message = syntax
                errors.append({"statement": stmt.index, "line": line, "column": column,
                               "message": syntax_message(stmt, message)})
            elif (refusal := self._refusal(stmt)) is not None:
                errors.append(refusal)
        if unknown is not None and not any(e["statement"] == unknown.statement for e in errors):
            stmt = statements[unknown.statement or 0]
            line, column = _reference_position(stmt, unknown) or (stmt.line, stmt.column)
            errors.append({"statement": stmt.index, "line": line, "column": column, "message": unknown.message})
        if errors:
            return sorted(errors, key=lambda e: e["statement"]), None
        return self._analyse(statements)

    def _analyse(self, statements: list[Statement]) -> tuple[list[dict[str, Any]], list[dict[str, str]] | None]:
        child = self.spark.newSession()
        child._lakeport_row_policy = self.rows
        resolver = CatalogResolver(child, self.store, team=self.team, connect_timeout=self.resolver.connect_timeout,
                                   delta_mode=self.resolver.delta_mode, guard=SqlGuard(child, self.policy),
                                   access=self.access)
        if self.resolver.current_catalog:  # a default catalog (`use_catalog`): the analysis starts in it too
            resolver.execute(split_statements(f"USE CATALOG `{self.resolver.current_catalog}`")[0])
        errors: list[dict[str, Any]] = []
        schema: list[dict[str, str]] | None = None
        created: set[str] = set()
        for stmt in statements:
            refs = statement_refs(stmt)
            try:
                if refs.use is not None or refs.namespace is not None:
                    resolver.execute(stmt)  # changes only the child session's current catalog/database
                elif is_query(stmt.tokens):
                    sql, bindings = resolver.prepare(stmt)
                    resolver.check(sql, stmt, temp_views=frozenset(created))
                    current = resolver.binding(resolver.current_catalog)
                    if any(b.embedded for b in [*bindings, *([current] if current else [])]):
                        schema = None  # tables of the embedded Delta connector exist only while a statement runs
                        continue
                    df = child.sql(sql)
                    schema = [{"name": f.name, "type": f.dataType.simpleString()} for f in df.schema.fields]
                else:
                    sql, _ = resolver.prepare(stmt)  # binding checks (unknown catalog, Hive metastore, Delta mode)
                    if refs.use is None:
                        resolver.check(sql, stmt, temp_views=frozenset(created))
                    created |= created_names(stmt.tokens)
            except GuardRefusal as refusal:
                schema = None
                errors.append({"statement": stmt.index, "line": stmt.line, "column": stmt.column,
                               "message": redact(refusal.message)})
            except Exception as exc:  # noqa: BLE001 - reported as a validation error
                schema = None
                known = SqlGuard.refusal_for_error(exc, stmt)
                exc = known or exc
                if known is None and is_query(stmt.tokens) and _uses_created(stmt, created):
                    continue  # the table is made by an earlier statement of this script: fine at run time
                errors.append({"statement": stmt.index, "line": stmt.line, "column": stmt.column,
                               "message": resolver.describe_failure(exc, stmt)})
        return errors, schema


def _redacted(value: Any) -> Any:
    """A JSON-ready value with registered secrets masked in its strings."""
    if isinstance(value, str):
        return redact_secrets(value)
    if isinstance(value, list):
        return [_redacted(v) for v in value]
    if isinstance(value, dict):
        return {k: _redacted(v) for k, v in value.items()}
    return value


def _uses_created(stmt: Statement, created: set[str]) -> bool:
    names = {c.parts[-1].lower() for c in name_chains(stmt.tokens)}
    names |= {t.name.lower() for t in stmt.tokens if t.kind in ("word", "quoted")}
    return bool(names & created)


def _reference_position(stmt: Statement, exc: SparkRuntimeError) -> tuple[int, int] | None:
    """Script-absolute position of the catalog name an error is about, if the statement names it."""
    catalog = getattr(exc, "catalog", None)
    if not catalog:
        return None
    for tok in stmt.tokens:
        if tok.kind in ("word", "quoted") and tok.name.lower() == catalog:
            line = stmt.sql.count("\n", 0, tok.start) + 1
            pos = tok.start - (stmt.sql.rfind("\n", 0, tok.start) + 1)
            return stmt.position(line, pos)
    return None


class _Cancelled(Exception):
    """The run was cancelled before this statement reached Spark."""


def _ms(t0: float) -> int:
    return int((time.perf_counter() - t0) * 1000)

