"""Consistent snapshots: which version of each Delta table a run reads.

A run reads each Delta table at one version for the whole run: the version is pinned at the run's first read of
the table (or at the run's own commit to it), so a table another job commits to mid-run still reads the same.
A run may be asked for all its inputs `as_of` one instant, for the exact `versions` an earlier run read, or for a
`consistent` cut: versions of the tables it reads that reflect the same versions of their common base tables
(materialized views and their sources; the Delta connector chooses them with `consistent_cut.choose_cut`).
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from lakeport_engine.datasets import Dataset
from lakeport_engine.row_policy import RowPolicy, session_row_policy

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


# Statements that change rows of their target: with a row filter or masks in force they would change unseen rows.
_ROW_CHANGES = {"delete": "DELETE", "update": "UPDATE", "merge": "MERGE INTO", "truncate": "TRUNCATE"}


class _TableLike(Protocol):
    @property
    def catalog(self) -> str: ...
    @property
    def database(self) -> str: ...
    @property
    def table(self) -> str: ...


class _PlanLike(Protocol):
    """A connector's statement plan (lakeport_engine/delta/statements.py `Plan`), as far as the row policy reads it."""

    kind: str
    overwrite: bool

    @property
    def target(self) -> _TableLike | None: ...


@dataclass
class SnapshotPins:
    """The Delta versions of one run, keyed by the table's lineage identity (`Dataset.key`); `as_of` and `versions` come from the run request."""

    as_of: dt.datetime | None = None
    versions: dict[str, int] = field(default_factory=dict)  # asked for (like_run): never moved by a read
    consistent: bool = False  # choose the versions as one consistent cut of the pipeline, at the first reads
    cut: dict[str, int] = field(default_factory=dict)  # consistent: table name ("cat.db.t") → version decided
    statements: list[str] = field(default_factory=list)  # the run's statements (the first cut covers their tables)
    pinned: dict[str, int] = field(default_factory=dict)
    written: set[str] = field(default_factory=set)  # tables this run committed to or dropped
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def from_request(cls, request: Mapping[str, Any] | None) -> SnapshotPins:
        """From the run request's `snapshot`: `{"as_of": ISO 8601}` and/or `{"versions": {dataset key: version}}`,
        or `{"consistent": true}`."""
        request = request or {}
        as_of = request.get("as_of")
        when = dt.datetime.fromisoformat(str(as_of)) if as_of else None
        if when is not None and when.tzinfo is None:
            when = when.replace(tzinfo=dt.UTC)
        versions = {str(k): int(v) for k, v in dict(request.get("versions") or {}).items()}
        return cls(as_of=when, versions=versions, consistent=bool(request.get("consistent")))

    def version_for(self, table: str) -> int | None:
        """The version this run must read of `table` (its Dataset.key), if already decided (asked for, or pinned earlier)."""
        with self._lock:
            return self.pinned.get(table, self.versions.get(table))

    def pin(self, table: str, version: int, *, committed: bool = False) -> None:
        """Pin `table` at `version` on its first read; a commit of this run moves the pin to what it committed."""
        with self._lock:
            if committed or table not in self.pinned:
                self.pinned[table] = version
            if committed:
                self.written.add(table)

    def decide(self, table: str, version: int) -> None:
        """Ask for `table` (its Dataset.key) at `version` (a consistent cut's choice), unless already read or asked."""
        with self._lock:
            if table not in self.pinned and table not in self.written:
                self.versions.setdefault(table, version)

    def forget(self, table: str) -> None:
        """The run dropped `table`: nothing asked for or pinned of it applies to a table created under its name."""
        with self._lock:
            self.pinned.pop(table, None)
            self.versions.pop(table, None)
            self.written.add(table)

    def as_of_for(self, table: str) -> dt.datetime | None:
        """`as_of` for a table's first read; None once this run wrote or dropped it (it reads its own writes)."""
        with self._lock:
            return None if table in self.written else self.as_of


__all__ = ["SnapshotPins"]


class ConnectorLineage:
    """What each embedded lake connector (Delta, Iceberg, Paimon) keeps of a statement for lineage and pins: the
    snapshot views it read and the commits it made, handed over by `take_lineage()`; `pins` are the run's."""

    spark: SparkSession  # the script runner sets the run's pins on it
    views_read: dict[str, Dataset]
    writes: list[tuple[Dataset, DataFrame]]  # (the table at the version committed, the DataFrame written)

    @property
    def pins(self) -> SnapshotPins:
        """The run's pinned snapshots (set on the session by the script runner while a run runs; else none kept)."""
        pins = getattr(self.spark, "_lakeport_snapshot", None)
        return pins if pins is not None else SnapshotPins()

    @property
    def row_policy(self) -> RowPolicy:
        """The request's row filters and column masks (set on the session by the script runner; else none)."""
        return session_row_policy(self.spark)

    def protected(self, frame: DataFrame, ref: _TableLike) -> DataFrame:
        """`frame`, a read of table `ref`, with the table's row filter and column masks applied (docs/access.md)."""
        return self.row_policy.protect(frame, (ref.catalog, ref.database, ref.table))

    def refuse_row_policy(self, plan: _PlanLike) -> None:
        """What a table's row filter or column masks cannot be kept for is refused by name (docs/access.md): a
        change of its rows, its history and RESTORE (unless the caller may see the policy), a materialized view."""
        rows = self.row_policy
        if not rows:
            return
        if plan.target is not None:
            target = (plan.target.catalog, plan.target.database, plan.target.table)
            verb = _ROW_CHANGES.get(plan.kind) or ("INSERT OVERWRITE" if plan.kind == "insert" and plan.overwrite
                                                  else None)
            if verb is not None:
                rows.refuse(target, verb)
            if plan.kind in ("history", "restore"):
                rows.refuse_hidden(target, "DESCRIBE HISTORY" if plan.kind == "history" else "RESTORE")
        if plan.kind == "create_mv":
            for reference in getattr(plan, "query_references", None) or []:
                rows.refuse((reference.ref.catalog, reference.ref.database, reference.ref.table),
                            "a materialized view over a read")

    def take_lineage(self) -> tuple[dict[str, Dataset], list[tuple[Dataset, DataFrame]]]:
        """The snapshot views read and the commits made since the last call (then forgotten)."""
        views, writes = self.views_read, self.writes
        self.views_read, self.writes = {}, []
        return views, writes
