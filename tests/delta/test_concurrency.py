"""Concurrent writers: appends both land; an overwrite racing an append fails instead of dropping rows.

Ordering is made deterministic without timing: the source query of a write calls a Python UDF that marks
itself started and then waits for a "go" file the test creates once the competing commit has landed.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from pyspark import cloudpickle
from pyspark.sql.types import IntegerType

from lakeport_engine.delta import DeltaConflictError
from tests.delta.conftest import Lake, data_files

pytestmark = pytest.mark.spark

# The UDF below is shipped to Python workers by value (they cannot import the tests package).
cloudpickle.register_pickle_by_value(sys.modules[__name__])


@pytest.fixture
def gate(lake: Lake, tmp_path: Path) -> Iterator[Callable[[str], None]]:
    """`lp_gate(tag, value)` in SQL: returns `value` once the test calls `release(tag)`."""
    flags = tmp_path / "flags"
    flags.mkdir()
    flag_dir = str(flags)

    def lp_gate(tag: str, value: int) -> int:
        import os
        import time

        open(os.path.join(flag_dir, f"started-{tag}"), "w").close()
        waited = 0.0
        while not os.path.exists(os.path.join(flag_dir, f"go-{tag}")) and waited < 600:
            time.sleep(0.05)
            waited += 0.05
        return value

    lake.spark.udf.register("lp_gate", lp_gate, IntegerType())

    def release(tag: str) -> None:
        (flags / f"go-{tag}").touch()

    release.flags = flags  # type: ignore[attr-defined]
    yield release
    for tag in ("a", "b", "ow", "po"):
        release(tag)


class Writer(threading.Thread):
    """Runs one statement through the connector in its own thread and keeps the outcome."""

    def __init__(self, lake: Lake, statement: str) -> None:
        super().__init__(daemon=True)
        self.lake, self.statement = lake, statement
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.lake.sql(self.statement)
        except BaseException as exc:  # noqa: BLE001 — the test inspects it
            self.error = exc


def _wait_started(gate: Any, *tags: str) -> None:
    import time

    while not all((gate.flags / f"started-{t}").exists() for t in tags):
        time.sleep(0.05)


def _rows(lake: Lake) -> list[tuple[Any, ...]]:
    return sorted(tuple(r.values()) for r in lake.arrow("default", "t").to_pylist())


def _no_orphans(lake: Lake) -> None:
    """Every data file on disk was committed by some version (removed files stay until VACUUM)."""
    root = Path(lake.path("default", "t"))
    logged = "".join(p.read_text() for p in (root / "_delta_log").glob("*.json"))
    assert all(f.name in logged for f in data_files(str(root)))
    assert not [p for p in root.iterdir() if p.name.startswith("_lakeport")]


def test_two_concurrent_appends_both_commit(lake: Lake, gate: Any) -> None:
    lake.sql("CREATE TABLE lake.default.t (id INT)")
    lake.sql("INSERT INTO lake.default.t VALUES (1)")
    first = Writer(lake, "INSERT INTO lake.default.t SELECT lp_gate('a', 10)")
    second = Writer(lake, "INSERT INTO lake.default.t SELECT lp_gate('b', 20)")
    first.start()
    second.start()
    _wait_started(gate, "a", "b")  # both read version 1 and are writing their files
    gate("a")
    gate("b")
    first.join()
    second.join()
    assert first.error is None and second.error is None
    table = lake.table("default", "t")
    assert table.version() == 3
    assert _rows(lake) == [(1,), (10,), (20,)]
    assert all(h.get("readVersion") == 1 for h in table.history()[:2])
    _no_orphans(lake)


def test_overwrite_racing_a_committed_append_fails_with_conflict(lake: Lake, gate: Any) -> None:
    lake.sql("CREATE TABLE lake.default.t (id INT)")
    lake.sql("INSERT INTO lake.default.t VALUES (1), (2)")
    overwrite = Writer(lake, "INSERT OVERWRITE lake.default.t SELECT lp_gate('ow', 100)")
    overwrite.start()
    _wait_started(gate, "ow")  # the overwrite read version 1 and is writing
    lake.sql("INSERT INTO lake.default.t VALUES (3)")  # version 2 lands first
    gate("ow")
    overwrite.join()
    assert isinstance(overwrite.error, DeltaConflictError)
    assert "no committed row was lost" in str(overwrite.error)
    assert lake.table("default", "t").version() == 2
    assert _rows(lake) == [(1,), (2,), (3,)]
    assert lake.rows("SELECT * FROM lake.default.t") == [(1,), (2,), (3,)]
    _no_orphans(lake)


def test_append_racing_a_committed_overwrite_still_lands(lake: Lake, gate: Any) -> None:
    lake.sql("CREATE TABLE lake.default.t (id INT)")
    lake.sql("INSERT INTO lake.default.t VALUES (1), (2)")
    append = Writer(lake, "INSERT INTO lake.default.t SELECT lp_gate('a', 7)")
    append.start()
    _wait_started(gate, "a")
    lake.sql("INSERT OVERWRITE lake.default.t VALUES (100)")  # version 2 replaces what version 1 held
    gate("a")
    append.join()
    assert append.error is None
    assert lake.table("default", "t").version() == 3
    assert _rows(lake) == [(7,), (100,)]  # the append committed after the overwrite: its row is kept
    _no_orphans(lake)


def test_append_reading_its_own_table_conflicts_with_a_concurrent_change(lake: Lake, gate: Any) -> None:
    lake.sql("CREATE TABLE lake.default.t (id INT)")
    lake.sql("INSERT INTO lake.default.t VALUES (1), (2)")
    copy = Writer(lake, "INSERT INTO lake.default.t SELECT lp_gate('a', max(id) + 1) FROM lake.default.t")
    copy.start()
    _wait_started(gate, "a")
    lake.sql("INSERT INTO lake.default.t VALUES (50)")
    gate("a")
    copy.join()
    assert isinstance(copy.error, DeltaConflictError)
    assert _rows(lake) == [(1,), (2,), (50,)]
    _no_orphans(lake)


def test_partition_overwrite_retries_over_an_append_to_another_partition(lake: Lake, gate: Any) -> None:
    lake.sql("CREATE TABLE lake.default.t (id INT, p STRING) PARTITIONED BY (p)")
    lake.sql("INSERT INTO lake.default.t VALUES (1, 'x'), (2, 'y')")
    overwrite = Writer(lake, "INSERT OVERWRITE lake.default.t PARTITION (p = 'x') SELECT lp_gate('po', 9)")
    overwrite.start()
    _wait_started(gate, "po")
    lake.sql("INSERT INTO lake.default.t VALUES (3, 'y')")  # another partition: no conflict
    gate("po")
    overwrite.join()
    assert overwrite.error is None
    assert lake.table("default", "t").version() == 3
    assert _rows(lake) == [(2, "y"), (3, "y"), (9, "x")]
    _no_orphans(lake)


def test_partition_overwrite_racing_an_append_to_the_same_partition_fails(lake: Lake, gate: Any) -> None:
    lake.sql("CREATE TABLE lake.default.t (id INT, p STRING) PARTITIONED BY (p)")
    lake.sql("INSERT INTO lake.default.t VALUES (1, 'x'), (2, 'y')")
    overwrite = Writer(lake, "INSERT OVERWRITE lake.default.t PARTITION (p = 'x') SELECT lp_gate('po', 9)")
    overwrite.start()
    _wait_started(gate, "po")
    lake.sql("INSERT INTO lake.default.t VALUES (3, 'x')")
    gate("po")
    overwrite.join()
    assert isinstance(overwrite.error, DeltaConflictError)
    assert _rows(lake) == [(1, "x"), (2, "y"), (3, "x")]
    assert lake.table("default", "t").version() == 2
    _no_orphans(lake)


def test_connector_and_delta_rs_writers_race_safely(lake: Lake, gate: Any) -> None:
    """Another engine (delta-rs `write_deltalake`) commits while the connector is mid-write."""
    import pyarrow as pa
    from deltalake import write_deltalake

    lake.sql("CREATE TABLE lake.default.t (id INT)")
    lake.sql("INSERT INTO lake.default.t VALUES (1)")
    schema = pa.schema([("id", pa.int32())])

    append = Writer(lake, "INSERT INTO lake.default.t SELECT lp_gate('a', 2)")
    append.start()
    _wait_started(gate, "a")
    write_deltalake(lake.path("default", "t"), pa.table({"id": pa.array([3], pa.int32())}, schema=schema),
                    mode="append")
    gate("a")
    append.join()
    assert append.error is None
    assert _rows(lake) == [(1,), (2,), (3,)]

    overwrite = Writer(lake, "INSERT OVERWRITE lake.default.t SELECT lp_gate('ow', 100)")
    overwrite.start()
    _wait_started(gate, "ow")
    write_deltalake(lake.path("default", "t"), pa.table({"id": pa.array([4], pa.int32())}, schema=schema),
                    mode="append")
    gate("ow")
    overwrite.join()
    assert isinstance(overwrite.error, DeltaConflictError)
    assert _rows(lake) == [(1,), (2,), (3,), (4,)]
    assert lake.rows("SELECT * FROM lake.default.t") == [(1,), (2,), (3,), (4,)]
    _no_orphans(lake)


def test_delete_retries_over_a_concurrent_append_and_keeps_its_rows(lake: Lake, gate: Any) -> None:
    """WriteSerializable: an append committed while a DELETE runs is serialized before it; the DELETE retries on
    top of it and the appended row (which its condition would not have seen) stays."""
    import pyarrow as pa
    from deltalake import write_deltalake

    lake.sql("CREATE TABLE lake.default.t (id INT)")
    lake.sql("INSERT INTO lake.default.t VALUES (1), (2)")
    delete = Writer(lake, "DELETE FROM lake.default.t WHERE lp_gate('a', id) = 2")
    delete.start()
    _wait_started(gate, "a")  # the DELETE read version 1 and is finding its files
    write_deltalake(lake.path("default", "t"), pa.table({"id": pa.array([2], pa.int32())}), mode="append")
    gate("a")
    delete.join()
    assert delete.error is None, delete.error
    assert _rows(lake) == [(1,), (2,)]  # the DELETE removed the 2 it read; the 2 appended after it read stays
    assert lake.table("default", "t").version() == 3
    _no_orphans(lake)


def test_update_racing_a_commit_that_removed_its_files_fails_and_loses_nothing(lake: Lake, gate: Any) -> None:
    import pyarrow as pa
    from deltalake import write_deltalake

    lake.sql("CREATE TABLE lake.default.t (id INT)")
    lake.sql("INSERT INTO lake.default.t VALUES (1), (2)")
    update = Writer(lake, "UPDATE lake.default.t SET id = id + 100 WHERE lp_gate('a', id) = 2")
    update.start()
    _wait_started(gate, "a")
    write_deltalake(lake.path("default", "t"), pa.table({"id": pa.array([7], pa.int32())}), mode="overwrite")
    gate("a")
    update.join()
    assert isinstance(update.error, DeltaConflictError), update.error
    assert "removed" in str(update.error) and "lake.default.t" in str(update.error)
    assert _rows(lake) == [(7,)]  # the other writer's commit is whole; nothing of the UPDATE landed
    _no_orphans(lake)


def test_delete_racing_a_merge_that_inserted_a_matching_row_fails(lake: Lake, gate: Any) -> None:
    """A MERGE is not a blind append: the rows it inserted while a DELETE ran are rows the DELETE's condition should
    have seen (Delta's WriteSerializable: ConcurrentAppendException), so the DELETE fails instead of leaving a row its
    condition matches behind."""
    lake.sql("CREATE TABLE lake.default.t (id INT)")
    lake.sql("INSERT INTO lake.default.t VALUES (1), (2)")
    delete = Writer(lake, "DELETE FROM lake.default.t WHERE lp_gate('a', id) % 2 = 0")
    delete.start()
    _wait_started(gate, "a")
    _merge_with_delta_rs(lake, {"id": pa.array([4], pa.int32())})
    gate("a")
    delete.join()
    assert isinstance(delete.error, DeltaConflictError), delete.error
    assert "should have read" in str(delete.error) and "lake.default.t" in str(delete.error)
    assert _rows(lake) == [(1,), (2,), (4,)]
    _no_orphans(lake)


def test_partition_delete_retries_over_a_merge_into_another_partition(lake: Lake, gate: Any) -> None:
    """Rows a concurrent MERGE wrote outside the partitions a DELETE reads do not conflict with it."""
    lake.sql("CREATE TABLE lake.default.t (id INT, p STRING) PARTITIONED BY (p)")
    lake.sql("INSERT INTO lake.default.t VALUES (1, 'x'), (2, 'y')")
    delete = Writer(lake, "DELETE FROM lake.default.t WHERE p = 'x' AND lp_gate('a', id) > 0")
    delete.start()
    _wait_started(gate, "a")
    _merge_with_delta_rs(lake, {"id": pa.array([3], pa.int32()), "p": pa.array(["y"])})
    gate("a")
    delete.join()
    assert delete.error is None, delete.error
    assert _rows(lake) == [(2, "y"), (3, "y")]
    _no_orphans(lake)


def _merge_with_delta_rs(lake: Lake, columns: dict[str, Any]) -> None:
    """A concurrent MERGE (not a blind append) inserting `columns`' rows, by delta-rs: another writer of the table,
    and one that needs no Spark task slot while the gated statement holds them (a Spark MERGE here waited for the
    gate's timeout, its tasks queued behind the gated job's)."""
    from deltalake import DeltaTable

    (DeltaTable(lake.path("default", "t")).merge(pa.table(columns), predicate="t.id = s.id", source_alias="s",
                                                   target_alias="t").when_not_matched_insert_all().execute())
