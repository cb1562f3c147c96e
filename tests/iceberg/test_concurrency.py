"""Commits racing another client (pyiceberg on the same warehouse's SQL catalog): a blind append that loses the race
is retried on the refreshed table and both land; an overwrite that loses it fails by name and commits nothing; no
row of the other client is ever lost. Real SQLite catalog, real CommitFailedException (no mocks)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from pyiceberg.io.pyarrow import _dataframe_to_data_files

from lakeport_engine.iceberg.catalog import IcebergConflictError, open_catalog
from lakeport_engine.iceberg.write import commit_append, commit_overwrite, commit_with_retries
from tests.iceberg.conftest import oracle

_SCHEMA = pa.schema([("id", pa.int64())])


def _files(table: Any, ids: list[int]) -> list[Any]:
    return list(_dataframe_to_data_files(table.metadata, pa.table({"id": ids}, schema=_SCHEMA), table.io))


@pytest.fixture
def tables(tmp_path: Path) -> tuple[Any, Any]:
    """The same table through two independent catalog clients: ours and "the other engine"."""
    (tmp_path / "wh").mkdir()
    ours = open_catalog(str(tmp_path / "wh"))
    ours.create_namespace("ns")
    ours.create_table("ns.t", schema=_SCHEMA, location=(tmp_path / "wh" / "ns" / "t").as_uri())
    other = open_catalog(str(tmp_path / "wh"))
    return ours, other


def test_a_blind_append_that_loses_the_race_is_retried_and_both_land(tables: tuple[Any, Any]) -> None:
    ours, other = tables
    stale = ours.load_table("ns.t")
    mine = _files(stale, [1, 2])
    other.load_table("ns.t").append(pa.table({"id": [100]}, schema=_SCHEMA))  # commits first
    loads = iter([stale])  # the first attempt still sees the table as it was: its commit must fail and retry

    def load() -> Any:
        return next(loads, None) or ours.load_table("ns.t")

    def apply(table: Any) -> None:
        with table.transaction() as tx:
            commit_append(tx, mine, {"lakeport.operation": "INSERT INTO"})

    committed = commit_with_retries(load, apply, name="ice.ns.t", retries=2)
    assert oracle(committed) == Counter({(1,): 1, (2,): 1, (100,): 1})
    assert len(committed.snapshots()) == 2


def test_an_overwrite_that_loses_the_race_fails_and_commits_nothing(tables: tuple[Any, Any]) -> None:
    ours, other = tables
    ours.load_table("ns.t").append(pa.table({"id": [1]}, schema=_SCHEMA))
    stale = ours.load_table("ns.t")
    other.load_table("ns.t").append(pa.table({"id": [100]}, schema=_SCHEMA))
    with pytest.raises(IcebergConflictError, match="nothing was committed"):
        commit_overwrite(stale, _files(stale, [7]), dynamic=False, name="ice.ns.t", properties={})
    assert oracle(ours.load_table("ns.t")) == Counter({(1,): 1, (100,): 1})


def test_a_schema_change_that_loses_the_race_is_rebuilt_on_the_winner_or_fails_by_name(tables: tuple[Any, Any]) -> None:
    from pyiceberg import types as it
    from pyspark.sql import types as T

    from lakeport_engine.delta.table_sql import TablePlan
    from lakeport_engine.iceberg.catalog import IcebergError
    from lakeport_engine.iceberg.evolution import schema_change

    ours, other = tables
    parse = {"BIGINT": T.LongType(), "STRING": T.StringType()}.__getitem__

    def alter(action: str, **fields: Any) -> Any:
        plan = TablePlan("alter_table", "", action=action, **fields)
        return schema_change(plan, name="ice.ns.t", parse_type=parse, properties=dict)

    def racing(stale: Any) -> Any:
        loads = iter([stale])  # the first attempt works on the table as it was before the other client's commit
        return lambda: next(loads, None) or ours.load_table("ns.t")

    stale = ours.load_table("ns.t")
    with other.load_table("ns.t").update_schema() as update:  # commits first
        update.add_column("theirs", it.StringType())
    committed = commit_with_retries(racing(stale), alter("add_columns", columns_ddl="mine STRING"), name="ice.ns.t",
                                    retries=2)
    assert [f.name for f in committed.schema().fields] == ["id", "theirs", "mine"]  # both changes kept
    stale = ours.load_table("ns.t")
    with other.load_table("ns.t").update_schema() as update:  # the other client renames the column we alter
        update.rename_column("mine", "gone")
    with pytest.raises(IcebergError, match="'mine' is not a column"):  # rebuilt on the winner: refused by name
        commit_with_retries(racing(stale), alter("column_comment", column="mine", comment="x"), name="ice.ns.t",
                            retries=2)
    assert [f.name for f in ours.load_table("ns.t").schema().fields] == ["id", "theirs", "gone"]
    # a concurrent append is no conflict for a schema change (pyiceberg checks the schema id, not the snapshot)
    stale = ours.load_table("ns.t")
    other.load_table("ns.t").append(pa.table({"id": [5], "theirs": ["t"], "gone": [None]},
                                             schema=pa.schema([("id", pa.int64()), ("theirs", pa.large_string()),
                                                               ("gone", pa.large_string())])))
    commit_with_retries(racing(stale), alter("drop_columns", keys=["gone"]), name="ice.ns.t", retries=0)
    assert oracle(ours.load_table("ns.t")) == Counter({(5, "t"): 1})  # the other's append kept
    # a schema changed under every attempt: retries run out, nothing committed, said by name
    stale = ours.load_table("ns.t")
    with other.load_table("ns.t").update_schema() as update:
        update.add_column("late", it.LongType())
    with pytest.raises(IcebergConflictError, match="nothing of this statement was committed"):
        commit_with_retries(lambda: stale, alter("drop_columns", keys=["theirs"]), name="ice.ns.t", retries=1)
    assert [f.name for f in ours.load_table("ns.t").schema().fields] == ["id", "theirs", "late"]
