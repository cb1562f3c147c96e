"""MERGE INTO on embedded Delta tables, differential against delta-rs's own `DeltaTable.merge`.

Generated targets (partitioned or not, NULL keys and values, several files) and sources (unique keys) meet in
each clause shape; the connector's result (read back by delta-rs) must hold the same rows as delta-rs's merge
of the same source into a copy, with the same counts.
"""

from __future__ import annotations

import random
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from deltalake import DeltaTable, write_deltalake

from lakeport_engine.delta.errors import DeltaConnectorError
from tests.delta.conftest import Lake

pytestmark = pytest.mark.spark
SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string()), ("p", pa.int32())])

# (the WHEN clauses in Spark SQL, the same clauses on delta-rs's merge builder)
Builder = Callable[[Any], Any]
CASES: list[tuple[str, Builder]] = [
    ("WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *",
     lambda m: m.when_matched_update_all().when_not_matched_insert_all()),
    ("WHEN MATCHED AND s.v IS NULL THEN DELETE WHEN MATCHED THEN UPDATE SET v = s.v "
     "WHEN NOT MATCHED AND s.id > 3 THEN INSERT (id, v, p) VALUES (s.id, s.v, s.p)",
     lambda m: m.when_matched_delete("s.v IS NULL").when_matched_update({"v": "s.v"})
     .when_not_matched_insert({"id": "s.id", "v": "s.v", "p": "s.p"}, "s.id > 3")),
    ("WHEN MATCHED THEN UPDATE SET t.id = t.id + 100 WHEN NOT MATCHED BY SOURCE AND t.p = 1 THEN DELETE "
     "WHEN NOT MATCHED BY SOURCE THEN UPDATE SET v = 'gone'",
     lambda m: m.when_matched_update({"id": "t.id + 100"}).when_not_matched_by_source_delete("t.p = 1")
     .when_not_matched_by_source_update({"v": "'gone'"})),
    ("WHEN NOT MATCHED BY TARGET THEN INSERT (id) VALUES (s.id)",
     lambda m: m.when_not_matched_insert({"id": "s.id"})),
]


def _target_rows(rng: random.Random) -> list[dict[str, Any]]:
    return [{"id": None if rng.random() < 0.1 else rng.randint(0, 10), "v": rng.choice([None, "a", "b"]),
             "p": rng.choice([1, 2, None])} for _ in range(rng.randint(3, 8))]


def _source_rows(rng: random.Random, size: int) -> list[dict[str, Any]]:
    ids = rng.sample(range(0, 14), size)  # unique keys: one source row per target key
    return [{"id": i, "v": rng.choice([None, "x", "y"]), "p": rng.choice([1, 2, 3])} for i in ids]


def _rows(path: str) -> list[tuple[Any, ...]]:
    return sorted(((r["id"], r["v"], r["p"]) for r in DeltaTable(path).to_pyarrow_table().to_pylist()), key=repr)


@pytest.fixture
def db(lake: Lake) -> Lake:
    lake.sql("CREATE DATABASE lake.db")
    return lake


@pytest.mark.parametrize("seed", range(8))
def test_merge_matches_delta_rs(db: Lake, tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    clauses, build = CASES[seed % len(CASES)]
    partitioned = " PARTITIONED BY (p)" if seed % 3 == 0 else ""
    db.sql(f"CREATE TABLE lake.db.t (id BIGINT, v STRING, p INT){partitioned}")
    for _ in range(2):
        rows = ", ".join(f"({'NULL' if r['id'] is None else r['id']}, "
                         f"{'NULL' if r['v'] is None else repr(r['v'])}, {'NULL' if r['p'] is None else r['p']})"
                         for r in _target_rows(rng))
        db.sql(f"INSERT INTO lake.db.t VALUES {rows}")
    source = pa.Table.from_pylist(_source_rows(rng, 0 if seed == 7 else rng.randint(1, 6)), SCHEMA)
    write_deltalake(db.path("db", "s"), source)
    copy = tmp_path / "copy"
    shutil.copytree(db.path("db", "t"), copy)

    (counts,) = db.rows(f"MERGE INTO lake.db.t AS t USING lake.db.s AS s ON t.id = s.id {clauses}")
    metrics = build(DeltaTable(str(copy)).merge(source, "t.id = s.id", source_alias="s", target_alias="t")).execute()

    assert _rows(db.path("db", "t")) == _rows(str(copy)), f"seed {seed}: {clauses}"
    assert counts[1:] == (metrics["num_target_rows_updated"], metrics["num_target_rows_deleted"],
                          metrics["num_target_rows_inserted"])
    assert db.rows("SELECT id, v, p FROM lake.db.t") == _rows(db.path("db", "t"))


def test_a_target_row_matched_by_two_source_rows_is_an_error_and_changes_nothing(db: Lake) -> None:
    db.sql("CREATE TABLE lake.db.t (id BIGINT, v STRING)")
    db.sql("INSERT INTO lake.db.t VALUES (1, 'a'), (2, 'b')")
    db.sql("CREATE TABLE lake.db.s AS SELECT * FROM VALUES (1, 'x'), (1, 'y'), (3, 'z') AS s(id, v)")
    with pytest.raises(DeltaConnectorError, match="DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE"):
        db.sql("MERGE INTO lake.db.t t USING lake.db.s s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v")
    assert db.table("db", "t").version() == 1
    # deleting a row twice is deleting it: Delta allows an unconditional DELETE as the only matched clause
    assert db.rows("MERGE INTO lake.db.t t USING lake.db.s s ON t.id = s.id WHEN MATCHED THEN DELETE") == \
        [(1, 0, 1, 0)]
    assert sorted(r["id"] for r in db.arrow("db", "t").to_pylist()) == [2]


def test_merge_from_a_subquery_only_rewrites_files_with_matches(db: Lake) -> None:
    db.sql("CREATE TABLE lake.db.t (id BIGINT, v STRING) PARTITIONED BY (v)")
    db.sql("INSERT INTO lake.db.t VALUES (1, 'a'), (2, 'b')")
    untouched = {f["path"] for f in pa.table(db.table("db", "t").get_add_actions(flatten=True)).to_pylist()
                 if f["path"].startswith("v=a")}
    result = db.rows("MERGE INTO lake.db.t USING (SELECT 2 AS id, 'b' AS v UNION ALL SELECT 5, 'c') AS src "
                     "ON t.id = src.id WHEN MATCHED THEN UPDATE SET id = src.id * 10 "
                     "WHEN NOT MATCHED THEN INSERT *")
    assert result == [(2, 1, 0, 1)]
    table = db.table("db", "t")
    after = {f["path"] for f in pa.table(table.get_add_actions(flatten=True)).to_pylist()}
    assert untouched <= after
    assert sorted((r["id"], r["v"]) for r in table.to_pyarrow_table().to_pylist()) == [(1, "a"), (5, "c"), (20, "b")]
    entry = table.history(1)[0]
    assert (entry["lakeport.operation"], entry["lakeport.numTargetRowsUpdated"],
            entry["lakeport.numTargetRowsInserted"]) == ("MERGE", 1, 1)


@pytest.mark.parametrize(("clauses", "message"), [
    ("WHEN MATCHED THEN UPDATE SET nope = 1", "'nope' is not a column"),
    ("WHEN NOT MATCHED THEN DELETE", "WHEN NOT MATCHED can only INSERT"),
    ("WHEN MATCHED THEN UPDATE SET v = s.missing", "MERGE INTO Delta table lake.db.t"),
])
def test_bad_merges_fail_by_name_and_change_nothing(db: Lake, clauses: str, message: str) -> None:
    db.sql("CREATE TABLE lake.db.t (id BIGINT, v STRING)")
    db.sql("INSERT INTO lake.db.t VALUES (1, 'a')")
    db.sql("CREATE TABLE lake.db.s AS SELECT 1 AS id, 'x' AS v")
    with pytest.raises(DeltaConnectorError, match=message) as raised:
        db.sql(f"MERGE INTO lake.db.t t USING lake.db.s s ON t.id = s.id {clauses}")
    assert "\tat " not in str(raised.value)
    assert db.table("db", "t").version() == 1


def test_files_outside_the_source_keys_range_are_not_read(db: Lake) -> None:
    """Dynamic file pruning: the source's keys lie in [100, 300], so a file whose ids are 1..2 cannot match."""
    db.sql("CREATE TABLE lake.db.t (id BIGINT, v STRING)")
    db.sql("INSERT INTO lake.db.t VALUES (1, 'a'), (2, 'b')")
    low = {f["path"] for f in pa.table(db.table("db", "t").get_add_actions(flatten=True)).to_pylist()}
    db.sql("INSERT INTO lake.db.t VALUES (100, 'x'), (200, 'y')")
    for path in low:
        (Path(db.path("db", "t")) / path).write_bytes(b"not parquet")  # reading these would fail
    result = db.rows("MERGE INTO lake.db.t t USING (SELECT 100 AS id, 'X' AS v UNION ALL SELECT 300, 'Z') s "
                     "ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *")
    assert result == [(2, 1, 0, 1)]
    after = {f["path"] for f in pa.table(db.table("db", "t").get_add_actions(flatten=True)).to_pylist()}
    assert low <= after
