"""A Delta table's commit history with true version numbers (Django- and Spark-free: the web process reads it too)."""

from __future__ import annotations

from typing import Any

from deltalake import DeltaTable

from lakeport_engine.delta.catalog import TableRef
from lakeport_engine.delta.errors import DeltaConnectorError

HISTORY_ATTEMPTS = 50


def commit_history(table: DeltaTable, ref: TableRef, limit: int | None = None) -> list[dict[str, Any]]:
    """The table's retained commitInfos, newest first, each with its true `version`; moves `table` to its latest.

    delta-rs `history()` (1.6) lists the commits in the log as it is now but numbers them counting down from the
    version the object loaded, so a commit that landed after the load shifts every label by one (and `limit` is
    not applied): a consistent cut read that way pins a view version whose recorded sources are its successor's.
    The listing is trusted only when the table's latest version is the same before and after it.
    """
    for _ in range(HISTORY_ATTEMPTS):
        table.update_incremental()
        loaded = table.version()
        entries = table.history(limit)
        table.update_incremental()
        if table.version() == loaded:
            return entries[:limit] if limit is not None else entries
    raise DeltaConnectorError(f"the Delta log of {ref} kept moving while its history was read "
                              f"({HISTORY_ATTEMPTS} commits landed during the reads); try again.")


__all__ = ["HISTORY_ATTEMPTS", "commit_history"]
