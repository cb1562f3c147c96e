"""paimon catalogs → the embedded Paimon connector (lakeport_engine/paimon): pypaimon splits read by Spark tasks.

There is no JVM mode: the paimon-spark runtime jars cannot be fetched on this platform. Spark has no catalog of
the name; the resolver hands the catalog's statements to the connector, as for embedded Delta catalogs.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, ClassVar

from lakeport_engine.bindings.base import (
    BindContext,
    Binding,
    BindingFailure,
    PlainBinding,
    register_data_source,
    typed_config,
)
from lakeport_engine.catalog_types import paimon
from lakeport_engine.catalog_types.base import CatalogTypeDefinition
from lakeport_engine.catalog_types.paimon import PaimonConfig
from lakeport_engine.datasets import Dataset, paimon_dataset

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from lakeport_engine.paimon.connector import EmbeddedPaimon
    from lakeport_engine.store import CatalogEntry


class PaimonBindingError(BindingFailure, RuntimeError):
    """An paimon catalog cannot be bound (bad configuration, pypaimon missing)."""


class PaimonBinding(PlainBinding):
    """paimon catalogs: statements run by the embedded connector."""

    definition: ClassVar[CatalogTypeDefinition] = paimon.DEFINITION
    key: ClassVar[str] = paimon.DEFINITION.key
    display_name: ClassVar[str] = "Paimon"
    # append, or upsert into a primary-key table; exactly once by Paimon's commit user and commit identifier
    sink: ClassVar[str | None] = "lakeport_engine.streaming.sinks.paimon:paimon_sink"

    def bind(self, ctx: BindContext, entry: CatalogEntry, old: Binding | None) -> Binding:
        """Register the catalog with the session's embedded Paimon connector."""
        typed_config(PaimonConfig, entry.name, entry.configuration)  # a bad stored configuration fails here, named
        embedded_paimon(ctx).register(entry.name, entry.configuration)
        return Binding(entry.name, self.key, entry.fingerprint, entry.version, None, entry.configuration,
                       embedded=True)

    def unbind(self, ctx: BindContext, binding: Binding) -> None:
        """Nothing to undo: the connector is only reached through a binding."""

    def summary(self, binding: Binding) -> str:
        """Which connector serves the catalog."""
        return f"paimon (embedded connector) at {binding.configuration.get('warehouse')}"

    def default_database(self, config: dict[str, Any]) -> str | None:
        """The catalog's `default-database`."""
        return str(config.get("default-database") or "default")

    def lineage_dataset(self, binding: Binding, database: str, table: str) -> Dataset | None:
        """The table by its directory under the warehouse."""
        from lakeport_engine.paimon.catalog import table_path

        warehouse = str(binding.configuration.get("warehouse") or "").removeprefix("file://").rstrip("/")
        return paimon_dataset(binding.name, database, table, table_path(warehouse, database, table), None)

    def stream(self, spark: SparkSession, binding: Binding, database: str, table: str) -> DataFrame:
        """The table as a stream: its latest snapshot, then each new snapshot's rows or changelog
        (lakeport_engine/paimon/stream_source.py)."""
        from lakeport_engine.paimon.stream_source import FORMAT, PaimonStreamDataSource, stream_schema

        loaded, label, columns = _stream_table(binding, database, table)
        primary = bool(loaded.table_schema.primary_keys)
        try:
            schema = stream_schema(columns, primary_key=primary)
        except Exception as exc:  # PaimonError: a column named like the row-kind column
            raise _source_error(label, exc) from None
        register_data_source(spark, PaimonStreamDataSource)
        reader = (spark.readStream.format(FORMAT).option("path", str(loaded.table_path)).option("table", label)
                  .option("schema", schema.json()).option("primary_key", "true" if primary else "false"))
        limit = typed_config(PaimonConfig, binding.name, binding.configuration).max_snapshots_per_batch
        if limit:
            reader = reader.option("max_snapshots_per_batch", str(limit))
        return reader.load()

    def sample(self, spark: SparkSession, binding: Binding, database: str, table: str, limit: int) -> DataFrame:
        """The first `limit` rows of the latest snapshot (merged), as the stream's first batch holds them."""
        from lakeport_engine.paimon.source import FORMAT
        from lakeport_engine.paimon.stream_source import ROW_KIND

        loaded, label, columns = _stream_table(binding, database, table)
        snapshot = loaded.snapshot_manager().get_latest_snapshot()
        travel = {"scan.snapshot-id": str(snapshot.id)} if snapshot is not None else {}
        frame = (spark.read.format(FORMAT).option("path", str(loaded.table_path)).option("table", label)
                 .option("travel", json.dumps(travel)).option("schema", columns.json()).load())
        if loaded.table_schema.primary_keys:
            from pyspark.sql import functions as F

            frame = frame.withColumn(ROW_KIND, F.lit("+I"))
        return frame.limit(limit)


def _stream_table(binding: Binding, database: str, table: str) -> tuple[Any, str, Any]:
    """(pypaimon table, label, Spark schema) of a Paimon table to stream; StreamSourceError naming it otherwise."""
    from lakeport_engine.delta.catalog import TableRef
    from lakeport_engine.paimon.catalog import check_readable
    from lakeport_engine.paimon.connector import PaimonCatalogConfig, load_table, spark_schema

    label = f"{binding.name}.{database}.{table}"
    try:
        catalog = PaimonCatalogConfig.from_config(binding.name, binding.configuration)
        loaded = load_table(catalog, TableRef(binding.name, database, table))
        check_readable(loaded, table=label)
        return loaded, label, spark_schema(loaded, label)
    except Exception as exc:  # PaimonError, or pypaimon failing to open the table
        raise _source_error(label, exc) from None


def _source_error(label: str, exc: BaseException) -> Exception:
    from lakeport_engine.streamio.tables import StreamSourceError
    from lakeport_kernel.redaction import redact

    text = redact(str(exc).strip()).splitlines()[0] if str(exc).strip() else type(exc).__name__
    return StreamSourceError(f"STREAM({label}): {text}")


def embedded_paimon(ctx: BindContext) -> EmbeddedPaimon:
    """The session's embedded Paimon connector (created on first use)."""
    if ctx.state.paimon is None:
        try:
            from lakeport_engine.paimon.connector import (
                EmbeddedPaimon,  # pypaimon: only when an paimon catalog binds
            )
        except ImportError as exc:
            raise PaimonBindingError(f"The embedded Paimon connector is not available ({exc.name or exc}).") from None
        ctx.state.paimon = EmbeddedPaimon(ctx.spark)
    return ctx.state.paimon
