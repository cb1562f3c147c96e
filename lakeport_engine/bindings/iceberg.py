"""iceberg catalogs → the embedded Iceberg connector (lakeport_engine/iceberg): pyiceberg metadata, Spark parquet.

There is no JVM mode: the iceberg-spark runtime jars cannot be fetched on this platform. Spark has no catalog of
the name; the resolver hands the catalog's statements to the connector, as for embedded Delta catalogs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from lakeport_engine.bindings.base import BindContext, Binding, BindingFailure, PlainBinding, typed_config
from lakeport_engine.catalog_types import iceberg
from lakeport_engine.catalog_types.base import CatalogTypeDefinition
from lakeport_engine.catalog_types.iceberg import IcebergConfig
from lakeport_engine.datasets import Dataset, iceberg_dataset

if TYPE_CHECKING:
    from lakeport_engine.iceberg.connector import EmbeddedIceberg
    from lakeport_engine.store import CatalogEntry


class IcebergBindingError(BindingFailure, RuntimeError):
    """An iceberg catalog cannot be bound (bad configuration, pyiceberg missing)."""


class IcebergBinding(PlainBinding):
    """iceberg catalogs: statements run by the embedded connector."""

    definition: ClassVar[CatalogTypeDefinition] = iceberg.DEFINITION
    key: ClassVar[str] = iceberg.DEFINITION.key
    display_name: ClassVar[str] = "Iceberg"

    def bind(self, ctx: BindContext, entry: CatalogEntry, old: Binding | None) -> Binding:
        """Register the catalog with the session's embedded Iceberg connector."""
        typed_config(IcebergConfig, entry.name, entry.configuration)  # a bad stored configuration fails here, named
        embedded_iceberg(ctx).register(entry.name, entry.configuration)
        return Binding(entry.name, self.key, entry.fingerprint, entry.version, None, entry.configuration,
                       embedded=True)

    def unbind(self, ctx: BindContext, binding: Binding) -> None:
        """Nothing to undo: the connector is only reached through a binding."""

    def summary(self, binding: Binding) -> str:
        """Which connector serves the catalog."""
        return f"iceberg (embedded connector) at {binding.configuration.get('warehouse')}"

    def default_database(self, config: dict[str, Any]) -> str | None:
        """The catalog's `default-namespace`."""
        return str(config.get("default-namespace") or "default")

    def lineage_dataset(self, binding: Binding, database: str, table: str) -> Dataset | None:
        """The table by its location under the warehouse."""
        from lakeport_engine.iceberg.catalog import table_location

        warehouse = str(binding.configuration.get("warehouse") or "").removeprefix("file://")
        return iceberg_dataset(binding.name, database, table, table_location(warehouse, database, table), None)


def embedded_iceberg(ctx: BindContext) -> EmbeddedIceberg:
    """The session's embedded Iceberg connector (created on first use)."""
    if ctx.state.iceberg is None:
        try:
            from lakeport_engine.iceberg.connector import (
                EmbeddedIceberg,  # pyiceberg: only when an iceberg catalog binds
            )
        except ImportError as exc:
            raise IcebergBindingError(f"The embedded Iceberg connector is not available ({exc.name or exc}).") from None
        ctx.state.iceberg = EmbeddedIceberg(ctx.spark)
    return ctx.state.iceberg
