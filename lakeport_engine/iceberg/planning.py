"""Which files a read of one Iceberg snapshot needs: its live data files, and for each the positional and equality
delete files that apply to it.

pyiceberg's manifest planner reads the manifests (partition summaries, inherited sequence numbers, positional
delete index); pyiceberg 0.12 refuses tables with equality delete files outright, so those entries are taken aside
here and matched to data files by the spec's rule (Scan Planning): an equality delete applies to a data file when
the data file's data sequence number is strictly less than the delete's, and the delete's partition spec is
unpartitioned (a global delete) or its spec and partition values equal the data file's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyiceberg.manifest import DataFile, ManifestEntry
    from pyiceberg.table import Table
    from pyiceberg.table.snapshots import Snapshot

Scope = tuple[int, tuple[object, ...]]  # (partition spec id, partition values): where a delete file applies


@dataclass(frozen=True)
class EqualityDelete:
    """One equality delete file: the columns (field ids) it matches on, its data sequence number and its scope
    (None: every data file, as its spec is unpartitioned)."""

    path: str
    field_ids: tuple[int, ...]
    sequence: int
    scope: Scope | None


@dataclass(frozen=True)
class ReadTask:
    """One live data file with its data sequence number, scope, and the delete files that apply to it."""

    data_file: DataFile
    sequence: int
    scope: Scope
    positional: tuple[str, ...]
    equality: tuple[EqualityDelete, ...]

    @property
    def path(self) -> str:
        """The data file's path as the manifest names it."""
        return str(self.data_file.file_path)


def plan_reads(table: Table, snapshot: Snapshot) -> list[ReadTask]:
    """The data files of `snapshot` with the positional and equality delete files that apply to each."""
    from pyiceberg.manifest import DataFileContent
    from pyiceberg.table import ManifestGroupPlanner

    equality_entries: list[ManifestEntry] = []
    sequences: dict[str, int] = {}

    def keep(entry: ManifestEntry) -> bool:
        # called once per live entry, in order: the equality deletes are taken aside, data sequence numbers noted
        content = entry.data_file.content
        if content == DataFileContent.EQUALITY_DELETES:
            equality_entries.append(entry)
            return False
        if content == DataFileContent.DATA:
            sequences[entry.data_file.file_path] = int(entry.sequence_number or 0)
        return True

    planner = ManifestGroupPlanner(table.metadata, table.io)
    scan_tasks = list(planner.plan_files(snapshot.manifests(table.io), keep))
    specs = table.specs()
    equality = [EqualityDelete(str(e.data_file.file_path), tuple(e.data_file.equality_ids or ()),
                               int(e.sequence_number or 0),
                               None if specs[e.data_file.spec_id].is_unpartitioned() else _scope(e.data_file))
                for e in equality_entries]
    tasks = []
    for task in scan_tasks:
        sequence = sequences[task.file.file_path]
        scope = _scope(task.file)
        applies = tuple(d for d in equality if d.sequence > sequence and (d.scope is None or d.scope == scope))
        tasks.append(ReadTask(task.file, sequence, scope, tuple(sorted(str(d.file_path) for d in task.delete_files)),
                              applies))
    return tasks


def _scope(data_file: DataFile) -> Scope:
    partition = data_file.partition
    return int(data_file.spec_id or 0), tuple(partition[i] for i in range(len(partition)))


def equality_groups(tasks: Sequence[ReadTask]) -> dict[tuple[int, ...], list[EqualityDelete]]:
    """The equality delete files of `tasks`, grouped by the columns they match on."""
    groups: dict[tuple[int, ...], dict[str, EqualityDelete]] = {}
    for task in tasks:
        for delete in task.equality:
            groups.setdefault(delete.field_ids, {})[delete.path] = delete
    return {ids: sorted(found.values(), key=lambda d: d.path) for ids, found in groups.items()}
