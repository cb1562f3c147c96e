"""Planning and starting one streaming statement: sources become platform stream views, the SQL guard checks the
INSERT as it will run, Spark analyses the query, and the EMIT clause is matched with what the sink can honour —
all before anything starts, so a refused statement writes nothing.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.streaming.query import StreamingQuery

from lakeport_engine.access import MODIFY, SELECT, describe
from lakeport_engine.bindings import binding_for, lineage_catalogs, session_catalogs
from lakeport_engine.datasets import Dataset
from lakeport_engine.guard import PLATFORM_VIEW_PREFIX, GuardRefusal
from lakeport_engine.jvm import jvm
from lakeport_engine.lineage_capture import LineageContext, StatementLineage, frame_lineage, write_lineage
from lakeport_engine.resolver import CatalogResolver
from lakeport_engine.sqltext import QUOTED, WORD, Statement, split_statements, tokenize
from lakeport_engine.streaming.emit import APPEND, Emit
from lakeport_engine.streaming.errors import StreamingStatementError
from lakeport_engine.streaming.sinks import QueryShape, StreamingSink, sink_for
from lakeport_engine.streaming.statement import StreamingStatement, parse_streaming
from lakeport_engine.streaming.static_tables import StaticTable, delta_static_tables

logger = logging.getLogger("lakeport.streaming")

# Registers a streaming temp view over a stream table of a bound catalog; returns its platform-reserved name.
StreamViewFactory = Callable[[CatalogResolver, str, str, str], str]


@dataclass
class StreamingPlan:
    """A streaming statement ready to start: the query's DataFrame, its sink, Spark's output mode and trigger."""

    statement: StreamingStatement
    frame: DataFrame
    sink: StreamingSink
    mode: str
    emit: Emit
    shape: QueryShape
    views: list[str]
    target: tuple[str, str, str] = ("", "", "")  # (catalog, database, table) of the sink
    sources: list[tuple[str, str, str]] = dataclasses.field(default_factory=list)  # of each view, in order
    static: list[StaticTable] = dataclasses.field(default_factory=list)  # embedded Delta tables joined to the stream

    def describe(self) -> dict[str, Any]:
        """What the runner reports when the query starts."""
        return {"target": self.sink.target, "sink": self.sink.kind, "output_mode": self.mode,
                "trigger_seconds": self.emit.delay_seconds, "emit": self.emit.text or None,
                "columns": list(self.shape.columns), "key": list(self.shape.key)}


def _allowed(resolver: CatalogResolver, what: str, target: tuple[str, str, str]) -> tuple[str, str, str]:
    """`target` if the caller holds what a stream source (SELECT) or sink (MODIFY) needs on it; GuardRefusal else."""
    privilege = SELECT if what == "stream" else MODIFY
    if resolver.access is not None and not resolver.access.allows(privilege, target):
        raise GuardRefusal("access", detail=f"{privilege} on {describe(target)}")
    return target


def qualify(parts: tuple[str, ...], resolver: CatalogResolver, *, what: str) -> tuple[str, str, str]:
    """(catalog, database, table) of a 1- to 3-part name, with the resolver's current catalog and database; a stream
    source needs SELECT on it, a sink MODIFY, when grants govern its catalog (docs/access.md)."""
    if len(parts) == 3:
        return _allowed(resolver, what, (parts[0].lower(), parts[1], parts[2]))
    catalog = resolver.current_catalog
    if len(parts) == 2 and catalog:
        return _allowed(resolver, what, (catalog, parts[0], parts[1]))
    if len(parts) == 1 and catalog and resolver.current_database:
        return _allowed(resolver, what, (catalog, resolver.current_database, parts[0]))
    raise StreamingStatementError(f"Name the {what} in full as <catalog>.<database>.<table>: "
                                  f"'{'.'.join(parts)}' does not say which catalog it is in.")


def plan_streaming(resolver: CatalogResolver, stmt: Statement, *, stream_view: StreamViewFactory) -> StreamingPlan:
    """Check a streaming statement end to end without starting it (raises a SparkRuntimeError subclass)."""
    spark: SparkSession = resolver.spark
    parsed = parse_streaming(stmt.sql)
    refuse_reserved_names(parsed, stmt)
    catalog, database, table = qualify(parsed.target, resolver, what="target table")
    binding = resolver.bind(catalog, statement=stmt.index)
    if binding is None:
        raise StreamingStatementError(f"'{catalog}' is a Spark catalog of this session, not one of the team's "
                                      "catalogs: write into a table of a Delta, Paimon, JDBC or Hive catalog.")
    sink = sink_for(spark, catalog_type=binding.type, catalog=catalog, spark_catalog=binding.spark_name,
                    config=binding.configuration, database=database, table=table, columns=parsed.columns)
    names = [qualify(ref.parts, resolver, what="stream") for ref in parsed.sources]
    views = [stream_view(resolver, *name) for name in names]
    _guard(resolver, stmt, parsed.with_views(views), frozenset(views))
    query, static = delta_static_tables(resolver, parsed.query_with_views(views))
    try:
        frame = spark.sql(query)
    except Exception as exc:  # noqa: BLE001 - Spark's analysis error becomes the statement's message
        raise StreamingStatementError(resolver.describe_failure(exc, stmt), statement=stmt.index) from None
    if not frame.isStreaming:
        raise StreamingStatementError("The query reads no stream: name its source as FROM STREAM(<catalog>.<db>.<stream>).")
    shape, watermark = query_shape(frame)
    mode = parsed.emit.output_mode(aggregates=shape.aggregates)
    if mode == APPEND and shape.aggregates and not watermark:
        raise StreamingStatementError(
            f"{parsed.emit.text or 'Appending'} needs a watermark: an aggregation's rows are final only when the "
            "watermark passes them. Add WATERMARK <event-time column> DELAY OF INTERVAL '<n>' SECONDS after "
            "FROM STREAM(…) and group by window(<event-time column>, …), or use EMIT STREAM to update rows instead.",
            statement=stmt.index)
    _check_mode(spark, frame, mode, parsed.emit)
    sink.check(mode, shape)
    columns = list(getattr(sink, "columns", shape.columns))
    if len(columns) == len(frame.columns):
        frame = frame.toDF(*columns)  # INSERT INTO matches columns by position
    return StreamingPlan(parsed, frame, sink, mode, parsed.emit, shape, views, (catalog, database, table), names,
                         static)


def _lineage_dataset(resolver: CatalogResolver, catalog: str, database: str, table: str) -> Dataset | None:
    binding = resolver.binding(catalog)  # bound while planning
    return binding_for(binding.type).lineage_dataset(binding, database, table) if binding is not None else None


def streaming_lineage(resolver: CatalogResolver, plan: StreamingPlan) -> StatementLineage:
    """What the query reads (stream sources, and tables it joins) and writes, with column lineage into the sink."""
    views = {view: found for view, name in zip(plan.views, plan.sources, strict=False)
             if (found := _lineage_dataset(resolver, *name)) is not None}
    views.update({side.view: found for side in plan.static
                  if (found := _lineage_dataset(resolver, side.catalog, side.database, side.table)) is not None})
    context = LineageContext(lineage_catalogs(session_catalogs(resolver.spark).bindings.values()), views)
    target = _lineage_dataset(resolver, *plan.target)
    if target is None:
        return frame_lineage(plan.frame, context)
    return write_lineage(plan.frame, target, list(plan.frame.columns), context)


def start_streaming(plan: StreamingPlan, *, checkpoint: str, name: str | None = None,
                    available_now: bool = False) -> StreamingQuery:
    """Start the planned query with its checkpoint (a restart with the same directory resumes where it stopped).

    `available_now`: process what the sources hold now and stop (Spark's AvailableNow trigger), for catch-up runs.
    """
    prune_interrupted_writes(checkpoint)
    writer = plan.frame.writeStream.outputMode(plan.mode).option("checkpointLocation", checkpoint)
    if name:
        writer = writer.queryName(name)
    if available_now:
        writer = writer.trigger(availableNow=True)
    elif plan.emit.trigger:
        writer = writer.trigger(**plan.emit.trigger)
    return plan.sink.start(writer)


# Spark writes a checkpoint log entry to `.<name>.<uuid>.tmp` (and its `.crc`) and renames it into place.
_INTERRUPTED_WRITE = re.compile(r"^\.\.?.+\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(\.TID\d+)?\.tmp(\.crc)?$")


def prune_interrupted_writes(checkpoint: str) -> list[str]:
    """Delete the temporary files a killed driver left in a local checkpoint; the names deleted.

    They never hold committed data (Spark renames a log entry into place only once it is complete), but Spark 4.3
    counts them as content: a driver killed while writing its first offsets entry left a checkpoint that every
    restart refused with STATE_STORE_CHECKPOINT_LOCATION_NOT_EMPTY. Call it only where no query runs on
    `checkpoint` (a streaming job holds its lease).
    """
    if "://" in checkpoint and not checkpoint.startswith("file://"):
        return []  # object stores write log entries in one put: nothing is left half-renamed
    root = Path(re.sub(r"^file:(//)?", "", checkpoint))
    if not root.is_dir():
        return []
    pruned = []
    for path in root.rglob(".*"):
        if path.is_file() and _INTERRUPTED_WRITE.match(path.name):
            path.unlink(missing_ok=True)
            pruned.append(str(path.relative_to(root)))
    if pruned:
        logger.warning("Removed %d interrupted checkpoint writes from %s: %s", len(pruned), checkpoint,
                       ", ".join(sorted(pruned)[:5]))
    return pruned


def refuse_reserved_names(parsed: StreamingStatement, stmt: Statement) -> None:
    """The guard's `reserved-name` rule on what the user wrote: the guard lets the platform's own stream views
    through once they replace STREAM(…), so a user naming one (`__lp_stream_1`) must be refused before that."""
    for token in tokenize(parsed.with_views(["s" for _ in parsed.sources])):
        if token.kind in (WORD, QUOTED) and token.name.lower().startswith(PLATFORM_VIEW_PREFIX):
            raise GuardRefusal("reserved-name", detail=f"'{token.name}'", statement=stmt.index, line=stmt.line)


def _guard(resolver: CatalogResolver, stmt: Statement, sql: str, views: frozenset[str]) -> None:
    """The SQL guard on the INSERT as it runs (stream views in place of STREAM(…))."""
    if resolver.guard is None:
        return
    rewritten = split_statements(sql)[0]
    rewritten = Statement(stmt.index, rewritten.sql, stmt.line, stmt.column, rewritten.tokens)
    prepared, _ = resolver.prepare(rewritten)
    scope = dataclasses.replace(resolver.guard_scope(), platform_views=views)
    resolver.guard.check(prepared, rewritten, scope)


def query_shape(frame: DataFrame) -> tuple[QueryShape, bool]:
    """Columns, grouping key and aggregation of a streaming query, and whether it has a watermark."""
    nodes = json.loads(frame._jdf.queryExecution().analyzed().toJSON())
    classes = [_simple(n["class"]) for n in nodes]
    watermark = "EventTimeWatermark" in classes
    columns = tuple(frame.columns)
    aggregate = next((n for n in nodes if _simple(n["class"]) == "Aggregate"), None)
    if aggregate is None:
        return QueryShape(columns), watermark
    grouping = [expr[0] for expr in aggregate.get("groupingExpressions") or [] if expr]
    group_ids = {_expr_id(e) for e in grouping}
    group_by = tuple(str(e.get("name") or _simple(e["class"])) for e in grouping)
    key_ids = set()
    for expr in aggregate.get("aggregateExpressions") or []:
        classes_in = [_simple(n["class"]) for n in expr]
        grouped = any(c == "AttributeReference" and _expr_id(n) in group_ids for c, n in zip(classes_in, expr,
                                                                                             strict=True))
        if expr and grouped and "AggregateExpression" not in classes_in:
            key_ids.add(_expr_id(expr[0]))  # computed from grouping columns only: part of the key
    key_ids.discard(None)
    output = _output_ids(nodes)
    key = tuple(c for c, i in zip(columns, output, strict=False) if i in key_ids or i in group_ids)
    return QueryShape(columns, key, group_by, aggregates=True), watermark


def _output_ids(nodes: list[dict[str, Any]]) -> list[int | None]:
    """Expression ids of the root's output columns (Aggregate or Project roots; others unknown)."""
    root = nodes[0] if nodes else {}
    field = {"Aggregate": "aggregateExpressions", "Project": "projectList"}.get(_simple(root.get("class", "")))
    if field is None:
        return []
    ids: list[int | None] = []
    for expr in root.get(field) or []:
        head = expr[0] if expr else {}
        if _simple(head.get("class", "")) == "Alias" and len(expr) > 1 and _simple(expr[1]["class"]) == "AttributeReference":
            ids.append(_expr_id(expr[1]) if field == "projectList" else _expr_id(head))
        else:
            ids.append(_expr_id(head))
    return ids


def _check_mode(spark: SparkSession, frame: DataFrame, mode: str, emit: Emit) -> None:
    """Spark's own check of the output mode against the query, before start, as an EMIT message."""
    view = jvm(spark)
    output_mode = getattr(view.org.apache.spark.sql.streaming.OutputMode, mode.capitalize())()
    checker = view.org.apache.spark.sql.catalyst.analysis.UnsupportedOperationChecker
    try:
        checker.checkForStreaming(frame._jdf.queryExecution().analyzed(), output_mode)
    except Exception as exc:  # noqa: BLE001 - py4j carries Spark's AnalysisException
        java = getattr(exc, "java_exception", None)
        message = str(java.getMessage()) if java is not None else str(exc)
        message = message.split("\n")[0].split(";;")[0].strip()
        other = "EMIT STREAM" if mode == APPEND else "EMIT AFTER WATERMARK"
        raise StreamingStatementError(f"{emit.text or mode + ' mode'} cannot run this query ({message}); "
                                      f"try {other}.") from None


def _expr_id(node: dict[str, Any]) -> int | None:
    value = node.get("exprId")
    return int(value["id"]) if isinstance(value, dict) and "id" in value else None


def _simple(name: str) -> str:
    return name.rsplit(".", 1)[-1]


__all__ = ["StreamViewFactory", "StreamingPlan", "plan_streaming", "qualify", "query_shape", "refuse_reserved_names",
           "start_streaming", "streaming_lineage"]
