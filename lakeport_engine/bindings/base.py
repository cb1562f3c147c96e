"""The `CatalogBinding` contract and the per-session bookkeeping every binding shares.

A binding is one catalog type on the Spark side (the Django side has `catalogs/types/`): it knows the static
confs a session must start with, how to bind a catalog into a running session and how to undo that, and
optionally how to read one of the catalog's tables as a stream (`StreamingBinding`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

from pydantic import ValidationError

from lakeport_engine.catalog_types.base import CatalogTypeDefinition, Config, parsed, validation_problem
from lakeport_engine.datasets import CatalogInfo

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from lakeport_engine.datasets import Dataset
    from lakeport_engine.delta import EmbeddedDelta
    from lakeport_engine.iceberg.connector import EmbeddedIceberg
    from lakeport_engine.paimon.connector import EmbeddedPaimon
    from lakeport_engine.store import CatalogEntry


class BindingFailure(Exception):
    """A catalog cannot be bound (bad configuration, unreachable server, missing jars, conflicting session catalog).

    The resolver shows the message, redacted, as a CatalogBindingError; it must name no secret.
    """


def typed_config(model: type[Config], catalog: str, configuration: Mapping[str, Any]) -> Config:
    """A catalog's stored configuration as its type's model (typed access); BindingFailure naming the field when
    it does not fit (a file store's configuration was never validated by the catalog API)."""
    try:
        return parsed(model, configuration)
    except ValidationError as exc:
        raise BindingFailure(f"Catalog '{catalog}' has an invalid configuration: {validation_problem(exc)}") from None


@dataclass(frozen=True)
class SinkTarget:
    """The table a streaming query writes to: its bound catalog (`config` holds plain credentials) and columns."""

    spark: SparkSession
    catalog: str
    spark_catalog: str | None
    config: Mapping[str, Any]
    database: str
    table: str
    columns: tuple[str, ...] = ()

    @property
    def display(self) -> str:
        """`catalog.database.table`, for messages."""
        return f"{self.catalog}.{self.database}.{self.table}"


@dataclass
class Binding:
    """A catalog bound into one Spark session: what Spark calls it, which version, which confs we set.

    `embedded` marks a catalog whose statements an embedded connector (Delta, Iceberg, Paimon) runs (Spark has no catalog of
    that name); `spark_name` is None for it and for catalogs that are only read as streams.
    """

    name: str
    type: str
    fingerprint: str
    version: int
    spark_name: str | None
    configuration: dict[str, Any] = field(repr=False, default_factory=dict)
    keys: list[str] = field(default_factory=list)
    embedded: bool = False


class SessionCatalogs:
    """Per-Spark-session bookkeeping (one per `SparkSession` object): bindings, the Hive catalog, Delta."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.bindings: dict[str, Binding] = {}
        self.hive: str | None = None
        self.delta: EmbeddedDelta | None = None
        self.iceberg: EmbeddedIceberg | None = None
        self.paimon: EmbeddedPaimon | None = None
        self.stream_views = 0  # numbering of the platform's stream views (`__lp_stream_<n>`)


def register_data_source(spark: SparkSession, source: type) -> None:
    """Register a Python data source in `spark` (each session has its own registry).

    Spark refuses a name its *active* session can already look up (DATA_SOURCE_ALREADY_EXISTS), so a second
    session of the same application could not register a source the first one had: `spark` is made the
    active session first.
    """
    jvm = spark.sparkContext._jvm
    jvm.org.apache.spark.sql.SparkSession.setActiveSession(spark._jsparkSession)  # type: ignore[union-attr]
    spark.dataSource.register(source)


def session_catalogs(spark: SparkSession) -> SessionCatalogs:
    """The bookkeeping attached to `spark` (created on first use)."""
    state = getattr(spark, "_lakeport_catalogs", None)
    if state is None:
        state = SessionCatalogs()
        spark._lakeport_catalogs = state  # type: ignore[attr-defined]
    return state


@dataclass(frozen=True)
class BindContext:
    """What a binding may use while binding: the session, its bookkeeping and the resolver's settings."""

    spark: SparkSession
    state: SessionCatalogs
    connect_timeout: float
    delta_mode: str
    log: Callable[[str], None]


@runtime_checkable
class CatalogBinding(Protocol):
    """One catalog type on the Spark side, registered under its type key in `lakeport_engine.bindings.BINDINGS`."""

    definition: ClassVar[CatalogTypeDefinition]  # the type as both sides know it (lakeport_engine/catalog_types)
    key: ClassVar[str]  # the definition's key
    display_name: ClassVar[str]  # a short name for run-log messages ("Delta", "Hive")
    # The streaming sink factory, as `module:function` (the sinks live above the bindings, in
    # lakeport_engine/streaming/sinks/, and import heavy libraries only when a query writes); None: no sink.
    sink: ClassVar[str | None]

    def static_conf(self, entry: CatalogEntry, *, delta_mode: str) -> dict[str, str]:
        """Static confs a session needs before it starts to use this catalog (empty: none).

        A non-empty answer claims the session catalog; two claims in one script conflict unless
        `shares_session_catalog` says one claim serves every catalog of the type.
        """
        ...

    def shares_session_catalog(self, *, delta_mode: str) -> bool:
        """True when catalogs of this type can share one session's static confs (the first one's are used)."""
        ...

    def bind(self, ctx: BindContext, entry: CatalogEntry, old: Binding | None) -> Binding:
        """Bind `entry` into `ctx.spark` (replacing `old`, a binding of the same type); raises BindingFailure."""
        ...

    def unbind(self, ctx: BindContext, binding: Binding) -> None:
        """Undo `bind`: remove what the session holds for the catalog (confs, instances, bookkeeping)."""
        ...

    def summary(self, binding: Binding) -> str:
        """How the catalog is bound, for the run log (no secret): e.g. `jdbc postgresql at db:5432`."""
        ...

    def default_database(self, config: dict[str, Any]) -> str | None:
        """The database `USE CATALOG` switches to, if the type has one Spark should use."""
        ...

    def endpoint(self, config: dict[str, Any]) -> tuple[str, int] | None:
        """The (host, port) a failing statement's connection error may be about, or None."""
        ...

    def lineage_dataset(self, binding: Binding, database: str, table: str) -> Dataset | None:
        """`database.table` of the catalog as a lineage dataset (its physical identity, no secret), or None."""
        ...

    def lineage_catalog(self, binding: Binding) -> CatalogInfo:
        """What lineage's plan walk needs to name the catalog's tables: type and plain locations, no secret."""
        ...


@runtime_checkable
class StreamingBinding(CatalogBinding, Protocol):
    """A catalog type whose tables can be read as streams (see lakeport_engine/streaming/sources.py)."""

    def stream(self, spark: SparkSession, binding: Binding, database: str, table: str) -> DataFrame:
        """A streaming DataFrame of the table with its declared schema (event-time columns typed).

        Raises StreamSourceError (or BindingFailure) naming the table for an unknown table or a bad schema.
        """
        ...

    def sample(self, spark: SparkSession, binding: Binding, database: str, table: str, limit: int) -> DataFrame:
        """A batch DataFrame of the table's newest `limit` records (oldest first), with the declared schema."""
        ...


class PlainBinding:
    """Defaults for the optional capabilities: no static confs, no default database, no endpoint, no sink."""

    definition: ClassVar[CatalogTypeDefinition]
    key: ClassVar[str]
    display_name: ClassVar[str]
    sink: ClassVar[str | None] = None

    def static_conf(self, entry: CatalogEntry, *, delta_mode: str) -> dict[str, str]:
        """No static confs."""
        return {}

    def shares_session_catalog(self, *, delta_mode: str) -> bool:
        """Nothing to share."""
        return False

    def unbind(self, ctx: BindContext, binding: Binding) -> None:
        """Nothing held in the session."""

    def default_database(self, config: dict[str, Any]) -> str | None:
        """None: USE CATALOG leaves the database to Spark."""
        return None

    def endpoint(self, config: dict[str, Any]) -> tuple[str, int] | None:
        """No server to probe."""
        return None

    def first_endpoint(self, config: dict[str, Any]) -> tuple[str, int] | None:
        """The first server the definition reads from `config` (what a connection error is most likely about)."""
        found = self.definition.endpoints(config)
        return (found[0].host, found[0].port) if found else None

    def lineage_dataset(self, binding: Binding, database: str, table: str) -> Dataset | None:
        """No physical identity known."""
        return None

    def lineage_catalog(self, binding: Binding) -> CatalogInfo:
        """Name and type only: no location the plan walk could name a table by."""
        return CatalogInfo(binding.name, binding.type)
