"""Materialized view definitions as the runtime sees them, and where it keeps them (a `ViewStore`).

The platform keeps the definitions with the team's catalogs (`catalogs.models.MaterializedView`); an engine asks
for them over its channel (`ChannelViewStore` in lakeport_engine/engine.py), tests and embedding use
`InMemoryViewStore`. The view's data is a Delta table at the same name; each refresh commit to it records, in its
commitInfo, the exact source versions it reflects (`SOURCES_KEY`), so the Delta log is the truth even when the
platform's copy of the definition was not updated (a refresh killed between its commit and the store update).
"""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol, runtime_checkable

SOURCES_KEY = "lakeport.mv.sources"  # commitInfo: JSON {"cat.db.t": version} the committed view version reflects
MODE_KEY = "lakeport.mv.refresh"  # commitInfo: "full" | "incremental"
REFRESH_MODES = ("manual", "schedule", "on_commit")


@dataclass
class ViewDefinition:
    """One materialized view: where it lives, its query (names fully qualified), how it is refreshed, its state."""

    catalog: str
    database: str
    name: str
    query: str
    refresh_mode: str = "manual"  # manual | schedule | on_commit
    schedule_cron: str | None = None
    schedule_timezone: str | None = None
    partition_by: list[str] = field(default_factory=list)
    properties: dict[str, str] = field(default_factory=dict)
    comment: str | None = None
    # Source table ("cat.db.t") → Delta version the view's data reflects (after the last refresh).
    sources: dict[str, int] = field(default_factory=dict)
    table_version: int | None = None  # the view table's Delta version written by the last refresh
    last_refresh: dict[str, Any] | None = None  # {"at", "mode", "reason", "rows", "table_version", "run"}
    state: str = "fresh"  # fresh | failed (the last refresh failed; `last_refresh["error"]` says why)

    @property
    def full_name(self) -> str:
        return f"{self.catalog}.{self.database}.{self.name}"

    def as_dict(self) -> dict[str, Any]:
        """A JSON-able copy (what crosses the engine channel)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, body: dict[str, Any]) -> ViewDefinition:
        """The definition from `as_dict()`'s shape (unknown keys are ignored)."""
        known = {k: body[k] for k in cls.__dataclass_fields__ if k in body}
        definition = cls(**known)
        definition.sources = {str(k): int(v) for k, v in (definition.sources or {}).items()}
        return definition


class ViewStoreError(RuntimeError):
    """The store of view definitions refused or failed (another team's catalog, unreachable platform)."""


@runtime_checkable
class ViewStore(Protocol):
    """The materialized view definitions of one team."""

    def get_view(self, catalog: str, database: str, name: str) -> ViewDefinition | None:
        """The view `catalog.database.name`, or None."""
        ...

    def list_views(self, catalog: str, database: str | None = None) -> list[ViewDefinition]:
        """The views of a catalog (of one database when given), sorted by database and name."""
        ...

    def save_view(self, definition: ViewDefinition) -> None:
        """Create or replace a definition."""
        ...

    def drop_view(self, catalog: str, database: str, name: str) -> None:
        """Forget a definition (no error when absent)."""
        ...


class InMemoryViewStore:
    """Definitions in a dict (tests, embedding without the platform)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._views: dict[tuple[str, str, str], dict[str, Any]] = {}

    def get_view(self, catalog: str, database: str, name: str) -> ViewDefinition | None:
        """The view, or None."""
        with self._lock:
            body = self._views.get((catalog.lower(), database.lower(), name.lower()))
        return ViewDefinition.from_dict(body) if body is not None else None

    def list_views(self, catalog: str, database: str | None = None) -> list[ViewDefinition]:
        """Views of the catalog (and database), sorted."""
        with self._lock:
            bodies = [b for (c, d, _), b in sorted(self._views.items())
                      if c == catalog.lower() and (database is None or d == database.lower())]
        return [ViewDefinition.from_dict(b) for b in bodies]

    def save_view(self, definition: ViewDefinition) -> None:
        """Create or replace (a copy is kept: callers may go on changing theirs)."""
        key = (definition.catalog.lower(), definition.database.lower(), definition.name.lower())
        with self._lock:
            self._views[key] = definition.as_dict()

    def drop_view(self, catalog: str, database: str, name: str) -> None:
        """Forget the view."""
        with self._lock:
            self._views.pop((catalog.lower(), database.lower(), name.lower()), None)


def view_store_of(store: object) -> ViewStore | None:
    """The view store a catalog store offers (`materialized_views`), or None when it keeps no views."""
    views = getattr(store, "materialized_views", None)
    return views if isinstance(views, ViewStore) else None
