"""A Spark driver with the embedded Delta connector that runs one statement (a MERGE, a REFRESH MATERIALIZED VIEW)
and stops at a point the test names, so the test can SIGKILL it there:
`python -m tests.delta.kill_child <warehouse> <flag dir> <move|commit> <statement> [<view definitions JSON file>]`
(the file: a list of `ViewDefinition.as_dict()`, the child's view store).

`move`: the first data file has been moved out of the staging directory, the rest not yet; `commit`: every file is
in place under the table root and delta-rs is about to write the commit. The process touches `<flag dir>/stopped`
and sleeps until it is killed.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any


def _stop(flags: str) -> None:
    open(os.path.join(flags, "stopped"), "w").close()
    while True:
        time.sleep(1)


def main(warehouse: str, flags: str, point: str, statement: str, views: str | None = None) -> None:
    from deltalake import DeltaTable
    from pyspark.sql import SparkSession

    from lakeport_engine.delta import EmbeddedDelta
    from lakeport_engine.delta.storage import LocalStorage

    if point == "commit":
        def stop_at_commit(*_args: Any, **_kwargs: Any) -> None:
            _stop(flags)

        DeltaTable.create_write_transaction = stop_at_commit  # type: ignore[method-assign]
    elif point == "move":
        rename = LocalStorage.rename
        moved: list[str] = []

        def stop_mid_move(self: LocalStorage, src: str, dst: str) -> None:
            if moved:
                _stop(flags)
            rename(self, src, dst)
            moved.append(dst)

        LocalStorage.rename = stop_mid_move  # type: ignore[method-assign]
    spark = (SparkSession.builder.master("local[2]").appName("lakeport-kill-child")
             .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2").getOrCreate())
    delta = EmbeddedDelta(spark)
    delta.register("lake", {"warehouse": warehouse, "default-database": "default"})
    if views is not None:
        import json

        from lakeport_engine.matviews import InMemoryViewStore, ViewDefinition

        delta.views = InMemoryViewStore()
        with open(views) as file:
            for body in json.load(file):
                delta.views.save_view(ViewDefinition.from_dict(body))
    open(os.path.join(flags, "ready"), "w").close()
    assert delta.handles(statement, current_catalog=None, current_database=None)
    delta.execute(statement, current_catalog=None, current_database=None)
    open(os.path.join(flags, "finished"), "w").close()  # the test fails if the statement got here


if __name__ == "__main__":
    main(*sys.argv[1:6])
