"""Trigger.AvailableNow on the embedded Delta source: a run reads the versions the table had when it started, in
micro-batches of at most `max-versions-per-batch` versions, each row once, and stops; versions committed while it
runs (here from the sink of its first batch, so before Spark plans the second) are left to the next run on the same
checkpoint. The tables are real Delta tables written by delta-rs, as another writer would; Spark is real."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import deltalake
import pyarrow as pa
import pytest

from lakeport_engine.resolver import CatalogResolver
from lakeport_engine.store import CatalogEntry, InMemoryCatalogStore
from lakeport_engine.streaming.sources import stream_view
from tests.streaming import support
from tests.streaming.support import delta_table

pytestmark = pytest.mark.spark
stream_spark = support.stream_spark
session = support.session  # a child session per test

LIMIT = 2
ROWS_PER_VERSION = 2
# `n` numbers the appends (one Delta version each), `id` the rows: a batch's versions are its distinct `n`
EVENTS = pa.schema([("n", pa.int64()), ("id", pa.int64())])

Rows = list[tuple[int, int]]


class Appender:
    """Appends versions of ROWS_PER_VERSION rows to one Delta table with delta-rs; remembers each version's rows."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.numbers = itertools.count()
        self.ids = itertools.count()

    def versions(self, count: int) -> list[Rows]:
        """Commit `count` new versions; their rows, one list per version, in commit order."""
        written = []
        for _ in range(count):
            n = next(self.numbers)
            rows = [(n, next(self.ids)) for _ in range(ROWS_PER_VERSION)]
            deltalake.write_deltalake(self.path, pa.table({"n": [r[0] for r in rows], "id": [r[1] for r in rows]},
                                                          schema=EVENTS), mode="append")
            written.append(rows)
        return written


def _run(res: CatalogResolver, checkpoint: Path, on_first_batch: Callable[[], None] = lambda: None) -> list[Rows]:
    """One AvailableNow run of lake.web.events on `checkpoint`; the sorted rows of each micro-batch, in order."""
    batches: list[Rows] = []

    def sink(batch: Any, batch_id: int) -> None:
        batches.append(sorted((r.n, r.id) for r in batch.collect()))
        if len(batches) == 1:
            on_first_batch()

    query = (res.spark.table(stream_view(res, "lake", "web", "events")).writeStream.foreachBatch(sink)
             .option("checkpointLocation", str(checkpoint)).trigger(availableNow=True).start())
    query.awaitTermination()
    assert query.exception() is None
    return batches


def _batches(versions: list[Rows], limit: int | None) -> list[Rows]:
    """The micro-batches an AvailableNow run makes of `versions`: `limit` versions each, the rest last."""
    step = limit or max(len(versions), 1)
    return [sorted(r for v in versions[i:i + step] for r in v) for i in range(0, len(versions), step)]


@pytest.mark.parametrize("limit", [LIMIT, None], ids=["limited", "unlimited"])
def test_an_available_now_run_reads_the_versions_there_at_start_in_bounded_batches(
    session: Any, tmp_path: Path, limit: int | None,
) -> None:
    warehouse = tmp_path / "lake"
    table = Appender(delta_table(warehouse, "web", "events", EVENTS))
    config: dict[str, Any] = {"warehouse": str(warehouse)}
    if limit:
        config["max-versions-per-batch"] = limit
    res = CatalogResolver(session, InMemoryCatalogStore([CatalogEntry("lake", "delta", config)], team="acme"),
                          team="acme")
    checkpoint = tmp_path / "ck"

    snapshot = table.versions(2)
    new: list[Rows] = []  # 3 × LIMIT + 1 versions after the snapshot: three full batches and a partial one
    # the first run is the snapshot, one batch whatever the limit; a version its sink commits is not part of it
    first = _run(res, checkpoint, on_first_batch=lambda: new.extend(table.versions(1)))
    assert first == [sorted(r for v in snapshot for r in v)]
    assert len(new) == 1

    new += table.versions(3 * LIMIT)
    late: list[Rows] = []
    second = _run(res, checkpoint, on_first_batch=lambda: late.extend(table.versions(LIMIT + 1)))
    assert second == _batches(new, limit)  # batches of ≤ LIMIT versions, each row once, in version order
    assert len(late) == LIMIT + 1  # committed after the run started: left to the next run

    assert _run(res, checkpoint) == _batches(late, limit)  # the same checkpoint: only what the last run left
    assert _run(res, checkpoint) == []  # nothing new: the run plans no batch and stops
