"""The contract every catalog type implements, and the shapes its metadata methods return.

A type owns its configuration model (pydantic; the API validates with it and the UI renders its
JSON Schema), knows which fields are secret, and talks to its system through a native Python client
(never Spark) to test a connection and browse databases → tables → columns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, SecretStr


class CatalogConfig(BaseModel):
    """Base of every type's configuration: keys are the seed's hyphenated names; unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, str_strip_whitespace=True, frozen=True)

    def to_plain(self) -> dict[str, Any]:
        """The configuration as a JSON-ready dict with hyphenated keys and secrets in plain text."""
        return _reveal(self.model_dump(by_alias=True, exclude_none=True, mode="python"))


def _reveal(value: Any) -> Any:
    if isinstance(value, SecretStr):
        return value.get_secret_value()
    if isinstance(value, dict):
        return {k: _reveal(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_reveal(v) for v in value]
    return value


def secret_field(**kwargs: Any) -> Any:
    """A `Field` for a secret: marked in the JSON Schema as write-only so the UI renders a password input."""
    from pydantic import Field

    extra = {"secret": True, "writeOnly": True, "format": "password"}
    return Field(json_schema_extra=extra, **kwargs)


def secret_map_field(**kwargs: Any) -> Any:
    """A `Field` for a map whose values are all secret (e.g. storage credentials)."""
    from pydantic import Field

    return Field(json_schema_extra={"secret": True, "secretValues": True, "writeOnly": True}, **kwargs)


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
    """One kind of catalog (jdbc, hive, delta)."""

    key: ClassVar[str]
    display_name: ClassVar[str]
    config_model: ClassVar[type[CatalogConfig]]

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
