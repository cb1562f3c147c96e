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
