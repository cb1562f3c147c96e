"""Deletion vectors: a table whose rows pypaimon deleted with deletion vectors (a data-evolution append table, the
kind pypaimon writes vectors for) reads through the connector as pypaimon reads it, at every snapshot, partitions
pruned and columns projected; a deletion-vector primary-key table written by another engine reads as pypaimon
reads it; writes the connector cannot make visible (deletion-vector and first-row primary-key tables, which Paimon
shows only after a lookup compaction pypaimon does not run) are refused by name and leave the table as it was."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pyarrow as pa
import pytest
from pypaimon import Schema

from lakeport_engine.paimon.catalog import PaimonError
from tests.paimon.conftest import Pai, oracle
from tests.streaming import support

pytestmark = pytest.mark.spark
spark = support.stream_spark  # no Hive: the suite's session when one runs, else a plain local one

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.int64()), ("p", pa.string())])
VECTORS = {"row-tracking.enabled": "true", "data-evolution.enabled": "true", "deletion-vectors.enabled": "true"}


def _commit(table: Any, messages: list[Any]) -> None:
    committer = table.new_batch_write_builder().new_commit()
    committer.commit(messages)
    committer.close()


def test_rows_deleted_by_deletion_vectors_stay_deleted_at_every_snapshot(pai: Pai) -> None:
    rng = random.Random(35)
    schema = Schema.from_pyarrow_schema(SCHEMA, partition_keys=["p"], options=VECTORS)
    pai.catalog.create_table("default.dv", schema, False)
    for commit in range(3):
        pai.write("default.dv", [{"id": commit * 100 + i, "v": rng.randrange(50), "p": rng.choice("xyz")}
                                 for i in range(60)])
    deletes = [("less_than", "v", 10), ("equal", "p", "y"), ("greater_than", "v", 40)]
    for operator, column, value in deletes:  # one snapshot of deletion vectors each
        table = pai.table("default.dv")
        predicate = getattr(table.new_read_builder().new_predicate_builder(), operator)(column, value)
        _commit(table, table.new_batch_write_builder().new_update().delete_by_predicate(predicate))
    table = pai.table("default.dv")
    index = pai.warehouse / "default.db" / "dv" / "index"
    assert any(index.iterdir()), "pypaimon wrote no deletion-vector index files"
    latest = table.snapshot_manager().get_latest_snapshot().id
    assert latest == 6
    for snapshot in range(1, latest + 1):
        expected = oracle(table, snapshot_id=snapshot)
        assert pai.rows(f"SELECT id, v, p FROM pai.default.dv VERSION AS OF {snapshot}") == expected, snapshot
    final = oracle(table)
    assert final and all(10 <= v <= 40 and p != "y" for _, v, p in final)
    assert sum(final.values()) < 180  # rows were deleted, not only hidden by the filter below
    assert pai.rows("SELECT id, v, p FROM pai.default.dv") == final
    assert pai.rows("SELECT id FROM pai.default.dv WHERE p = 'x'") == Counter(
        {(i,): n for (i, _v, p), n in final.items() if p == "x"})
    assert pai.rows("SELECT count(*) FROM pai.default.dv") == Counter({(sum(final.values()),): 1})


def test_a_deletion_vector_primary_key_table_reads_as_pypaimon_and_refuses_writes(pai: Pai) -> None:
    fields = [pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.int64()), pa.field("p", pa.string())]
    for name, options in (("dvpk", {"bucket": "1", "deletion-vectors.enabled": "true"}),
                          ("mor", {"bucket": "1", "deletion-vectors.enabled": "true",
                                   "deletion-vectors.merge-on-read": "true"}),
                          ("first", {"bucket": "1", "merge-engine": "first-row"})):
        pai.catalog.create_table(f"default.{name}", Schema.from_pyarrow_schema(pa.schema(fields), primary_keys=["id"],
                                                                                options=options), False)
        pai.write(f"default.{name}", [{"id": 1, "v": 1, "p": "x"}, {"id": 2, "v": 2, "p": "y"}])
        pai.write(f"default.{name}", [{"id": 1, "v": 5, "p": "x"}])
        assert pai.rows(f"SELECT * FROM pai.default.{name}") == oracle(pai.table(f"default.{name}"))
    # merge-on-read deletion vectors show level-0 files: pypaimon's read (and so the connector's) is the merged table
    assert oracle(pai.table("default.mor")) == Counter({(1, 5, "x"): 1, (2, 2, "y"): 1})
    pai.sql("INSERT INTO pai.default.mor VALUES (2, 7, 'y')")
    assert oracle(pai.table("default.mor")) == Counter({(1, 5, "x"): 1, (2, 7, "y"): 1})
    for name, what in (("dvpk", "'deletion-vectors.enabled'='true'"), ("first", "merge-engine 'first-row'")):
        before = pai.table(f"default.{name}").snapshot_manager().get_latest_snapshot().id
        with pytest.raises(PaimonError, match=f"with {what} is not supported .* lookup compaction"):
            pai.sql(f"INSERT INTO pai.default.{name} VALUES (3, 3, 'z')")
        assert pai.table(f"default.{name}").snapshot_manager().get_latest_snapshot().id == before
    with pytest.raises(PaimonError, match="merge-engine 'first-row' is not supported"):
        pai.sql("CREATE TABLE pai.default.made TBLPROPERTIES ('primary-key'='id', 'bucket'='1', "
                "'merge-engine'='first-row') AS SELECT 1L AS id, 2L AS v")
    assert pai.rows("SHOW TABLES IN pai.default LIKE 'made'") == Counter()
