"""Choosing a consistent cut of a pipeline: one version per table such that the tables agree on their common bases.

A *derived* table (a materialized view) records, for each committed version, the versions of its direct sources
that version reflects; a source may itself be derived. Following those records down to *base* tables (tables
that record no sources) gives each derived version its **base versions** `{base: version}`. A version whose walk
meets two versions of one base (a join of two views that were themselves out of step), or a version the walk
cannot follow (no recorded sources, an upstream version no longer in the log), is not usable.

A **cut** gives every read table one retained version such that any two chosen versions that reflect a common
base table reflect the same version of it (a base read directly "reflects" itself at its version). Among the
consistent cuts the chosen one is the **newest**: the one whose base versions are largest, compared base by base
in the order of the bases' names, then whose read tables' versions are largest in the order of the tables' names.
Given the base versions, each table's newest agreeing version dominates every other choice, so this is also the
cut that reads every table at its newest version consistent with those base versions.

`choose_cut` is pure (the Delta connector loads the histories from the tables' logs); `NoConsistentCut` names the
tables that disagree.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

# table → retained version → the direct source versions it reflects: {} for a base table's version, None when a
# derived table's version says nothing usable. A table missing from the history is a base table.
History = Mapping[str, Mapping[int, Mapping[str, int] | None]]


class NoConsistentCut(Exception):
    """No retained versions of the read tables agree on their common base tables; `tables` are the ones at odds."""

    def __init__(self, tables: Iterable[str], message: str) -> None:
        super().__init__(message)
        self.tables = tuple(sorted(set(tables)))


@dataclass(frozen=True)
class Cut:
    """The chosen version of every read table, and of every base table they reflect (`bases`)."""

    versions: dict[str, int]
    bases: dict[str, int]


def is_derived(history: History, table: str) -> bool:
    """Whether any retained version of `table` records sources (or records nothing usable, as a derived one can)."""
    return any(sources is None or sources for sources in history.get(table, {}).values())


def base_versions(history: History, table: str, version: int,
                  _memo: dict[tuple[str, int], dict[str, int] | None] | None = None,
                  _walking: frozenset[tuple[str, int]] = frozenset()) -> dict[str, int] | None:
    """The base versions `table` at `version` reflects, or None when they cannot be known or disagree."""
    memo = {} if _memo is None else _memo
    key = (table, version)
    if key in memo:
        return memo[key]
    if not is_derived(history, table):
        return {table: version}  # a base: its version number is meaningful even once out of the log
    sources = history[table].get(version)
    result: dict[str, int] | None = None if sources is None or key in _walking else {}
    for source, source_version in (sources or {}).items():
        if result is None:
            break
        below = base_versions(history, source, source_version, memo, _walking | {key})
        if below is None or any(result.get(b, v) != v for b, v in below.items()):
            result = None
        else:
            result.update(below)
    memo[key] = result
    return result


def _candidates(history: History, reads: list[str]) -> dict[str, list[tuple[int, dict[str, int]]]]:
    """Per read table, its usable versions newest first with their base versions (all over one set of bases)."""
    memo: dict[tuple[str, int], dict[str, int] | None] = {}
    found: dict[str, list[tuple[int, dict[str, int]]]] = {}
    for table in reads:
        usable = []
        for version in sorted(history.get(table, {}), reverse=True):
            bases = base_versions(history, table, version, memo)
            if bases is not None:
                usable.append((version, bases))
        if usable:  # versions over other bases than the newest's belong to an older definition: not used
            usable = [(v, b) for v, b in usable if b.keys() == usable[0][1].keys()]
        found[table] = usable
    return found


def _solve(candidates: Mapping[str, list[tuple[int, dict[str, int]]]]) -> Cut | None:
    """The newest consistent cut over `candidates` (see the module docstring), or None."""
    touching: dict[str, list[str]] = {}
    for table, usable in candidates.items():
        for base in usable[0][1] if usable else ():
            touching.setdefault(base, []).append(table)
    bases = sorted(touching)
    values: dict[str, list[int]] = {}
    for base in bases:
        common = set.intersection(*({b[base] for _, b in candidates[t]} for t in touching[base]))
        values[base] = sorted(common, reverse=True)

    def agrees(bases_of: dict[str, int], chosen: Mapping[str, int]) -> bool:
        return all(chosen.get(b, v) == v for b, v in bases_of.items())

    def search(i: int, chosen: dict[str, int]) -> dict[str, int] | None:
        # prune: every table must keep a version agreeing with the bases chosen so far
        if any(not any(agrees(b, chosen) for _, b in usable) for usable in candidates.values()):
            return None
        if i == len(bases):
            return dict(chosen)
        for value in values[bases[i]]:  # newest first, so the first complete assignment is the newest
            chosen[bases[i]] = value
            found = search(i + 1, chosen)
            if found is not None:
                return found
        chosen.pop(bases[i], None)
        return None

    if any(not usable for usable in candidates.values()):
        return None
    chosen = search(0, {})
    if chosen is None:
        return None
    versions = {t: next(v for v, b in usable if agrees(b, chosen)) for t, usable in candidates.items()}
    return Cut(versions, chosen)


def choose_cut(history: History, reads: Iterable[str]) -> Cut:
    """The newest consistent cut of the `reads` tables over `history`; NoConsistentCut names the tables at odds."""
    tables = sorted(set(reads))
    candidates = _candidates(history, tables)
    unusable = [t for t in tables if not candidates[t]]
    if unusable:
        raise NoConsistentCut(unusable, "no retained version of " + ", ".join(unusable) + " records the versions "
                              "of its sources down to base tables consistently")
    cut = _solve(candidates)
    if cut is not None:
        return cut
    pairs = [(a, b) for i, a in enumerate(tables) for b in tables[i + 1:]
             if _solve({a: candidates[a], b: candidates[b]}) is None]
    at_odds = sorted({t for pair in pairs for t in pair}) or tables
    detail = "; ".join(f"{a} and {b}" for a, b in pairs) or ", ".join(tables)
    raise NoConsistentCut(at_odds, "no retained versions of the tables read agree on the versions of their common "
                          f"base tables ({detail} disagree)")


__all__ = ["Cut", "History", "NoConsistentCut", "base_versions", "choose_cut", "is_derived"]
