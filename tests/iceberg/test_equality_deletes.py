"""Reads of tables with equality delete files (written as the spec defines them, committed with pyiceberg's manifest
writer) through the embedded connector, against pyiceberg's own scan of a twin table that received the same rows and
had the same rows deleted by pyiceberg itself (`Table.delete`, copy-on-write, of the rows the delete applies to by
the spec): rows as multisets at every snapshot.

pyiceberg 0.12 cannot scan a table with equality deletes, hence the twin. The generated history covers what the
spec's scan-planning rule decides: global deletes (an unpartitioned spec) and partition-scoped ones, a delete never
touching rows appended after it (sequence numbers), NULL matching NULL, multi-column keys, positional and equality
deletes on one file, and a key column renamed and then another dropped after the deletes that use them."""

from __future__ import annotations

import datetime as dt
import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyiceberg import types as it
from pyiceberg.expressions import In
from pyiceberg.schema import Schema

from tests.iceberg.conftest import Ice, oracle
from tests.iceberg.deletes import commit_delete_files, commit_positional_deletes, equality_delete_file

pytestmark = pytest.mark.spark

_SCHEMA = Schema(it.NestedField(1, "id", it.LongType()), it.NestedField(2, "region", it.StringType()),
                 it.NestedField(3, "key", it.IntegerType()), it.NestedField(4, "name", it.StringType()),
                 it.NestedField(5, "day", it.DateType()))
_REGIONS = ["eu", "us", "apac"]
_NAMES = ["a", "b", "c", None]


def _batch(rng: random.Random, start: int, n: int, arrow: pa.Schema) -> pa.Table:
    rows = [{"id": start + i, "region": rng.choice(_REGIONS), "key": rng.choice([*range(12), None]),
             "name": rng.choice(_NAMES), "day": dt.date(2024, 1, 1) + dt.timedelta(days=rng.randint(0, 30))}
            for i in range(n)]
    return pa.Table.from_pylist([{k: r[k] for k in arrow.names if k in r} for r in rows], schema=arrow)


def _delete_where(twin: Any, doomed: Callable[[dict[str, Any]], bool]) -> None:
    """pyiceberg deletes the twin's live rows that `doomed` picks (NULL equal to NULL, as equality deletes match),
    by their ids: pyiceberg 0.12's copy-on-write `delete` also drops rows its predicate is NULL on (`name = 'a' AND
    key = 11` took a row with name NULL and key 11), so the predicate is decided here and the ids are never NULL."""
    ids = {r["id"] for r in _live(twin) if doomed(r)}
    assert ids, "a generated delete that matches nothing tests nothing"
    twin.delete(In("id", ids))


def _live(table: Any) -> list[dict[str, Any]]:
    return table.scan().to_arrow().to_pylist()


@pytest.mark.parametrize("seed", [33])
def test_equality_deletes_read_as_pyiceberg_scans_the_same_deletes(ice: Ice, seed: int) -> None:
    rng = random.Random(seed)
    catalog = ice.catalog
    catalog.create_namespace_if_not_exists("eq")
    table = catalog.create_table("eq.events", schema=_SCHEMA, location=(ice.warehouse / "eq" / "events").as_uri())
    with table.update_spec() as spec:  # spec 0 stays unpartitioned (global deletes), data is written with spec 1
        spec.add_identity("region")
    twin = catalog.create_table("eq.twin", schema=_SCHEMA, location=(ice.warehouse / "eq" / "twin").as_uri())
    history: list[tuple[int, int]] = []

    def both(action: Any, oracle_action: Any) -> None:
        nonlocal table, twin
        action()
        oracle_action()
        table, twin = catalog.load_table("eq.events"), catalog.load_table("eq.twin")
        history.append((table.current_snapshot().snapshot_id, twin.current_snapshot().snapshot_id))

    def append(start: int, n: int) -> None:
        rows = _batch(rng, start, n, table.schema().as_arrow())
        both(lambda: table.append(rows), lambda: twin.append(rows))

    append(0, 200)
    append(200, 150)
    # a global delete (spec 0) on `key`, NULL included: every row of either append with those keys goes
    keys = [3, 7, None]
    both(lambda: commit_delete_files(table, [equality_delete_file(table, ["key"], [(k,) for k in keys], spec_id=0)]),
         lambda: _delete_where(twin, lambda r: r["key"] in keys))
    append(350, 150)  # appended after the delete: its rows with those keys stay
    assert any(r["key"] in keys for r in _live(twin))
    # a partition-scoped delete (spec 1, region = 'eu') on (name, key): equal pairs in other regions stay
    pairs = sorted({(r["name"], r["key"]) for r in _live(twin)}, key=repr)
    pairs = rng.sample(pairs, 8)
    both(lambda: commit_delete_files(table, [equality_delete_file(table, ["name", "key"], pairs, spec_id=1,
                                                                  partition=("eu",))]),
         lambda: _delete_where(twin, lambda r: r["region"] == "eu" and (r["name"], r["key"]) in pairs))
    # positional deletes on a file that equality deletes also apply to
    task = next(t for t in table.scan(snapshot_id=history[1][0]).plan_files() if t.file.partition[0] == "us")
    positions = sorted(rng.sample(range(task.file.record_count), 5))
    ids = pq.read_table(task.file.file_path.removeprefix("file://"), columns=["id"]).column("id").to_pylist()
    both(lambda: commit_positional_deletes(table, {task.file.file_path: positions}, spec_id=1, partition=("us",)),
         lambda: _delete_where(twin, lambda r: r["id"] in {ids[p] for p in positions}))
    # the key column renamed, the name column (used by the scoped delete) dropped: deletes follow the field ids
    for evolving in (table, twin):
        with evolving.update_schema() as update:
            update.rename_column("key", "bucket")
            update.delete_column("name")
    table, twin = catalog.load_table("eq.events"), catalog.load_table("eq.twin")
    append(500, 100)
    both(lambda: commit_delete_files(table, [equality_delete_file(table, ["bucket"], [(0,), (11,)], spec_id=0)]),
         lambda: _delete_where(twin, lambda r: r["bucket"] in (0, 11)))

    assert len(history) == 8
    # one Spark query per schema (six snapshots before the evolution, two after): every snapshot tagged by its index
    for group in (history[:6], history[6:]):
        union = " UNION ALL ".join(f"SELECT {i} AS at, * FROM ice.eq.events VERSION AS OF {snapshot}"
                                   for i, (snapshot, _twin) in enumerate(group))
        got = ice.rows(union)
        for i, (_snapshot, twin_snapshot) in enumerate(group):
            assert Counter({row[1:]: n for row, n in got.items() if row[0] == i}) == oracle(twin, twin_snapshot), i
    current = ice.rows("SELECT * FROM ice.eq.events")
    assert current == oracle(twin)
    assert sum(current.values()) < 600  # the deletes removed rows
    assert ice.rows("SELECT region, count(*) FROM ice.eq.events GROUP BY region") == Counter(
        (region, n) for region, n in Counter(r["region"] for r in _live(twin)).items())
