"""delta catalogs → the embedded Delta connector (lakeport_engine/delta, default) or, with
LAKEPORT_DELTA_MODE=jvm, the JVM `io.delta.sql.DeltaCatalog` as the session catalog (needs delta-spark jars)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, ClassVar

from lakeport_engine.bindings.base import (
    BindContext,
    Binding,
    BindingFailure,
    PlainBinding,
    register_data_source,
    typed_config,
)
from lakeport_engine.catalog_types import delta
from lakeport_engine.catalog_types.base import CatalogTypeDefinition
from lakeport_engine.catalog_types.delta import DeltaConfig
from lakeport_engine.datasets import Dataset, delta_dataset

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from lakeport_engine.delta import EmbeddedDelta
    from lakeport_engine.store import CatalogEntry

DELTA_EXTENSION = "io.delta.sql.DeltaSparkSessionExtension"
DELTA_CATALOG = "org.apache.spark.sql.delta.catalog.DeltaCatalog"
MODE_ENV = "LAKEPORT_DELTA_MODE"

# delta-rs storage option names → the Hadoop S3A/ABFS/GCS settings the JVM connector reads
_HADOOP_KEYS = {
    "aws_access_key_id": "fs.s3a.access.key",
    "aws_secret_access_key": "fs.s3a.secret.key",
    "aws_session_token": "fs.s3a.session.token",
    "aws_endpoint_url": "fs.s3a.endpoint",
    "aws_endpoint": "fs.s3a.endpoint",
    "aws_region": "fs.s3a.endpoint.region",
    "google_service_account": "google.cloud.auth.service.account.json.keyfile",
}


class DeltaBindingError(BindingFailure, RuntimeError):
    """A delta catalog cannot be bound (missing jars, conflicting session catalog, missing connector)."""


def delta_mode(override: str | None = None) -> str:
    """'embedded' (default) or 'jvm', from the runner option or LAKEPORT_DELTA_MODE."""
    value = (override or os.environ.get(MODE_ENV, "") or "embedded").strip().lower()
    if value not in ("embedded", "jvm"):
        raise DeltaBindingError(f"{MODE_ENV} must be 'embedded' or 'jvm', not {value!r}.")
    return value


def jvm_static_conf(config: dict[str, Any]) -> dict[str, str]:
    """Spark confs binding a delta catalog to the JVM DeltaCatalog as `spark_catalog` (static: set before start).

    Storage credentials become Hadoop settings whose names Spark's redaction regex masks in the UI/event log.
    """
    conf = {
        "spark.sql.extensions": DELTA_EXTENSION,
        "spark.sql.catalog.spark_catalog": DELTA_CATALOG,
    }
    warehouse = str(config.get("warehouse") or "")
    if warehouse:
        # tables live at <warehouse>/<database>/<table>; Spark's default location is <warehouse>/<db>.db/<table>
        conf["spark.sql.warehouse.dir"] = warehouse
    for key, value in (config.get("storage-options") or {}).items():
        hadoop = _HADOOP_KEYS.get(str(key).lower())
        if hadoop is None and "." in str(key):
            hadoop = str(key)  # already a Hadoop setting name (fs.azure.account.key.<acct>…)
        if hadoop is not None:
            conf[f"spark.hadoop.{hadoop}"] = str(value)
    return conf


def check_jvm_session(spark: Any, name: str) -> None:
    """Raise unless the delta-spark classes are loadable and the session catalog is the DeltaCatalog."""
    loader = spark.sparkContext._jvm.Thread.currentThread().getContextClassLoader()
    try:
        loader.loadClass(DELTA_CATALOG)
    except Exception:  # noqa: BLE001 - py4j wraps ClassNotFoundException
        raise DeltaBindingError(
            f"Delta catalog '{name}': {MODE_ENV}=jvm needs the delta-spark jars (io.delta:delta-spark_2.13 and "
            "delta-storage) on the driver and executor classpath (spark.jars / --jars); they are not loaded. "
            f"Unset {MODE_ENV} to use the embedded Delta connector."
        ) from None
    current = spark.conf.get("spark.sql.catalog.spark_catalog", "")
    if current != DELTA_CATALOG:
        raise DeltaBindingError(
            f"Delta catalog '{name}': the JVM DeltaCatalog only works as spark_catalog, which is static; start the "
            f"session with spark.sql.extensions={DELTA_EXTENSION} and spark.sql.catalog.spark_catalog={DELTA_CATALOG}."
        )


SESSION_CATALOG = "spark_catalog"


class DeltaBinding(PlainBinding):
    """delta catalogs: the embedded connector (statements run by it), or in jvm mode the DeltaCatalog."""

    definition: ClassVar[CatalogTypeDefinition] = delta.DEFINITION
    key: ClassVar[str] = delta.DEFINITION.key
    display_name: ClassVar[str] = "Delta"
    # embedded: append, merge on the grouping key, or a changelog; jvm mode (spark_catalog): none
    sink: ClassVar[str | None] = "lakeport_engine.streaming.sinks.changelog:delta_sink"

    def static_conf(self, entry: CatalogEntry, *, delta_mode: str) -> dict[str, str]:
        """The JVM DeltaCatalog as spark_catalog in jvm mode; nothing for the embedded connector."""
        return jvm_static_conf(entry.configuration) if delta_mode == "jvm" else {}

    def shares_session_catalog(self, *, delta_mode: str) -> bool:
        """One JVM DeltaCatalog serves every delta catalog (tables are addressed by path)."""
        return True

    def bind(self, ctx: BindContext, entry: CatalogEntry, old: Binding | None) -> Binding:
        """Register with the embedded connector, or check the session's JVM DeltaCatalog."""
        if ctx.delta_mode == "jvm":
            if ctx.state.hive is not None:
                raise DeltaBindingError(
                    f"Delta catalog '{entry.name}' (JVM mode) and Hive catalog '{ctx.state.hive}' both need spark_catalog."
                )
            check_jvm_session(ctx.spark, entry.name)
            return Binding(entry.name, self.key, entry.fingerprint, entry.version, SESSION_CATALOG, entry.configuration)
        embedded_delta(ctx).register(entry.name, entry.configuration)
        return Binding(entry.name, self.key, entry.fingerprint, entry.version, None, entry.configuration,
                       embedded=True)

    def unbind(self, ctx: BindContext, binding: Binding) -> None:
        """Nothing to undo: the embedded connector is only reached through a binding, and jvm mode is static."""

    def summary(self, binding: Binding) -> str:
        """Which connector serves the catalog."""
        if binding.embedded:
            return f"delta (embedded connector) at {binding.configuration.get('warehouse')}"
        return "delta (JVM DeltaCatalog) as spark_catalog"

    def default_database(self, config: dict[str, Any]) -> str | None:
        """The catalog's `default-database`."""
        value = config.get("default-database")
        return str(value) if value else None

    def lineage_dataset(self, binding: Binding, database: str, table: str) -> Dataset | None:
        """The table by its path (`file` + local path, or `scheme://bucket` + key)."""
        from lakeport_engine.delta.catalog import DeltaCatalog, TableRef

        uri = DeltaCatalog.from_config(binding.name, binding.configuration).table_uri(TableRef(binding.name, database, table))
        return delta_dataset(binding.name, database, table, uri, None)

    def stream(self, spark: SparkSession, binding: Binding, database: str, table: str) -> DataFrame:
        """The table as a stream: new versions are micro-batches (embedded: lakeport_engine/delta/stream_source.py;
        jvm mode: Delta's own source)."""
        from lakeport_engine.streamio.tables import StreamSourceError

        catalog, ref, uri, current = _stream_table(binding, database, table)
        if not binding.embedded:
            return spark.readStream.format("delta").load(uri if "://" in uri else f"file://{uri}")
        if not catalog.is_local:
            raise StreamSourceError(f"STREAM({ref}): the embedded Delta connector streams from tables in local "
                                    f"warehouses only; use {MODE_ENV}=jvm with delta-spark jars for object storage.")
        from lakeport_engine.delta.stream_source import FORMAT, DeltaStreamDataSource

        register_data_source(spark, DeltaStreamDataSource)
        reader = (spark.readStream.format(FORMAT).option("uri", uri).option("table", str(ref))
                  .option("schema", current.json()))
        limit = typed_config(DeltaConfig, binding.name, binding.configuration).max_versions_per_batch
        if limit:
            reader = reader.option("max_versions_per_batch", str(limit))
        return reader.load()

    def sample(self, spark: SparkSession, binding: Binding, database: str, table: str, limit: int) -> DataFrame:
        """The first `limit` rows of the latest snapshot (Delta keeps no arrival order within a version)."""
        from lakeport_engine.delta.snapshot import open_table, snapshot_frame

        catalog, ref, _uri, _current = _stream_table(binding, database, table)
        return snapshot_frame(spark, open_table(catalog, ref), ref).limit(limit)


def _stream_table(binding: Binding, database: str, table: str) -> tuple[Any, Any, str, Any]:
    """(DeltaCatalog, TableRef, table URI, Spark schema) of a Delta table to stream; StreamSourceError if missing."""
    from lakeport_engine.delta.catalog import DeltaCatalog, TableRef
    from lakeport_engine.delta.errors import DeltaConnectorError
    from lakeport_engine.delta.features import check_readable
    from lakeport_engine.delta.schema import spark_schema
    from lakeport_engine.delta.snapshot import open_table
    from lakeport_engine.streamio.tables import StreamSourceError

    ref = TableRef(binding.name, database, table)
    try:
        catalog = DeltaCatalog.from_config(binding.name, binding.configuration)
        loaded = open_table(catalog, ref)
        check_readable(loaded, ref)
    except DeltaConnectorError as exc:
        raise StreamSourceError(f"STREAM({ref}): {exc}") from None
    return catalog, ref, catalog.table_uri(ref), spark_schema(loaded.schema())


def embedded_delta(ctx: BindContext) -> EmbeddedDelta:
    """The session's embedded Delta connector (created on first use)."""
    if ctx.state.delta is None:
        try:
            from lakeport_engine.delta import (
                EmbeddedDelta,  # pyspark + deltalake: only loaded when a delta catalog binds
            )
        except ImportError as exc:
            raise DeltaBindingError(
                f"The embedded Delta connector is not available ({exc.name or exc}); set "
                "LAKEPORT_DELTA_MODE=jvm with delta-spark jars instead."
            ) from None
        ctx.state.delta = EmbeddedDelta(ctx.spark)
    return ctx.state.delta
