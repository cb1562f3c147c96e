"""Materialized views in embedded Delta catalogs: CREATE/REFRESH/DESCRIBE/SHOW/DROP through the connector.

The differential test appends random rows to a source over several commits and refreshes views of each query
shape after every few commits; each time the view's rows (read back with delta-rs, not through the connector)
must equal the view's query run by plain Spark over the source as delta-rs reads it at the exact version the
refresh says it reflects, and an incrementally maintained view must hold the same rows as a twin view of the same
query that is always refreshed FULL.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pyarrow as pa
import pytest
from deltalake import DeltaTable

from lakeport_engine.delta.errors import DeltaConnectorError
from lakeport_engine.matviews import SOURCES_KEY, InMemoryViewStore, ViewDefinition
from tests.delta.conftest import Lake

pytestmark = pytest.mark.spark

# (query over {src}, refreshed incrementally?)
SHAPES: list[tuple[str, bool]] = [
    ("SELECT id, v, k * 10 AS k10 FROM {src} WHERE k % 3 <> 0", True),
    ("SELECT g, count(*) AS n, count(v) AS nv, sum(k) AS s, min(k) AS lo, max(v) AS hi FROM {src} "
     "WHERE id % 5 <> 1 GROUP BY g", True),
    ("SELECT count(*) AS n, sum(k) AS s FROM {src}", True),
    ("SELECT g, avg(k) AS a FROM {src} GROUP BY g", False),
    ("SELECT DISTINCT g FROM {src}", False),
]


@pytest.fixture
def db(lake: Lake) -> Lake:
    lake.delta.views = InMemoryViewStore()
    lake.sql("CREATE DATABASE lake.db")
    lake.sql("CREATE TABLE lake.db.src (id BIGINT, g STRING, k BIGINT, v STRING)")
    return lake


def _append(db: Lake, rng: random.Random, start: int) -> int:
    rows = []
    for i in range(rng.randint(0, 6)):
        g = "NULL" if rng.random() < 0.15 else repr(rng.choice("abc"))
        k = "NULL" if rng.random() < 0.1 else str(rng.randint(-20, 50))
        v = "NULL" if rng.random() < 0.2 else repr(rng.choice(["x", "y", "z"]))
        rows.append(f"({start + i}, {g}, {k}, {v})")
    if rows:
        db.sql(f"INSERT INTO lake.db.src VALUES {', '.join(rows)}")
    return start + len(rows)


def _view_rows(db: Lake, name: str) -> list[tuple[Any, ...]]:
    table = DeltaTable(db.path("db", name)).to_pyarrow_table()
    return sorted((tuple(r.values()) for r in table.to_pylist()), key=repr)


def _oracle(db: Lake, query: str, version: int) -> list[tuple[Any, ...]]:
    """The query by plain Spark over the source as delta-rs reads it at `version`."""
    data: pa.Table = db.arrow("db", "src", version)
    rows = [(r["id"], r["g"], r["k"], r["v"]) for r in data.to_pylist()]
    db.spark.createDataFrame(rows, "id BIGINT, g STRING, k BIGINT, v STRING").createOrReplaceTempView("oracle_src")
    return sorted((tuple(r) for r in db.spark.sql(query.format(src="oracle_src")).collect()), key=repr)


def _reflected(db: Lake, name: str) -> dict[str, int]:
    (commit,) = DeltaTable(db.path("db", name)).history(1)
    return {k: int(v) for k, v in json.loads(commit[SOURCES_KEY]).items()}


@pytest.mark.parametrize("seed", range(3))
def test_refresh_matches_a_recompute_at_the_versions_it_reflects(db: Lake, seed: int) -> None:
    rng = random.Random(seed)
    next_id = _append(db, rng, 0)
    for n, (query, _) in enumerate(SHAPES):
        db.sql(f"CREATE MATERIALIZED VIEW lake.db.mv{n} AS {query.format(src='lake.db.src')}")
        db.sql(f"CREATE MATERIALIZED VIEW lake.db.full{n} AS {query.format(src='lake.db.src')}")
    modes: dict[int, set[str]] = {n: set() for n in range(len(SHAPES))}
    for step in range(5):
        for _ in range(rng.randint(1, 3)):
            next_id = _append(db, rng, next_id)
        if step == 3 and seed == 0:
            db.sql("DELETE FROM lake.db.src WHERE id % 7 = 0")  # not an append: every view falls back to full
        for n, (query, _) in enumerate(SHAPES):
            (answer,) = db.rows(f"REFRESH MATERIALIZED VIEW lake.db.mv{n}")
            db.sql(f"REFRESH MATERIALIZED VIEW lake.db.full{n} FULL")
            modes[n].add(answer[0])
            version = _reflected(db, f"mv{n}")["lake.db.src"]
            assert version == db.table("db", "src").version()
            expected = _oracle(db, query, version)
            assert _view_rows(db, f"mv{n}") == expected, (query, step, answer)
            assert _view_rows(db, f"full{n}") == expected
    for n, (_, incremental) in enumerate(SHAPES):
        if incremental:
            assert "incremental" in modes[n], (SHAPES[n][0], modes[n])
        else:
            assert modes[n] <= {"full", "none"}, (SHAPES[n][0], modes[n])


def test_describe_shows_staleness_and_why_a_refresh_is_full(db: Lake) -> None:
    db.sql("INSERT INTO lake.db.src VALUES (1, 'a', 5, 'x'), (2, 'b', 6, 'y')")
    db.sql("CREATE MATERIALIZED VIEW lake.db.agg SCHEDULE CRON '*/5 * * * *' AT TIME ZONE 'Europe/Berlin' AS "
           "SELECT g, avg(k) AS a FROM lake.db.src GROUP BY g")
    info = dict(db.rows("DESCRIBE MATERIALIZED VIEW lake.db.agg"))
    assert info["stale"] == "false"
    assert info["refresh"] == "SCHEDULE CRON '*/5 * * * *' AT TIME ZONE 'Europe/Berlin'"
    assert info["incremental"].startswith("no: the column 'a'")
    db.sql("INSERT INTO lake.db.src VALUES (3, 'a', 7, 'z')")
    db.sql("INSERT INTO lake.db.src VALUES (4, 'c', 8, 'z')")
    info = dict(db.rows("DESCRIBE MATERIALIZED VIEW lake.db.agg"))
    assert info["stale"] == "true"
    assert info["source lake.db.src"] == "reflects version 1; latest 3 (2 version(s) behind)"
    (answer,) = db.rows("REFRESH MATERIALIZED VIEW lake.db.agg")
    assert answer[0] == "full" and "avg(k)" in answer[1].lower()
    assert dict(db.rows("DESCRIBE MATERIALIZED VIEW lake.db.agg"))["stale"] == "false"
    assert db.rows("SELECT g, a FROM lake.db.agg") == [("a", 6.0), ("b", 6.0), ("c", 8.0)]
    shown = db.rows("SHOW MATERIALIZED VIEWS IN lake")
    assert [(r[0], r[1], r[3]) for r in shown] == [("db", "agg", False)]
    db.sql("ALTER MATERIALIZED VIEW lake.db.agg REFRESH ON COMMIT")
    assert dict(db.rows("DESCRIBE MATERIALIZED VIEW lake.db.agg"))["refresh"] == "REFRESH ON COMMIT"
    db.sql("DROP MATERIALIZED VIEW lake.db.agg")
    assert db.rows("SHOW MATERIALIZED VIEWS IN lake.db") == []
    assert not DeltaTable.is_deltatable(db.path("db", "agg"))


def test_a_refresh_with_nothing_new_commits_nothing(db: Lake) -> None:
    db.sql("INSERT INTO lake.db.src VALUES (1, 'a', 5, 'x')")
    db.sql("CREATE MATERIALIZED VIEW lake.db.f AS SELECT id FROM lake.db.src WHERE k > 100")
    (answer,) = db.rows("REFRESH MATERIALIZED VIEW lake.db.f")
    assert answer[0] == "none"
    assert db.table("db", "f").version() == 0
    db.sql("INSERT INTO lake.db.src VALUES (2, 'a', 5, 'x')")  # filtered out: the refresh still records version 2
    (answer,) = db.rows("REFRESH MATERIALIZED VIEW lake.db.f")
    assert answer[0] == "incremental"
    assert _reflected(db, "f") == {"lake.db.src": 2}
    assert _view_rows(db, "f") == []


def test_writes_into_a_view_are_refused(db: Lake) -> None:
    db.sql("INSERT INTO lake.db.src VALUES (1, 'a', 5, 'x')")
    db.sql("CREATE MATERIALIZED VIEW lake.db.mv AS SELECT id, k FROM lake.db.src")
    for statement in ("INSERT INTO lake.db.mv VALUES (9, 9)", "DELETE FROM lake.db.mv WHERE id = 1",
                      "UPDATE lake.db.mv SET k = 0", "TRUNCATE TABLE lake.db.mv",
                      "MERGE INTO lake.db.mv t USING lake.db.src s ON t.id = s.id WHEN MATCHED THEN DELETE",
                      "DROP TABLE lake.db.mv"):
        with pytest.raises(DeltaConnectorError, match="is a materialized view; its data is written only by its "
                                                      "refresh"):
            db.sql(statement)
    assert _view_rows(db, "mv") == [(1, 5)]
    assert db.table("db", "mv").version() == 0


def test_a_refresh_whose_store_update_was_lost_is_not_applied_twice(db: Lake) -> None:
    """The view's own commit records what it reflects: a refresh killed between its commit and the platform's
    update of the definition leaves an old definition, and the next refresh must not append the rows again."""
    db.sql("INSERT INTO lake.db.src VALUES (1, 'a', 5, 'x')")
    db.sql("CREATE MATERIALIZED VIEW lake.db.mv AS SELECT id, k FROM lake.db.src")
    store = db.delta.views
    assert store is not None
    stale_definition = store.get_view("lake", "db", "mv")
    db.sql("INSERT INTO lake.db.src VALUES (2, 'b', 6, 'y')")
    db.sql("REFRESH MATERIALIZED VIEW lake.db.mv")
    assert stale_definition is not None
    store.save_view(stale_definition)  # the platform never heard of that refresh
    db.sql("INSERT INTO lake.db.src VALUES (3, 'c', 7, 'z')")
    (answer,) = db.rows("REFRESH MATERIALIZED VIEW lake.db.mv")
    assert answer[0] == "incremental"
    assert _view_rows(db, "mv") == [(1, 5), (2, 6), (3, 7)]


class _AlterDuringRefresh(InMemoryViewStore):
    """A store where another session's ALTER … REFRESH ON COMMIT lands while a refresh runs (after the refresh
    read the definition, before it saves what it did)."""

    def __init__(self) -> None:
        super().__init__()
        self.armed, self.reads = False, 0

    def get_view(self, catalog: str, database: str, name: str) -> ViewDefinition | None:
        self.reads += self.armed
        found = super().get_view(catalog, database, name)
        if found is not None and self.reads >= 2:  # any read after the refresh's first: the ALTER has committed
            found.refresh_mode, found.schedule_cron, found.schedule_timezone = "on_commit", None, None
            super().save_view(found)
            found = super().get_view(catalog, database, name)
        return found


def test_an_alter_made_while_a_refresh_runs_is_kept(db: Lake) -> None:
    lake = db
    store = lake.delta.views = _AlterDuringRefresh()
    lake.sql("INSERT INTO lake.db.src VALUES (1, 'a', 5, 'x')")
    lake.sql("CREATE MATERIALIZED VIEW lake.db.mv SCHEDULE CRON '0 * * * *' AS SELECT id, k FROM lake.db.src")
    lake.sql("INSERT INTO lake.db.src VALUES (2, 'b', 6, 'y')")
    store.armed = True
    lake.sql("REFRESH MATERIALIZED VIEW lake.db.mv")
    store.armed, store.reads = False, 0
    saved = store.get_view("lake", "db", "mv")
    assert saved is not None
    assert (saved.refresh_mode, saved.schedule_cron) == ("on_commit", None)  # the ALTER, not reverted
    assert saved.sources == {"lake.db.src": 2} and saved.last_refresh is not None  # and the refresh's record


@pytest.mark.parametrize(("statement", "message"), [
    ("CREATE MATERIALIZED VIEW lake.db.b SCHEDULE CRON '61 * * * *' AS SELECT id FROM lake.db.src",
     "is not a valid cron expression"),
    ("CREATE MATERIALIZED VIEW lake.db.b SCHEDULE CRON '* *' AS SELECT id FROM lake.db.src", "has 2 field"),
    ("CREATE MATERIALIZED VIEW lake.db.b SCHEDULE CRON '* * * * *' AT TIME ZONE 'Mars/Base' AS "
     "SELECT id FROM lake.db.src", "is not an IANA time zone"),
    ("CREATE MATERIALIZED VIEW lake.db.b AS SELECT id FROM lake.db.src VERSION AS OF 0", "VERSION/TIMESTAMP AS OF"),
    ("CREATE MATERIALIZED VIEW lake.db.b AS SELECT id, rand() AS r FROM lake.db.src", "not deterministic"),
    ("CREATE MATERIALIZED VIEW lake.db.b AS SELECT 1 AS one", "must be a SELECT over Delta tables"),
    ("CREATE MATERIALIZED VIEW lake.db.b AS SELECT s.id FROM lake.db.src s JOIN some_temp t ON s.id = t.id",
     "'some_temp', which is not a Delta table"),
    ("CREATE MATERIALIZED VIEW lake.nodb.b AS SELECT id FROM lake.db.src", "database 'nodb' does not exist"),
    ("CREATE MATERIALIZED VIEW lake.db.src AS SELECT id FROM lake.db.src", "reads the view itself"),
    ("REFRESH MATERIALIZED VIEW lake.db.src", "does not exist (it is a Delta table)"),
    ("DROP MATERIALIZED VIEW lake.db.nope", "materialized view lake.db.nope does not exist"),
    ("CREATE MATERIALIZED VIEW lake.db.b PARTITIONED BY (nope) AS SELECT id FROM lake.db.src",
     "PARTITIONED BY nope"),
])
def test_bad_statements_say_what_is_wrong(db: Lake, statement: str, message: str) -> None:
    db.spark.range(1).withColumnRenamed("id", "id").createOrReplaceTempView("some_temp")
    with pytest.raises(DeltaConnectorError, match=message.replace("(", r"\(").replace(")", r"\)")):
        db.sql(statement)
    assert not DeltaTable.is_deltatable(db.path("db", "b"))


def test_views_need_a_definition_store(lake: Lake) -> None:
    lake.sql("CREATE DATABASE lake.db")
    lake.sql("CREATE TABLE lake.db.src (id BIGINT)")
    with pytest.raises(DeltaConnectorError, match="need the platform's definition store"):
        lake.sql("CREATE MATERIALIZED VIEW lake.db.mv AS SELECT id FROM lake.db.src")


def test_a_run_creates_refreshes_and_reads_a_view_through_the_resolver_and_guard(spark: Any, tmp_path: Any) -> None:
    """A script as a run runs it (ScriptRunner: resolver, syntax check, guard, snapshot pins), with the store's
    view definitions; a view named in a catalog that is not an embedded Delta catalog is refused, never Spark's."""
    from lakeport_engine.script import ScriptRunner
    from lakeport_engine.store import CatalogEntry, InMemoryCatalogStore

    (tmp_path / "lake").mkdir()
    store = InMemoryCatalogStore([CatalogEntry("lake", "delta", {"warehouse": str(tmp_path / "lake")})])
    store.materialized_views = InMemoryViewStore()  # type: ignore[attr-defined]
    result = ScriptRunner(spark.newSession(), store, team="acme", snapshot={}).run(
        "CREATE DATABASE lake.db;\n"
        "CREATE TABLE lake.db.src (id BIGINT, k BIGINT);\n"
        "INSERT INTO lake.db.src VALUES (1, 10), (2, 20);\n"
        "CREATE MATERIALIZED VIEW lake.db.big AS SELECT id, k FROM lake.db.src WHERE k > 15;\n"
        "INSERT INTO lake.db.src VALUES (3, 30);\n"
        "REFRESH MATERIALIZED VIEW lake.db.big;\n"
        "SELECT id, k FROM lake.db.big ORDER BY id;\n"
        "DESCRIBE MATERIALIZED VIEW lake.db.big")
    assert result.succeeded, result.error
    assert result.statements[5].rows[0][:1] == ["incremental"]
    assert result.statements[6].rows == [[2, 20], [3, 30]]
    assert ["stale", "false"] in result.statements[7].rows
    refused = ScriptRunner(spark.newSession(), store, team="acme", snapshot={}).run(
        "CREATE MATERIALIZED VIEW spark_catalog.default.mv AS SELECT 1 AS one")
    assert not refused.succeeded
    assert "embedded Delta catalogs" in str(refused.error)
