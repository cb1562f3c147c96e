"""A run reads its own writes: every SELECT of a script sees the commits the script made before it.

The differential test runs generated scripts (tests/delta/scripts.py) through the script runner on an embedded
Delta catalog, with the run's snapshot pins on as in every run, and the same scripts on plain Spark parquet tables;
every SELECT must return the same rows. It is the test that caught a run pinning the version *before* its own
commit (deltalake's committing `DeltaTable` object still reports it), which returned stale counts without an error.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from deltalake import DeltaTable

from lakeport_engine.script import ScriptResult, ScriptRunner, json_value
from lakeport_engine.store import CatalogEntry, InMemoryCatalogStore
from tests.delta.scripts import generate, script

pytestmark = pytest.mark.spark
TEAM = "acme"


@pytest.fixture
def lake_store(tmp_path: Path) -> InMemoryCatalogStore:
    warehouse = tmp_path / "lake"
    warehouse.mkdir()
    store = InMemoryCatalogStore()
    store.put(CatalogEntry("lake", "delta", {"warehouse": str(warehouse), "default-database": "default"}))
    return store


@pytest.fixture
def reference_db(spark: Any) -> Iterator[str]:
    """A database of plain parquet tables in the session catalog, dropped afterwards."""
    name = f"ref_{uuid.uuid4().hex[:10]}"
    spark.sql(f"CREATE DATABASE {name}")
    yield name
    spark.sql(f"DROP DATABASE IF EXISTS {name} CASCADE")


def run_delta(spark: Any, store: InMemoryCatalogStore, text: str) -> ScriptResult:
    """The script as a run runs it: a new session, the resolver, the guard and the run's snapshot pins."""
    result = ScriptRunner(spark.newSession(), store, team=TEAM, snapshot={}).run(text)
    assert result.succeeded, result.error
    return result


def run_reference(spark: Any, statements: list[str]) -> list[list[list[Any]] | None]:
    """Each statement on plain Spark tables: the rows of the queries, None for the rest."""
    session = spark.newSession()
    out: list[list[list[Any]] | None] = []
    for statement in statements:
        frame = session.sql(statement)
        out.append([[json_value(v) for v in row] for row in frame.collect()] if frame.columns else None)
    return out


def multiset(rows: list[list[Any]] | None) -> list[str]:
    return sorted(repr(r) for r in rows or [])


@pytest.mark.parametrize("seed", range(8))
def test_generated_scripts_read_what_they_wrote_like_plain_spark_tables(spark: Any, lake_store: InMemoryCatalogStore,
                                                                        reference_db: str, seed: int) -> None:
    steps = generate(seed)
    delta = run_delta(spark, lake_store, "CREATE DATABASE lake.db;\n" + script(steps, "lake.db"))
    expected = run_reference(spark, [s.for_reference(reference_db) for s in steps])
    for index, step in enumerate(steps):
        if not step.query:
            continue
        got = delta.statements[index + 1].rows
        assert multiset(got) == multiset(expected[index]), (
            f"seed {seed}, statement {index + 1}: {step.for_delta('lake.db')}\n"
            f"script:\n{script(steps[:index + 1], 'lake.db')}")


def test_the_issue_script_counts_its_own_second_write(spark: Any, lake_store: InMemoryCatalogStore,
                                                       tmp_path: Path) -> None:
    result = run_delta(spark, lake_store, "CREATE DATABASE lake.shop;\n"
                       "CREATE TABLE lake.shop.ryw (id BIGINT, v STRING);\n"
                       "INSERT INTO lake.shop.ryw VALUES (1, 'a');\n"
                       "SELECT count(*) AS n FROM lake.shop.ryw;\n"
                       "INSERT INTO lake.shop.ryw VALUES (2, 'b');\n"
                       "SELECT count(*) AS n2 FROM lake.shop.ryw")
    assert [result.statements[3].rows, result.statements[5].rows] == [[[1]], [[2]]]
    # the version lineage records for each commit is the one delta-rs lists for it
    written = [o["version"] for s in result.statements if s.lineage for o in s.lineage["outputs"]]
    assert written == [1, 2]
    assert DeltaTable(str(tmp_path / "lake" / "shop" / "ryw")).version() == 2


def test_an_overwrite_reads_the_rows_its_script_just_appended(spark: Any, lake_store: InMemoryCatalogStore) -> None:
    result = run_delta(spark, lake_store, "CREATE DATABASE lake.db;\n"
                       "CREATE TABLE lake.db.t (id BIGINT);\n"
                       "CREATE TABLE lake.db.u (id BIGINT);\n"
                       "INSERT INTO lake.db.t VALUES (1), (2);\n"
                       "SELECT count(*) FROM lake.db.t;\n"
                       "INSERT INTO lake.db.t VALUES (3);\n"
                       "INSERT OVERWRITE lake.db.u SELECT id FROM lake.db.t WHERE id > 1;\n"
                       "SELECT id FROM lake.db.u")
    assert sorted(result.statements[7].rows) == [[2], [3]]


def test_a_table_dropped_and_created_again_reads_from_its_new_start(spark: Any,
                                                                     lake_store: InMemoryCatalogStore) -> None:
    result = run_delta(spark, lake_store, "CREATE DATABASE lake.db;\n"
                       "CREATE TABLE lake.db.t (id BIGINT);\n"
                       "INSERT INTO lake.db.t VALUES (1);\n"
                       "INSERT INTO lake.db.t VALUES (2);\n"
                       "SELECT count(*) FROM lake.db.t;\n"
                       "DROP TABLE lake.db.t;\n"
                       "CREATE TABLE lake.db.t (id BIGINT);\n"
                       "SELECT count(*) FROM lake.db.t;\n"
                       "INSERT INTO lake.db.t VALUES (7);\n"
                       "SELECT id FROM lake.db.t")
    assert [result.statements[i].rows for i in (4, 7, 9)] == [[[2]], [[0]], [[7]]]


def test_a_temp_view_over_a_delta_table_sees_a_later_commit(spark: Any, lake_store: InMemoryCatalogStore) -> None:
    result = run_delta(spark, lake_store, "CREATE DATABASE lake.db;\n"
                       "CREATE TABLE lake.db.t (id BIGINT);\n"
                       "INSERT INTO lake.db.t VALUES (1);\n"
                       "CREATE TEMP VIEW big AS SELECT id FROM lake.db.t WHERE id > 0;\n"
                       "SELECT count(*) FROM big;\n"
                       "INSERT INTO lake.db.t VALUES (5), (6);\n"
                       "SELECT count(*) FROM big;\n"
                       "SELECT id FROM lake.db.t VERSION AS OF 1")
    assert [result.statements[i].rows for i in (4, 6)] == [[[1]], [[3]]]
    assert result.statements[7].rows == [[1]]  # time travel still reads the version asked for


def test_an_overwrite_of_what_the_run_read_conflicts_with_a_commit_made_since(lake: Any) -> None:
    """The run's query read version 1; a commit since then added a row it never saw: replacing the table would
    silently delete that row, so the overwrite fails by name and the row stays."""
    import pyarrow as pa
    from deltalake import write_deltalake

    from lakeport_engine.delta.errors import DeltaConflictError
    from lakeport_engine.pins import SnapshotPins

    lake.sql("CREATE DATABASE lake.db")
    lake.sql("CREATE TABLE lake.db.t (id BIGINT)")
    lake.sql("INSERT INTO lake.db.t VALUES (1), (2)")
    lake.spark._lakeport_snapshot = SnapshotPins()  # as during a run: one version per table
    try:
        assert lake.rows("SELECT count(*) FROM lake.db.t") == [(2,)]
        write_deltalake(lake.path("db", "t"), pa.table({"id": pa.array([99], pa.int64())}), mode="append")
        with pytest.raises(DeltaConflictError, match="changed the data this INSERT OVERWRITE read"):
            lake.sql("INSERT OVERWRITE lake.db.t SELECT id * 10 FROM lake.db.t")
    finally:
        lake.spark._lakeport_snapshot = None
    assert sorted(r["id"] for r in lake.arrow("db", "t").to_pylist()) == [1, 2, 99]
