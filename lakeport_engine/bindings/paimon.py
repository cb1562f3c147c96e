"""paimon catalogs → the embedded Paimon connector (lakeport_engine/paimon): pypaimon splits read by Spark tasks.

There is no JVM mode: the paimon-spark runtime jars cannot be fetched on this platform. Spark has no catalog of
the name; the resolver hands the catalog's statements to the connector, as for embedded Delta catalogs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from lakeport_engine.bindings.base import BindContext, Binding, BindingFailure, PlainBinding, typed_config
from lakeport_engine.catalog_types import paimon
from lakeport_engine.catalog_types.base import CatalogTypeDefinition
from lakeport_engine.catalog_types.paimon import PaimonConfig
from lakeport_engine.datasets import Dataset, paimon_dataset

if TYPE_CHECKING:
    from lakeport_engine.paimon.connector import EmbeddedPaimon
    from lakeport_engine.store import CatalogEntry


class PaimonBindingError(BindingFailure, RuntimeError):
    """An paimon catalog cannot be bound (bad configuration, pypaimon missing)."""


class PaimonBinding(PlainBinding):
    """paimon catalogs: statements run by the embedded connector."""

    definition: ClassVar[CatalogTypeDefinition] = paimon.DEFINITION
    key: ClassVar[str] = paimon.DEFINITION.key
    display_name: ClassVar[str] = "Paimon"

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
