"""Embedded Delta tables joined to a stream: the static side of a stream-static join.

The embedded Delta connector serves a batch statement through snapshot views it makes for that statement, but a
streaming query is analysed once and then runs micro-batch after micro-batch. So before Spark analyses the query,
each embedded Delta table it reads is replaced by a platform view (`__lp_static_<n>`) over
`lakeport_engine/delta/static_source.py`, which reads the table at its latest version in every micro-batch (as
Delta-Spark re-reads a static Delta side per micro-batch). The SQL guard has already checked the statement with
the tables' own names: only Delta catalogs bound for the team get here.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lakeport_engine.bindings import session_catalogs
from lakeport_engine.bindings.base import register_data_source
from lakeport_engine.row_policy import session_row_policy
from lakeport_engine.streaming.errors import StreamingStatementError
from lakeport_engine.streaming.statement import watermark_spans

if TYPE_CHECKING:
    from lakeport_engine.delta.catalog import TableRef
    from lakeport_engine.resolver import CatalogResolver

# The Delta modules (deltalake, pyarrow) are imported in the functions below, when a session has an embedded Delta
# catalog: every engine imports this module, and an idle engine stays without them (its memory target).

logger = logging.getLogger("lakeport.streaming")

STATIC_VIEW_PREFIX = "__lp_static_"


@dataclass(frozen=True)
class StaticTable:
    """An embedded Delta table the query joins to its stream, and the platform view that reads it."""

    view: str
    catalog: str
    database: str
    table: str


def delta_static_tables(resolver: CatalogResolver, query: str) -> tuple[str, list[StaticTable]]:
    """`query` with each embedded Delta table it reads replaced by a view re-read in every micro-batch.

    Raises StreamingStatementError for time travel on such a table, a table in an object-store warehouse, or a
    table the connector cannot read (missing, unsupported features).
    """
    delta = session_catalogs(resolver.spark).delta
    if delta is None:
        return query, []
    from lakeport_engine.delta.errors import DeltaConnectorError
    from lakeport_engine.delta.statements import rewrite

    try:
        references = delta.query_references(without_watermarks(query), current_catalog=resolver.current_catalog,
                                            current_database=resolver.current_database)
    except DeltaConnectorError as exc:
        raise StreamingStatementError(exc.message) from None
    views: dict[tuple[object, ...], str] = {}
    tables: list[StaticTable] = []
    for reference in references:
        ref = reference.ref
        if reference.version is not None or reference.timestamp_sql is not None:
            raise StreamingStatementError(
                f"Delta table {ref} is joined to a stream, so each micro-batch reads its latest version; "
                "VERSION AS OF / TIMESTAMP AS OF on it is not supported.")
        if reference.snapshot_key not in views:
            views[reference.snapshot_key] = _static_view(resolver, ref)
            tables.append(StaticTable(views[reference.snapshot_key], ref.catalog, ref.database, ref.table))
    return (rewrite(query, references, views) if references else query), tables


def _static_view(resolver: CatalogResolver, ref: TableRef) -> str:
    """Register the view over `ref` that reads its latest version in every micro-batch; returns its name."""
    from lakeport_engine.delta.catalog import DeltaCatalog
    from lakeport_engine.delta.errors import DeltaConnectorError
    from lakeport_engine.delta.features import check_readable
    from lakeport_engine.delta.schema import spark_schema
    from lakeport_engine.delta.snapshot import open_table
    from lakeport_engine.delta.static_source import FORMAT, DeltaStaticDataSource

    binding = resolver.binding(ref.catalog)  # bound while the guard checked the statement
    if binding is None:
        raise StreamingStatementError(f"'{ref.catalog}' is not one of team '{resolver.team}''s catalogs.")
    catalog = DeltaCatalog.from_config(binding.name, binding.configuration)
    if not catalog.is_local:
        raise StreamingStatementError(
            f"Delta table {ref} is joined to a stream: the embedded Delta connector reads the static side of a "
            "stream from tables in local warehouses only; use LAKEPORT_DELTA_MODE=jvm with delta-spark jars for "
            "object storage.")
    try:
        table = open_table(catalog, ref)
        check_readable(table, ref)
    except DeltaConnectorError as exc:
        raise StreamingStatementError(exc.message) from None
    spark = resolver.spark
    register_data_source(spark, DeltaStaticDataSource)
    frame = (spark.read.format(FORMAT).option("uri", catalog.table_uri(ref)).option("table", str(ref))
             .option("schema", spark_schema(table.schema()).json()).load())
    frame = session_row_policy(spark).protect(frame, (ref.catalog, ref.database, ref.table))  # docs/access.md
    state = session_catalogs(spark)
    with state.lock:
        state.stream_views += 1  # one numbering for the platform's stream and static views
        name = f"{STATIC_VIEW_PREFIX}{state.stream_views}"
    frame.createOrReplaceTempView(name)
    logger.info("Delta table %s is joined to the stream: each micro-batch reads its latest version (version %d "
                "now).", ref, table.version())
    return name


def without_watermarks(query: str) -> str:
    """`query` with each `WATERMARK <column> DELAY OF INTERVAL …` clause blanked to spaces (offsets stay valid),
    for the Delta connector's statement reader, whose parser does not know Spark's clause."""
    for start, end in watermark_spans(query):
        query = query[:start] + " " * (end - start) + query[end:]
    return query


__all__ = ["STATIC_VIEW_PREFIX", "StaticTable", "delta_static_tables", "without_watermarks"]
