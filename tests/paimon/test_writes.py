"""Writes through the embedded Paimon connector, read back by pypaimon: INSERT INTO (upserts into primary-key
tables over several commits, generated with a seed), INSERT OVERWRITE of a partition and of everything, CTAS with
primary key and buckets; a failing job commits nothing; refusals by name."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from lakeport_engine.paimon.catalog import PaimonError
from tests.paimon.conftest import Pai, oracle

pytestmark = pytest.mark.spark


def _values(rows: list[tuple[Any, ...]]) -> str:
    def lit(v: Any) -> str:
        if v is None:
            return "NULL"
        return f"'{v}'" if isinstance(v, str) else repr(v)

    return ", ".join("(" + ", ".join(lit(v) for v in row) + ")" for row in rows)


@pytest.mark.parametrize("seed", [11])
def test_upserts_into_a_primary_key_table_read_back_by_pypaimon(pai: Pai, seed: int) -> None:
    rng = random.Random(seed)
    pai.sql("CREATE TABLE pai.default.u (id BIGINT, day STRING, v INT, s STRING) PARTITIONED BY (day) "
            "TBLPROPERTIES ('primary-key'='id,day', 'bucket'='2')")
    expected: dict[tuple[Any, ...], tuple[Any, ...]] = {}
    for commit in range(3):
        batch: dict[tuple[Any, ...], tuple[Any, ...]] = {}
        for _ in range(40):
            key = (rng.randrange(30), rng.choice(["d1", "d2"]))
            batch[key] = (key[0], key[1], None if rng.random() < 0.2 else rng.randrange(1000),
                          None if rng.random() < 0.2 else f"c{commit}")
        pai.sql(f"INSERT INTO pai.default.u VALUES {_values(list(batch.values()))}")
        expected.update(batch)
        table = pai.table("default.u")
        assert oracle(table) == Counter(expected.values()), f"after commit {commit + 1}"
    table = pai.table("default.u")
    assert table.snapshot_manager().get_latest_snapshot().id == 3
    assert pai.rows("SELECT * FROM pai.default.u") == Counter(expected.values())
    assert pai.rows("SELECT * FROM pai.default.u VERSION AS OF 1") == oracle(table, 1)


def test_insert_overwrite_and_ctas(pai: Pai) -> None:
    pai.sql("CREATE TABLE pai.default.a (id INT, p STRING) PARTITIONED BY (p)")
    pai.sql("INSERT INTO pai.default.a VALUES (1, 'x'), (2, 'x'), (3, 'y'), (4, NULL)")
    pai.sql("INSERT OVERWRITE pai.default.a PARTITION (p = 'x') VALUES (10)")
    assert oracle(pai.table("default.a")) == Counter([(10, "x"), (3, "y"), (4, None)])
    pai.sql("INSERT OVERWRITE pai.default.a SELECT id + 100, p FROM pai.default.a WHERE p = 'y'")
    assert oracle(pai.table("default.a")) == Counter([(103, "y")])  # static mode: the whole table replaced
    pai.spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
    try:
        pai.sql("INSERT INTO pai.default.a VALUES (5, 'z')")
        pai.sql("INSERT OVERWRITE pai.default.a VALUES (6, 'z')")
    finally:
        pai.spark.conf.unset("spark.sql.sources.partitionOverwriteMode")
    assert oracle(pai.table("default.a")) == Counter([(103, "y"), (6, "z")])  # dynamic: only z replaced
    pai.sql("CREATE TABLE pai.default.c TBLPROPERTIES ('primary-key'='id', 'bucket'='3') AS "
            "SELECT id % 2 AS id, concat('v', id) AS s FROM range(6)")
    table = pai.table("default.c")
    assert list(table.table_schema.primary_keys) == ["id"]
    assert len(oracle(table)) == 2 and {r[0] for r in oracle(table)} == {0, 1}
    assert pai.rows("SELECT id FROM pai.default.c") == Counter([(0,), (1,)])
    history = pai.sql("DESCRIBE HISTORY pai.default.a").collect()
    assert [r["operation"] for r in history][:3] == ["INSERT OVERWRITE", "INSERT INTO", "INSERT OVERWRITE"]


def test_a_failing_job_commits_nothing(pai: Pai) -> None:
    pai.sql("CREATE TABLE pai.default.f (id INT, v INT) TBLPROPERTIES ('primary-key'='id', 'bucket'='2')")
    pai.sql("INSERT INTO pai.default.f VALUES (1, 1), (2, 2)")
    before = oracle(pai.table("default.f"))
    with pytest.raises(PaimonError, match="nothing was committed"):
        pai.sql("INSERT INTO pai.default.f SELECT id, CAST(assert_true(id < 50) AS INT) FROM range(100)")
    table = pai.table("default.f")
    assert table.snapshot_manager().get_latest_snapshot().id == 1
    assert oracle(table) == before
    with pytest.raises(PaimonError, match="no table was created"):
        pai.sql("CREATE TABLE pai.default.g AS SELECT id, CAST(assert_true(id < 5) AS INT) AS ok FROM range(10)")
    assert "g" not in pai.catalog.list_tables("default")


def test_write_refusals(pai: Pai) -> None:
    with pytest.raises(PaimonError, match="'bucket'"):
        pai.sql("CREATE TABLE pai.default.d (id INT) TBLPROPERTIES ('primary-key'='id')")
    with pytest.raises(PaimonError, match="paimon-location"):
        pai.sql("CREATE TABLE pai.default.e (id INT) TBLPROPERTIES ('data-file.external-path'='/tmp/x')")
    with pytest.raises(PaimonError, match="merge-engine"):
        pai.sql("CREATE TABLE pai.default.e (id INT) TBLPROPERTIES ('primary-key'='id', 'bucket'='1', "
                "'merge-engine'='nope')")
    pai.sql("CREATE TABLE pai.default.n (id INT, v INT NOT NULL)")
    with pytest.raises(PaimonError, match="expects 2 column"):
        pai.sql("INSERT INTO pai.default.n VALUES (1)")
    with pytest.raises(PaimonError, match="does not exist"):
        pai.sql("INSERT INTO pai.default.nope VALUES (1)")
    with pytest.raises(PaimonError, match="already exists"):
        pai.sql("CREATE TABLE pai.default.n (id INT)")
