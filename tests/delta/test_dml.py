"""DELETE, UPDATE and TRUNCATE on embedded Delta tables, differential against delta-rs.

Each generated case builds one table (partitioned or not, nulls in keys and values, several files), copies it,
applies a statement through the connector (Spark plans and rewrites, delta-rs commits) and the same change
through delta-rs's own `DeltaTable.delete/update` on the copy: both tables must hold the same rows, and delta-rs
must read the table Lakeport wrote.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from deltalake import DeltaTable

from lakeport_engine.delta.errors import DeltaConnectorError
from tests.delta.conftest import Lake

pytestmark = pytest.mark.spark

# (Spark SQL condition, the same condition as delta-rs/DataFusion reads it)
CONDITIONS = [
    ("id > 5", "id > 5"),
    ("p = 2", "p = 2"),
    ("p = 1 OR p IS NULL", "p = 1 OR p IS NULL"),
    ("v IS NULL", "v IS NULL"),
    ("id % 3 = 0 AND v <> 'b'", "id % 3 = 0 AND v <> 'b'"),
    ("id IS NULL OR id < 2", "id IS NULL OR id < 2"),
    ("id > 100", "id > 100"),
]
UPDATES = [
    ({"v": "'z'"}, {"v": "'z'"}),
    ({"id": "id + 100"}, {"id": "id + 100"}),
    # `||` is NULL on a NULL side in both (DataFusion's concat() would treat NULL as '')
    ({"v": "v || '!'", "id": "coalesce(id, 0) * 2"}, {"v": "v || '!'", "id": "coalesce(id, 0) * 2"}),
]


def _make(lake: Lake, name: str, rng: random.Random, *, partitioned: bool) -> None:
    lake.sql(f"CREATE TABLE lake.db.{name} (id BIGINT, v STRING, p INT)" + (" PARTITIONED BY (p)" if partitioned
                                                                            else ""))
    for _ in range(3):  # several commits: several files, so only some are touched
        rows = []
        for _ in range(rng.randint(2, 6)):
            ident = "NULL" if rng.random() < 0.15 else str(rng.randint(0, 12))
            value = rng.choice(["NULL", "'a'", "'b'", "'c'"])
            part = "NULL" if rng.random() < 0.1 else str(rng.randint(1, 3))
            rows.append(f"({ident}, {value}, {part})")
        lake.sql(f"INSERT INTO lake.db.{name} VALUES {', '.join(rows)}")


def _rows(table: DeltaTable) -> list[tuple[Any, ...]]:
    data = table.to_pyarrow_table().to_pylist()
    return sorted(((r["id"], r["v"], r["p"]) for r in data), key=repr)


def _copy(lake: Lake, name: str, tmp_path: Path) -> Path:
    copy = tmp_path / f"rs_{name}"
    shutil.copytree(lake.path("db", name), copy)
    return copy


@pytest.fixture
def db(lake: Lake) -> Lake:
    lake.sql("CREATE DATABASE lake.db")
    return lake


@pytest.mark.parametrize("seed", range(6))
def test_delete_and_update_match_delta_rs(db: Lake, tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    name = f"t{seed}"
    _make(db, name, rng, partitioned=seed % 2 == 0)
    for step in range(4):
        copy = _copy(db, name, tmp_path / str(step))
        spark_condition, rs_condition = rng.choice(CONDITIONS)
        if rng.random() < 0.5:
            affected = db.rows(f"DELETE FROM lake.db.{name} WHERE {spark_condition}")
            metrics = DeltaTable(str(copy)).delete(rs_condition)
            expected_affected = metrics["num_deleted_rows"]
        else:
            spark_set, rs_set = rng.choice(UPDATES)
            assignments = ", ".join(f"{c} = {e}" for c, e in spark_set.items())
            affected = db.rows(f"UPDATE lake.db.{name} SET {assignments} WHERE {spark_condition}")
            metrics = DeltaTable(str(copy)).update(updates=rs_set, predicate=rs_condition)
            expected_affected = metrics["num_updated_rows"]
        ours = _rows(db.table("db", name))  # read back by delta-rs
        assert ours == _rows(DeltaTable(str(copy))), f"seed {seed} step {step}: {spark_condition}"
        assert affected == [(expected_affected,)]
        # and the connector reads what delta-rs reads
        assert db.rows(f"SELECT id, v, p FROM lake.db.{name}") == ours


def test_delete_on_partition_columns_removes_whole_files_without_reading_them(db: Lake) -> None:
    db.sql("CREATE TABLE lake.db.events (id BIGINT, day STRING) PARTITIONED BY (day)")
    db.sql("INSERT INTO lake.db.events VALUES (1, 'mon'), (2, 'tue'), (3, 'tue')")
    before = {f["path"] for f in pa.table(db.table("db", "events").get_add_actions(flatten=True)).to_pylist()}
    for path in Path(db.path("db", "events"), "day=tue").glob("*.parquet"):
        path.write_bytes(b"not parquet")  # a read of this partition's data would fail
    assert db.rows("DELETE FROM lake.db.events WHERE day = 'tue'") == [(2,)]
    table = db.table("db", "events")
    after = {f["path"] for f in pa.table(table.get_add_actions(flatten=True)).to_pylist()}
    assert after < before and all(p.startswith("day=mon") for p in after)  # nothing rewritten, tue files removed
    assert table.history(1)[0]["lakeport.operation"] == "DELETE"


def test_update_rewrites_only_the_files_that_hold_matching_rows(db: Lake) -> None:
    def paths() -> set[str]:
        return {f["path"] for f in pa.table(db.table("db", "t").get_add_actions(flatten=True)).to_pylist()}

    db.sql("CREATE TABLE lake.db.t (id BIGINT, v STRING)")
    db.sql("INSERT INTO lake.db.t VALUES (1, 'a'), (2, 'a')")
    untouched = paths()
    db.sql("INSERT INTO lake.db.t VALUES (10, 'b')")
    touched = paths() - untouched
    assert db.rows("UPDATE lake.db.t SET v = upper(v) WHERE id >= 10") == [(1,)]
    after = paths()
    assert untouched <= after and not touched & after  # files without a match are still there, untouched
    table = db.table("db", "t")
    assert _rows_of(table) == [(1, "a"), (2, "a"), (10, "B")]
    entry = table.history(1)[0]
    assert (entry["lakeport.operation"], entry["lakeport.numUpdatedRows"], entry["lakeport.numRemovedFiles"]) == \
        ("UPDATE", 1, len(touched))


def _rows_of(table: DeltaTable) -> list[tuple[Any, ...]]:
    return sorted((r["id"], r["v"]) for r in table.to_pyarrow_table().to_pylist())


def test_conditions_with_subqueries_and_aliases_read_other_delta_tables(db: Lake) -> None:
    db.sql("CREATE TABLE lake.db.t (id BIGINT, v STRING)")
    db.sql("CREATE TABLE lake.db.bad (id BIGINT)")
    db.sql("INSERT INTO lake.db.t VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    db.sql("INSERT INTO lake.db.bad VALUES (2), (3)")
    assert db.rows("DELETE FROM lake.db.t AS x WHERE x.id IN (SELECT id FROM lake.db.bad WHERE id > 2)") == [(1,)]
    assert db.rows("UPDATE lake.db.t x SET x.v = (SELECT max(id) FROM lake.db.bad) WHERE x.id = 2") == [(1,)]
    assert _rows_of(db.table("db", "t")) == [(1, "a"), (2, "3")]


def test_truncate_and_delete_without_a_condition_empty_the_table_and_keep_its_history(db: Lake) -> None:
    db.sql("CREATE TABLE lake.db.t (id BIGINT)")
    db.sql("INSERT INTO lake.db.t VALUES (1), (2)")
    db.sql("TRUNCATE TABLE lake.db.t")
    assert db.rows("SELECT count(*) FROM lake.db.t") == [(0,)]
    assert db.rows("SELECT count(*) FROM lake.db.t VERSION AS OF 1") == [(2,)]
    db.sql("INSERT INTO lake.db.t VALUES (3)")
    assert db.rows("DELETE FROM lake.db.t") == [(1,)]
    assert db.table("db", "t").to_pyarrow_table().num_rows == 0


def test_a_statement_that_matches_nothing_commits_nothing(db: Lake) -> None:
    db.sql("CREATE TABLE lake.db.t (id BIGINT)")
    db.sql("INSERT INTO lake.db.t VALUES (1)")
    assert db.rows("DELETE FROM lake.db.t WHERE id > 5") == [(0,)]
    assert db.rows("UPDATE lake.db.t SET id = 0 WHERE id IS NULL") == [(0,)]
    assert db.table("db", "t").version() == 1


@pytest.mark.parametrize(("statement", "message"), [
    ("UPDATE lake.db.t SET nope = 1", "'nope' is not a column of the table"),
    ("UPDATE lake.db.t SET id = 1, id = 2", "assigned twice"),
    ("UPDATE lake.db.t SET id = NULL WHERE id = 1", "NULL value for NOT NULL column 'id'"),
    ("DELETE FROM lake.db.t WHERE nope > 1", "DELETE on Delta table lake.db.t"),
    ("DELETE FROM lake.db.missing WHERE id = 1", "does not exist"),
])
def test_bad_statements_fail_by_name_and_change_nothing(db: Lake, statement: str, message: str) -> None:
    db.sql("CREATE TABLE lake.db.t (id BIGINT NOT NULL, v STRING)")
    db.sql("INSERT INTO lake.db.t VALUES (1, 'a')")
    with pytest.raises(Exception, match=message) as raised:
        db.rows(statement)
    assert isinstance(raised.value, DeltaConnectorError) or "Py4J" not in type(raised.value).__name__
    assert "\tat " not in str(raised.value)  # no JVM stack trace
    assert db.table("db", "t").version() == 1
    assert _rows_of(db.table("db", "t")) == [(1, "a")]


def test_a_table_with_append_only_refuses_delete_by_name(db: Lake) -> None:
    db.sql("CREATE TABLE lake.db.t (id BIGINT) TBLPROPERTIES ('delta.appendOnly' = 'true')")
    db.sql("INSERT INTO lake.db.t VALUES (1)")
    with pytest.raises(DeltaConnectorError, match="appendOnly"):
        db.sql("DELETE FROM lake.db.t WHERE id = 1")
    assert pa.Table.from_pylist([{"id": 1}]).num_rows == db.table("db", "t").to_pyarrow_table().num_rows


def test_files_the_statistics_rule_out_are_neither_read_nor_rewritten(db: Lake) -> None:
    db.sql("CREATE TABLE lake.db.t (id BIGINT, v STRING)")
    db.sql("INSERT INTO lake.db.t VALUES (1, 'a'), (2, 'b')")
    low = {f["path"] for f in pa.table(db.table("db", "t").get_add_actions(flatten=True)).to_pylist()}
    db.sql("INSERT INTO lake.db.t VALUES (100, 'x'), (200, 'y')")
    stats = pa.table(db.table("db", "t").get_add_actions(flatten=True)).to_pylist()
    assert all(f["min.id"] is not None and f["null_count.v"] == 0 for f in stats)  # written with min/max/nulls
    for path in low:
        (Path(db.path("db", "t")) / path).write_bytes(b"not parquet")  # reading these would fail
    assert db.rows("DELETE FROM lake.db.t WHERE id >= 150 AND v IS NOT NULL") == [(1,)]
    assert db.rows("UPDATE lake.db.t SET v = 'X' WHERE id IN (100, 300)") == [(1,)]
    after = {f["path"] for f in pa.table(db.table("db", "t").get_add_actions(flatten=True)).to_pylist()}
    assert low <= after
    assert sorted((r["id"], r["v"]) for r in db.spark.read.parquet(
        *[str(Path(db.path("db", "t")) / p) for p in after - low]).collect()) == [(100, "X")]
