"""Incremental refresh of materialized views whose query joins a fact table with a static side.

The differential test appends random rows to a fact table and, less often, to a dimension table (once it deletes
from it), and refreshes two join views after every step: each view's rows, read back with delta-rs, must equal the
query run by plain Spark over both tables as delta-rs reads them at the exact versions the refresh says it
reflects, and equal a twin always refreshed FULL. A step where only one table appended must refresh
incrementally; a step where both changed, or the dimension lost rows, must refresh in full and say why.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from deltalake import DeltaTable

from lakeport_engine.matviews import SOURCES_KEY, InMemoryViewStore
from tests.delta.conftest import Lake

pytestmark = pytest.mark.spark

QUERIES = [
    "SELECT f.id, f.amount * 2 AS doubled, d.region FROM {fact} f JOIN {dim} d ON f.cust = d.cust "
    "WHERE f.amount > 3",
    "SELECT d.region, count(*) AS n, sum(f.amount) AS total, min(f.amount) AS lo, max(f.id) AS hi "
    "FROM {fact} f INNER JOIN {dim} d ON f.cust = d.cust GROUP BY d.region",
]


@pytest.fixture
def db(lake: Lake) -> Lake:
    lake.delta.views = InMemoryViewStore()
    lake.sql("CREATE DATABASE lake.db")
    lake.sql("CREATE TABLE lake.db.fact (id BIGINT, cust BIGINT, amount BIGINT)")
    lake.sql("CREATE TABLE lake.db.dim (cust BIGINT, region STRING)")
    return lake


def _append_fact(db: Lake, rng: random.Random, start: int) -> int:
    rows = [f"({start + i}, {rng.randint(0, 7)}, {'NULL' if rng.random() < 0.1 else rng.randint(-5, 20)})"
            for i in range(rng.randint(1, 5))]
    db.sql(f"INSERT INTO lake.db.fact VALUES {', '.join(rows)}")
    return start + len(rows)


def _append_dim(db: Lake, rng: random.Random) -> None:
    rows = [f"({rng.randint(0, 7)}, {rng.choice(['NULL', repr('n'), repr('s'), repr('e')])})"
            for _ in range(rng.randint(1, 2))]  # a customer may get a second region: the join multiplies rows
    db.sql(f"INSERT INTO lake.db.dim VALUES {', '.join(rows)}")


def _oracle(db: Lake, versions: dict[str, int]) -> list[list[tuple[Any, ...]]]:
    """Each query by plain Spark over both tables as delta-rs reads them at `versions`."""
    for name, schema in (("fact", "id BIGINT, cust BIGINT, amount BIGINT"), ("dim", "cust BIGINT, region STRING")):
        data = db.arrow("db", name, versions[f"lake.db.{name}"]).to_pylist()
        db.spark.createDataFrame([tuple(r.values()) for r in data], schema).createOrReplaceTempView(f"oracle_{name}")
    return [sorted((tuple(r) for r in db.spark.sql(q.format(fact="oracle_fact", dim="oracle_dim")).collect()),
                   key=repr) for q in QUERIES]


def _rows(db: Lake, name: str) -> list[tuple[Any, ...]]:
    return sorted((tuple(r.values()) for r in DeltaTable(db.path("db", name)).to_pyarrow_table().to_pylist()),
                  key=repr)


def _reflected(db: Lake, name: str) -> dict[str, int]:
    (commit,) = DeltaTable(db.path("db", name)).history(1)
    return {k: int(v) for k, v in json.loads(commit[SOURCES_KEY]).items()}


def test_a_join_with_a_static_side_refreshes_incrementally_and_equals_a_recompute(db: Lake) -> None:
    rng = random.Random(7)
    next_id = _append_fact(db, rng, 0)
    _append_dim(db, rng)
    _append_dim(db, rng)
    for n, query in enumerate(QUERIES):
        text = query.format(fact="lake.db.fact", dim="lake.db.dim")
        db.sql(f"CREATE MATERIALIZED VIEW lake.db.mv{n} AS {text}")
    for step in ("fact", "both", "dim", "delete", "none", "fact"):
        if step in ("fact", "both"):
            next_id = _append_fact(db, rng, next_id)
        if step in ("dim", "both"):
            _append_dim(db, rng)
        if step == "delete":
            db.sql("DELETE FROM lake.db.dim WHERE cust % 3 = 0")
        latest = {"lake.db.fact": db.table("db", "fact").version(), "lake.db.dim": db.table("db", "dim").version()}
        expected = _oracle(db, latest)
        for n, query in enumerate(QUERIES):
            (answer,) = db.rows(f"REFRESH MATERIALIZED VIEW lake.db.mv{n}")
            assert _reflected(db, f"mv{n}") == latest
            assert _rows(db, f"mv{n}") == expected[n], (query, step, answer)
            mode, reason = answer[0], answer[1]
            if step in ("fact", "dim"):
                assert (mode, reason) == ("incremental", None), (query, step, answer)
            elif step == "both":
                assert mode == "full" and "more than one table of the join has commits since the last refresh (lake.db.fact, lake.db.dim)" in reason, answer
            elif step == "delete":
                assert mode == "full" and "lake.db.dim removed or rewrote rows" in reason, answer
            else:
                assert mode == "none", answer
    info = dict(db.rows("DESCRIBE MATERIALIZED VIEW lake.db.mv1"))
    assert info["incremental"].startswith("yes, when one table of the join only appended")


def test_a_self_join_that_changed_refreshes_in_full(db: Lake) -> None:
    db.sql("INSERT INTO lake.db.fact VALUES (1, 1, 5), (2, 1, 6)")
    db.sql("CREATE MATERIALIZED VIEW lake.db.pairs AS SELECT a.id AS a, b.id AS b FROM lake.db.fact a "
           "JOIN lake.db.fact b ON a.cust = b.cust")
    db.sql("INSERT INTO lake.db.fact VALUES (3, 1, 7)")
    (answer,) = db.rows("REFRESH MATERIALIZED VIEW lake.db.pairs")
    assert answer[0] == "full" and "reads lake.db.fact more than once (a self-join)" in answer[1]
    assert len(_rows(db, "pairs")) == 9
