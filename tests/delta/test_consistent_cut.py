"""The consistent-cut chooser against a brute-force oracle, on generated pipeline histories (no Spark).

A history is simulated: base tables commit, views (over bases or other views, one or two sources each) refresh at
random moments, recording the latest versions of their sources, and some tables' oldest versions leave the log.
The oracle enumerates every combination of the read tables' retained versions, keeps those whose walks to base
tables agree, and takes the newest by the documented order; `choose_cut` must give the same cut, or fail exactly
when the oracle finds none.
"""

from __future__ import annotations

import itertools
import random

import pytest

from lakeport_engine.consistent_cut import NoConsistentCut, choose_cut

History = dict[str, dict[int, dict[str, int] | None]]


def _generate(rng: random.Random) -> tuple[History, list[str]]:
    bases = [f"b{i}" for i in range(rng.randint(1, 2))]
    views: dict[str, list[str]] = {}
    for i in range(rng.randint(1, 4)):
        upstream = bases + list(views)
        views[f"v{i}"] = sorted(rng.sample(upstream, min(len(upstream), rng.randint(1, 2))))
    history: History = {b: {0: {}} for b in bases}
    for view, sources in views.items():
        history[view] = {0: {s: max(history[s]) for s in sources}}
    for _ in range(rng.randint(3, 14)):
        table = rng.choice(bases + list(views))
        version = max(history[table]) + 1
        history[table][version] = {s: max(history[s]) for s in views[table]} if table in views else {}
    for table in history:  # log cleanup: the oldest versions of some tables are gone
        if rng.random() < 0.3:
            keep = sorted(history[table])[rng.randint(0, len(history[table]) - 1):]
            history[table] = {v: history[table][v] for v in keep}
    tables = sorted(history)
    reads = sorted(rng.sample(tables, rng.randint(1, min(4, len(tables)))))
    return history, reads


def _walk(history: History, table: str, version: int) -> dict[str, int] | None:
    """Base versions by plain recursion (the oracle's own walk)."""
    if not any(s is None or s for s in history.get(table, {}).values()):
        return {table: version}
    if version not in history[table] or history[table][version] is None:
        return None
    out: dict[str, int] = {}
    for source, v in (history[table][version] or {}).items():
        below = _walk(history, source, v)
        if below is None:
            return None
        for b, bv in below.items():
            if out.setdefault(b, bv) != bv:
                return None
    return out


def _oracle(history: History, reads: list[str]) -> dict[str, int] | None:
    best: tuple[tuple[int, ...], tuple[int, ...]] | None = None
    best_cut: dict[str, int] | None = None
    for combo in itertools.product(*(sorted(history[t]) for t in reads)):
        merged: dict[str, int] = {}
        ok = True
        for table, version in zip(reads, combo, strict=True):
            walked = _walk(history, table, version)
            if walked is None or any(merged.setdefault(b, v) != v for b, v in walked.items()):
                ok = False
                break
        if not ok:
            continue
        key = (tuple(merged[b] for b in sorted(merged)), combo)
        if best is None or key > best:
            best, best_cut = key, dict(zip(reads, combo, strict=True))
    return best_cut


@pytest.mark.parametrize("seed", range(400))
def test_choose_cut_equals_brute_force(seed: int) -> None:
    history, reads = _generate(random.Random(seed))
    expected = _oracle(history, reads)
    if expected is None:
        with pytest.raises(NoConsistentCut) as failure:
            choose_cut(history, reads)
        assert failure.value.tables and set(failure.value.tables) <= set(reads)
        assert any(t in str(failure.value) for t in failure.value.tables)
    else:
        cut = choose_cut(history, reads)
        assert cut.versions == expected, (history, reads)
        for table, version in cut.versions.items():  # and it is consistent by the oracle's own walk
            walked = _walk(history, table, version)
            assert walked is not None and all(cut.bases[b] == v for b, v in walked.items())


def test_generated_histories_cover_both_outcomes_and_lag() -> None:
    """The generator makes cuts that differ from "newest of each" and histories with no cut at all."""
    outcomes = {"none": 0, "behind": 0}
    for seed in range(400):
        history, reads = _generate(random.Random(seed))
        expected = _oracle(history, reads)
        if expected is None:
            outcomes["none"] += 1
        elif any(expected[t] != max(history[t]) for t in reads):
            outcomes["behind"] += 1
    assert outcomes["none"] >= 5 and outcomes["behind"] >= 20, outcomes


def test_seed_001_cascade() -> None:
    """Table1 ← base, Table2 ← Table1, Table3 ← Table2, refreshed at different speeds (seed 001's V11/V21/V31)."""
    history: History = {
        "base": {0: {}, 1: {}, 2: {}, 3: {}},
        "t1": {0: {"base": 0}, 1: {"base": 1}, 2: {"base": 2}, 3: {"base": 3}},  # fast
        "t2": {0: {"t1": 0}, 1: {"t1": 2}},  # slower: reflects base 2
        "t3": {0: {"t2": 0}, 1: {"t2": 1}},  # reflects t2@1 → t1@2 → base 2
    }
    cut = choose_cut(history, ["base", "t1", "t2", "t3"])
    assert cut.versions == {"base": 2, "t1": 2, "t2": 1, "t3": 1} and cut.bases == {"base": 2}
    history["t3"] = {1: {"t2": 0}}  # t3 only retains a version over base 0, the base only versions 2 and 3
    history["base"] = {2: {}, 3: {}}
    with pytest.raises(NoConsistentCut, match="base and t3") as failure:
        choose_cut(history, ["base", "t1", "t3"])
    assert failure.value.tables == ("base", "t3")
    history["t2"][1] = None  # a version that records nothing usable is never chosen
    assert choose_cut(history, ["t2"]).versions == {"t2": 0}
