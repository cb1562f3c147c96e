"""The contract every catalog type implements on the Django side, and the shapes its metadata methods return.

A type's key, display name, configuration model (pydantic; the API validates with it and the UI renders its JSON
Schema) and secret fields come from its runtime definition (`lakeport_engine/catalog_types/`, shared with the Spark
side); this side adds talking to the system through a native Python client (never Spark) to test a connection
and browse databases → tables → columns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, runtime_checkable

from lakeport_engine.catalog_types.base import CatalogConfig, CatalogTypeDefinition


@dataclass(frozen=True)
class ConnectionResult:
    """Outcome of a connection test: never raises for an unreachable system; `message` carries no secret."""

    ok: bool
    message: str
    elapsed_ms: int


@dataclass(frozen=True)
class Column:
    """One column of a table as its system reports it."""

    name: str
    type: str
    nullable: bool = True
    comment: str | None = None


@dataclass(frozen=True)
class TableSummary:
    """A table in a database listing."""

    name: str
    kind: str = "table"  # table | view | external | delta …


@dataclass(frozen=True)
class TableDetail:
    """Columns and partitioning of one table; Delta adds `version` and `row_count` when known."""

    database: str
    name: str
    columns: list[Column]
    partition_columns: list[str] = field(default_factory=list)
    kind: str = "table"
    location: str | None = None
    version: int | None = None
    row_count: int | None = None
    properties: dict[str, str] = field(default_factory=dict)


class MetadataError(Exception):
    """Browsing failed in a way the user can act on (unreachable, unknown database/table, denied).

    `status` is the HTTP status the API answers with (404 for unknown objects, 502 for an unreachable
    system); the message must not contain a secret.
    """

    def __init__(self, message: str, *, status: int = 502) -> None:
        super().__init__(message)
        self.status = status


@runtime_checkable
class CatalogType(Protocol):
    """One kind of catalog (jdbc, hive, delta, …) on the Django side: its runtime definition plus browsing."""

    definition: ClassVar[CatalogTypeDefinition]

    @property
    def key(self) -> str:
        """The type key (from the definition)."""
        ...

    @property
    def display_name(self) -> str:
        """The name the API and UI show (from the definition)."""
        ...

    @property
    def config_model(self) -> type[CatalogConfig]:
        """The configuration model (from the definition)."""
        ...

    def test_connection(self, config: Any, *, timeout: float) -> ConnectionResult:
        """Connect with `config` (a validated `config_model`) within `timeout` seconds; never hang, never raise."""
        ...

    def list_databases(self, config: Any, *, timeout: float) -> list[str]:
        """Names of the databases (schemas) the catalog exposes."""
        ...

    def list_tables(self, config: Any, database: str, *, timeout: float) -> list[TableSummary]:
        """Tables of one database; an unknown database raises MetadataError(status=404)."""
        ...

    def describe_table(self, config: Any, database: str, table: str, *, timeout: float) -> TableDetail:
        """Columns, partition columns (and Delta version/row count) of one table."""
        ...


class DefinedCatalogType:
    """Key, display name and configuration model read from the type's runtime definition."""

    definition: ClassVar[CatalogTypeDefinition]

    @property
    def key(self) -> str:
        """The type key."""
        return self.definition.key

    @property
    def display_name(self) -> str:
        """The name the API and UI show."""
        return self.definition.display_name

    @property
    def config_model(self) -> type[CatalogConfig]:
        """The configuration model."""
        return self.definition.config_model
