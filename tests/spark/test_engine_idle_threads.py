"""An idle engine's JVM lets the threads of Spark's cached RPC pools end after seconds, not Spark's minute (issue 12)."""

from __future__ import annotations

from typing import Any

import pytest

from lakeport_engine.engine import (
    IDLE_POOL_THREAD_SECONDS,
    SPARK_CACHED_POOLS,
    _shorten_idle_pool_threads,
    spark_cached_pools,
)
from tests.support.servers import wait_until

pytestmark = pytest.mark.spark


def pool_threads(spark: Any) -> list[str]:
    """Names of the JVM's live block-manager pool threads."""
    threads = spark.sparkContext._jvm.java.lang.Thread.getAllStackTraces().keySet()
    return [name for name in (t.getName() for t in threads) if name.startswith("block-manager-")]


def test_the_block_manager_pools_threads_end_seconds_after_their_last_task(spark: Any) -> None:
    assert _shorten_idle_pool_threads(spark) >= 2
    seconds = spark.sparkContext._jvm.java.util.concurrent.TimeUnit.SECONDS
    pools = spark_cached_pools(spark)
    assert {name: pool.getKeepAliveTime(seconds) for name, pool in pools} == {
        name: IDLE_POOL_THREAD_SECONDS for name in SPARK_CACHED_POOLS}
    for _ in range(5):  # each destroy is a RemoveBroadcast task on both pools: a new thread each (core size 100)
        spark.sparkContext.broadcast(list(range(100))).destroy()
    # Spark's own keep-alive (60 s) would still hold them at the time this gives up.
    wait_until(lambda: not pool_threads(spark), timeout=40, what="the block-manager pool threads to end")
