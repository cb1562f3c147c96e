"""A Lakeport write into a Paimon table, in its own process, slowed down so a test can kill -9 it mid-job.

Usage: python -m tests.paimon.killed_writer <warehouse>. Prints `writing` once the job has started; its tasks
write their data files (the first quickly, the others after a sleep) and the driver would then commit once.
"""

from __future__ import annotations

import sys
import time

from pyspark.sql import SparkSession
from pyspark.sql.types import LongType

from lakeport_engine.paimon.connector import EmbeddedPaimon


def _slow(value: int) -> int:
    if value >= 1000:  # all but the first task's rows: the job stays between files written and the commit
        time.sleep(0.05)
    return value


def main(warehouse: str) -> None:
    spark = (SparkSession.builder.master("local[2]").appName("lakeport-paimon-killed-writer")
             .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "4").getOrCreate())
    spark.udf.register("slow", _slow, LongType())
    paimon = EmbeddedPaimon(spark)
    paimon.register("pai", {"warehouse": warehouse})
    print("writing", flush=True)
    paimon.execute("INSERT INTO pai.default.k SELECT slow(id), 'late' FROM range(0, 4000, 1, 4)",
                   current_catalog=None, current_database=None)
    print("committed", flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
