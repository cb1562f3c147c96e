"""Errors of the Spark runtime. Messages are shown to users as they are, so they never carry a secret."""

from __future__ import annotations


class SparkRuntimeError(RuntimeError):
    """Base of the runtime's own errors; `statement` is the 0-based index of the statement concerned, if any."""

    def __init__(self, message: str, *, statement: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.statement = statement


class UnknownCatalogError(SparkRuntimeError):
    """A statement names a catalog the team does not have (another team's catalog is unknown too)."""

    def __init__(self, catalog: str, team: str, *, statement: int | None = None) -> None:
        super().__init__(f"Unknown catalog '{catalog}' for team '{team}'.", statement=statement)
        self.catalog = catalog
        self.team = team


class CatalogBindingError(SparkRuntimeError):
    """A catalog exists but cannot be bound to this Spark session (static confs, missing jars, bad config)."""
