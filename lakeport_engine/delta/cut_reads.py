"""`snapshot: {"consistent": true}` in the embedded Delta connector: the cut's versions, decided at first reads.

At a statement's first read of tables the run has not decided yet, their histories and those of every table they
derive from (materialized views record `lakeport.mv.sources` in each refresh commit, plain statements that read
other Delta tables `lakeport.job.sources` in theirs) are read from the Delta logs, and
`consistent_cut.choose_cut` picks the versions, with the tables decided earlier in the run held at their versions
(so a later statement stays consistent with the earlier ones). The choices are asked for in the run's pins.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from lakeport_engine.consistent_cut import History, NoConsistentCut, choose_cut
from lakeport_engine.delta.catalog import DeltaCatalog, TableRef
from lakeport_engine.delta.errors import DeltaConnectorError
from lakeport_engine.delta.history import commit_history
from lakeport_engine.delta.snapshot import open_table
from lakeport_engine.matviews import READS_KEY, SOURCES_KEY
from lakeport_engine.pins import SnapshotPins


def table_history(commits: Iterable[dict[str, Any]]) -> dict[int, dict[str, int] | None]:
    """Retained version → the source versions it reflects, from a table's commitInfos (`history.commit_history`:
    delta-rs `history()` alone mislabels versions when a commit lands while it reads).

    A table none of whose commits records sources is a base table (every version → {}). In a derived table, a
    commit that records none (OPTIMIZE, a property change, an INSERT … VALUES, a DELETE reading only the table)
    reflects what the newest earlier commit recorded; None if no retained commit before it says.
    """
    ordered = sorted(((int(c["version"]), c) for c in commits if c.get("version") is not None), key=lambda i: i[0])
    if not any(_recorded(c) for _, c in ordered):
        return {version: {} for version, _ in ordered}
    out: dict[int, dict[str, int] | None] = {}
    current: dict[str, int] | None = None
    for version, commit in ordered:
        raw = _recorded(commit)
        if raw:
            current = {str(k): int(v) for k, v in json.loads(str(raw)).items()}
        out[version] = current
    return out


def _recorded(commit: dict[str, Any]) -> Any:
    """The source versions a commit records: a view refresh's, else a plain statement's reads."""
    return commit.get(SOURCES_KEY) or commit.get(READS_KEY)


def pin_consistent_cut(pins: SnapshotPins, refs: Iterable[TableRef], *, catalog: Callable[[str], DeltaCatalog],
                       key_of: Callable[[TableRef], str], hints: Iterable[TableRef] = ()) -> None:
    """Decide the versions of `refs` not decided yet in this run as one consistent cut with those decided before;
    `hints` (the tables later statements read) join the cut when they exist already."""
    def undecided(r: TableRef) -> bool:
        return str(r) not in pins.cut and key_of(r) not in pins.written and pins.version_for(key_of(r)) is None

    fresh = [r for r in dict.fromkeys(refs) if undecided(r)]
    if not fresh:
        return
    history: dict[str, dict[int, dict[str, int] | None]] = {}
    refs_by_name: dict[str, TableRef] = {}
    for hint in dict.fromkeys(hints):
        if hint in fresh or not undecided(hint):
            continue
        try:
            history[str(hint)] = table_history(commit_history(open_table(catalog(hint.catalog), hint), hint))
        except DeltaConnectorError:
            continue  # not there yet (the script creates it) or not ours: its statement decides it
        refs_by_name[str(hint)] = hint
        fresh.append(hint)
    queue = [str(r) for r in fresh if str(r) not in history] + list(pins.cut)
    queue += [s for name in history for sources in history[name].values() for s in (sources or {})]
    while queue:  # the tables read (now and before in the run) and everything they derive from
        name = queue.pop()
        if name in history or name.count(".") != 2:
            continue
        ref = TableRef(*name.split(".", 2))
        try:
            versions = table_history(commit_history(open_table(catalog(ref.catalog), ref), ref))
        except DeltaConnectorError:
            if ref in fresh:
                raise
            continue  # an upstream table that is gone or not ours: its recorded version numbers still compare
        refs_by_name[name] = ref
        history[name] = versions
        queue.extend(s for sources in versions.values() for s in (sources or {}))
    held: History = {**history, **{name: {version: history.get(name, {}).get(version, {})}
                                   for name, version in pins.cut.items()}}
    try:
        cut = choose_cut(held, [str(r) for r in fresh] + list(pins.cut))
    except NoConsistentCut as exc:
        raise DeltaConnectorError(f'snapshot {{"consistent": true}}: {exc}.') from exc
    for name, version in {**cut.bases, **cut.versions}.items():
        pins.cut.setdefault(name, version)
        known = refs_by_name.get(name)
        if known is not None:
            pins.decide(key_of(known), version)


__all__ = ["pin_consistent_cut", "table_history"]
