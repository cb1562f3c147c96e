"""`history.commit_history` numbers commits truly when one lands after the table was loaded: delta-rs 1.6's
`history()` lists the log as it is now but counts the labels down from the loaded version (found by the
concurrent consistent-reads proof, tests/lineage/test_consistent_reads_concurrent.py, where it made a cut pin a
view version whose recorded sources were its successor's)."""

from __future__ import annotations

import random
from pathlib import Path

import pyarrow as pa
from deltalake import DeltaTable, write_deltalake

from lakeport_engine.delta.catalog import TableRef
from lakeport_engine.delta.history import commit_history

REF = TableRef("lake", "db", "t")


def test_versions_are_true_after_commits_that_landed_since_the_load(tmp_path: Path) -> None:
    rng = random.Random(5)
    path = str(tmp_path / "t")
    for value in range(rng.randint(2, 5)):
        write_deltalake(path, pa.table({"x": [value]}), mode="append",
                        commit_properties=None)
    stale = DeltaTable(path)
    for value in range(rng.randint(1, 4)):  # another writer commits after the load
        write_deltalake(path, pa.table({"x": [100 + value]}), mode="append")
    truth = {len(DeltaTable(path, version=v).to_pyarrow_table()): v for v in range(DeltaTable(path).version() + 1)}

    plain = stale.history()
    assert [c["version"] for c in plain][0] != DeltaTable(path).version()  # delta-rs alone mislabels them

    fixed = commit_history(stale, REF)
    latest = DeltaTable(path).version()
    assert [c["version"] for c in fixed] == list(range(latest, -1, -1))
    # each label names the commit it is: commit v appended the table's (v+1)-th row (one row per commit)
    assert [c["timestamp"] for c in fixed] == [c["timestamp"] for c in DeltaTable(path).history()]
    assert set(truth.values()) == {c["version"] for c in fixed}
    assert [c["version"] for c in commit_history(DeltaTable(path), REF, 2)] == [latest, latest - 1]
