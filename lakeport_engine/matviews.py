"""Materialized view definitions as the runtime sees them, and where it keeps them (a `ViewStore`).

The platform keeps the definitions with the team's catalogs (`catalogs.models.MaterializedView`); an engine asks
for them over its channel (`ChannelViewStore`, answered by `answer_view_question`), tests and embedding use
`InMemoryViewStore`. The view's data is a Delta table at the same name; each refresh commit to it records, in its
commitInfo, the exact source versions it reflects (`SOURCES_KEY`), so the Delta log is the truth even when the
platform's copy of the definition was not updated (a refresh killed between its commit and the store update).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol, runtime_checkable

SOURCES_KEY = "lakeport.mv.sources"  # commitInfo: JSON {"cat.db.t": version} the committed view version reflects
MODE_KEY = "lakeport.mv.refresh"  # commitInfo: "full" | "incremental"
# commitInfo of a plain statement's commit (INSERT … SELECT, CTAS, MERGE, UPDATE/DELETE with subqueries): JSON
# {"cat.db.t": version} of the other Delta tables it read; -1 for a table it read at more than one version.
READS_KEY = "lakeport.job.sources"
REFRESH_MODES = ("manual", "schedule", "on_commit")
VIEW_CATALOG_TYPES = ("delta",)  # the catalog types whose tables a materialized view can be (embedded Delta)


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
    # The next tick of its SCHEDULE CRON (ISO 8601, UTC) as the platform's store knows it; shown, never saved.
    next_refresh: str | None = None

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


class _Asker(Protocol):
    def ask(self, op: str, **data: Any) -> dict[str, Any]: ...


class ChannelViewStore:
    """The team's view definitions, asked of the platform over an engine's channel (it answers only for the
    engine's team, and saves only into that team's Delta catalogs)."""

    def __init__(self, asker: _Asker) -> None:
        self.asker = asker

    def get_view(self, catalog: str, database: str, name: str) -> ViewDefinition | None:
        """The view, or None (another team's view is None too)."""
        body = self.asker.ask("mview_get", catalog=catalog, database=database, name=name).get("view")
        return ViewDefinition.from_dict(body) if isinstance(body, dict) else None

    def list_views(self, catalog: str, database: str | None = None) -> list[ViewDefinition]:
        """The views of the catalog (and database)."""
        bodies = self.asker.ask("mview_list", catalog=catalog, database=database).get("views") or []
        return [ViewDefinition.from_dict(b) for b in bodies if isinstance(b, dict)]

    def save_view(self, definition: ViewDefinition) -> None:
        """Create or replace the definition (the platform refuses another team's or a non-Delta catalog)."""
        self.asker.ask("mview_save", view=definition.as_dict())

    def drop_view(self, catalog: str, database: str, name: str) -> None:
        """Forget the definition."""
        self.asker.ask("mview_drop", catalog=catalog, database=database, name=name)


VIEW_OPS = ("mview_get", "mview_list", "mview_save", "mview_drop")


def answer_view_question(store: ViewStore, op: str, message: Mapping[str, Any]) -> dict[str, Any]:
    """The reply fields for one of `VIEW_OPS` asked of `store` (the platform's side of `ChannelViewStore`)."""
    catalog, database, name = (str(message.get(k) or "") for k in ("catalog", "database", "name"))
    if op == "mview_get":
        found = store.get_view(catalog, database, name)
        return {"view": found.as_dict() if found is not None else None}
    if op == "mview_list":
        return {"views": [v.as_dict() for v in store.list_views(catalog, str(message["database"])
                                                                 if message.get("database") else None)]}
    if op == "mview_save":
        body = message.get("view")
        if not isinstance(body, dict):
            raise ViewStoreError("mview_save needs a view.")
        store.save_view(ViewDefinition.from_dict(body))
        return {}
    if op == "mview_drop":
        store.drop_view(catalog, database, name)
        return {}
    raise ViewStoreError(f"unknown view question {op!r}.")


@dataclass(frozen=True)
class ViewStatementText:
    """A materialized view statement seen from its tokens: the query a CREATE defines (and where it starts)."""

    verb: str  # create | refresh | alter | drop | show | describe
    query: str | None = None
    query_offset: int = -1


_QUERY_FIRST = {"select", "with", "from", "values", "table", "("}


def view_statement_text(sql: str) -> ViewStatementText | None:
    """If `sql` is a materialized view statement, its verb and (CREATE) its query: the text after the first `AS`
    outside parentheses that a query follows. The SQL guard checks that query as any statement of the team (Spark
    has no grammar for the statement itself); the Delta connector refuses a CREATE whose query it reads elsewhere."""
    from lakeport_engine.sqltext import PUNCT, WORD, SqlTextError, significant, tokenize

    try:
        tokens = significant(tokenize(sql))
    except SqlTextError:
        return None
    words = [t.lower if t.kind == WORD else "" for t in tokens[:3]]
    if len(words) < 3:
        return None
    verb = {"desc": "describe"}.get(words[0], words[0])
    if verb not in ("create", "refresh", "alter", "drop", "show", "describe"):
        return None
    if words[1:3] != (["materialized", "views"] if verb == "show" else ["materialized", "view"]):
        return None
    if verb != "create":
        return ViewStatementText(verb)
    depth = 0
    for k, tok in enumerate(tokens[3:], start=3):
        if tok.kind == PUNCT and tok.text == "(":
            depth += 1
        elif tok.kind == PUNCT and tok.text == ")":
            depth -= 1
        elif (depth == 0 and tok.kind == WORD and tok.lower == "as" and k + 1 < len(tokens)
              and tokens[k + 1].lower in _QUERY_FIRST):
            start = tokens[k + 1].start
            return ViewStatementText(verb, sql[start:].strip().rstrip(";").strip(), start)
    return ViewStatementText(verb)
