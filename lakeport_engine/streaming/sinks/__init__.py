"""Streaming sinks, one module per kind, chosen by the catalog type of the INSERT's target table: each type's
binding names its sink factory (`CatalogBinding.sink`, `module:function`), so a new type adds no branch here.

delta → `DeltaSink` (append, merge on the grouping key) or `ChangelogSink` (a table with an `op` column);
jdbc → `JdbcSink` (staging + one upserting transaction); hive → `FileTableSink` (Spark's file sink);
paimon → `PaimonSink` (executors write, one snapshot per batch under Paimon's commit user and identifier).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any, cast

from pyspark.sql import SparkSession

from lakeport_engine.bindings import BINDINGS, binding_for
from lakeport_engine.bindings.base import SinkTarget
from lakeport_engine.streaming.errors import StreamingSinkError
from lakeport_engine.streaming.sinks.base import BatchSink, QueryShape, StreamingSink

# A sink factory: the sink for a target, or None when the catalog cannot take streaming writes as it is bound.
SinkFactory = Callable[[SinkTarget], StreamingSink | None]


def sink_factory(reference: str) -> SinkFactory:
    """The factory a binding names as `module:function`; each kind's module (pyarrow, deltalake, psycopg: ~130 MiB)
    is imported only when a query writes to it, so an idle team engine never pays for it."""
    module, _, name = reference.partition(":")
    return cast(SinkFactory, getattr(importlib.import_module(module), name))


def sink_catalog_types() -> tuple[str, ...]:
    """The catalog types whose tables can be streaming sinks."""
    return tuple(key for key, binding in BINDINGS.items() if binding.sink)


def sink_for(spark: SparkSession, *, catalog_type: str, catalog: str, spark_catalog: str | None,
             config: Mapping[str, Any], database: str, table: str, columns: tuple[str, ...] = ()) -> StreamingSink:
    """The sink for table `catalog.database.table` of a bound catalog (`config` holds its plain credentials)."""
    target = SinkTarget(spark, catalog, spark_catalog, config, database, table, columns)
    reference = binding_for(catalog_type).sink
    sink = sink_factory(reference)(target) if reference else None
    if sink is None:
        raise StreamingSinkError(
            f"Table {target.display} is in a '{catalog_type}' catalog, which cannot be a streaming sink: write into a "
            "table of a Delta (embedded), Paimon, JDBC or Hive catalog."
        )
    return sink


__all__ = ["BatchSink", "QueryShape", "StreamingSink", "sink_catalog_types", "sink_for"]
