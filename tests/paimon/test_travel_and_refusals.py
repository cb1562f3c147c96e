"""Time travel by timestamp (the snapshot committed at or before it, against pypaimon's read at that snapshot) and
writes the connector refuses by name, leaving the table as it was: dynamic-bucket, cross-partition and postponed-bucket
primary-key tables (Paimon's job-wide bucket assigner, global key index and postpone compaction)."""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter

import pyarrow as pa
import pytest
from pypaimon import Schema

from lakeport_engine.paimon.catalog import PaimonError
from tests.paimon.conftest import Pai, oracle
from tests.paimon.test_reads import _create
from tests.streaming import support

pytestmark = pytest.mark.spark
spark = support.stream_spark  # no Hive: the suite's session when one runs, else a plain local one


def test_time_travel_by_timestamp_reads_the_snapshot_committed_at_or_before_it(pai: Pai) -> None:
    _create(pai, "tt", primary=["id"], options={"bucket": "2"})
    for amount in (1.0, 2.0, 3.0):
        pai.write("default.tt", [{"id": 1, "region": "eu", "amount": amount, "note": None},
                                 {"id": int(amount) + 1, "region": "us", "amount": amount, "note": "n"}])
    table = pai.table("default.tt")
    times = [table.snapshot_manager().get_snapshot_by_id(i).time_millis for i in (1, 2, 3)]
    pai.spark.conf.set("spark.sql.session.timeZone", "UTC")
    for snapshot, millis in enumerate(times, start=1):
        at = dt.datetime.fromtimestamp(millis / 1000, tz=dt.UTC).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
        expected = oracle(table, snapshot_id=snapshot)
        assert pai.rows(f"SELECT * FROM pai.default.tt TIMESTAMP AS OF '{at}'") == expected  # exactly its time
        assert pai.rows(f"SELECT * FROM pai.default.tt TIMESTAMP AS OF timestamp_millis({millis})") == expected
        after = millis + (times[snapshot] - millis) // 2 if snapshot < 3 else millis + 3_600_000
        assert pai.rows(f"SELECT * FROM pai.default.tt FOR TIMESTAMP AS OF timestamp_millis({after})") == expected
    with pytest.raises(PaimonError, match="the table had no snapshot then .its first snapshot .1. was committed at"):
        pai.sql(f"SELECT * FROM pai.default.tt TIMESTAMP AS OF timestamp_millis({times[0] - 1})")
    with pytest.raises(PaimonError, match="is not a timestamp|the timestamp is NULL"):
        pai.sql("SELECT * FROM pai.default.tt TIMESTAMP AS OF 'soon'")


def test_writes_to_dynamic_bucket_primary_key_tables_are_refused_by_name(pai: Pai) -> None:
    fields = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("day", pa.string(), nullable=False),
                        pa.field("v", pa.int64())])
    # Paimon's default for a primary-key table (bucket -1), one keyed across partitions, and postponed buckets
    for name, partition, primary, options in (("dyn", None, ["id"], {}),
                                              ("crossed", ["day"], ["id"], {}),
                                              ("later", None, ["id"], {"bucket": "-2"})):
        schema = Schema.from_pyarrow_schema(fields, partition_keys=partition, primary_keys=primary, options=options)
        pai.catalog.create_table(f"default.{name}", schema, False)
        if name != "crossed":  # pypaimon itself cannot write a cross-partition key (no global key index)
            pai.write(f"default.{name}", [{"id": 1, "day": "d1", "v": 1}])
        before = oracle(pai.table(f"default.{name}"))
        assert pai.rows(f"SELECT * FROM pai.default.{name}") == before  # reading works
        what = {"dyn": "with dynamic buckets ('bucket'='-1') is not supported",
                "crossed": "whose key does not include its partition columns (day) is not supported",
                "later": "with postponed buckets ('bucket'='-2') is not supported"}[name]
        with pytest.raises(PaimonError, match=rf"pai\.default\.{name}: writing a primary-key table {re.escape(what)}"):
            pai.sql(f"INSERT INTO pai.default.{name} VALUES (2, 'd1', 2)")
        assert oracle(pai.table(f"default.{name}")) == before  # no snapshot added, nothing half-written
        assert not list((pai.warehouse / "default.db" / name).rglob("data-*")) or name != "crossed"
    with pytest.raises(PaimonError, match=r"dynamic buckets \('bucket'='-1'\) is not supported"):
        pai.sql("CREATE TABLE pai.default.made TBLPROPERTIES ('primary-key'='id', 'bucket'='-1') AS SELECT 1L AS id")
    assert pai.rows("SHOW TABLES IN pai.default LIKE 'made'") == Counter()
