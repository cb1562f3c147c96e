"""SHOW, DESCRIBE and DROP on Paimon catalogs through the connector, checked against pypaimon's catalog."""

from __future__ import annotations

import pytest

from lakeport_engine.paimon.catalog import PaimonError
from tests.paimon.conftest import Pai

pytestmark = pytest.mark.spark


def test_show_describe_and_drop(pai: Pai) -> None:
    pai.sql("CREATE DATABASE pai.sales")
    pai.sql("CREATE TABLE pai.sales.o (id BIGINT, d STRING, v DECIMAL(10,2)) PARTITIONED BY (d) "
            "TBLPROPERTIES ('primary-key'='id,d', 'bucket'='2', 'merge-engine'='partial-update')")
    pai.sql("INSERT INTO pai.sales.o VALUES (1, 'x', 1.50)")
    assert [r[0] for r in pai.sql("SHOW DATABASES IN pai").collect()] == ["default", "sales"]
    assert [r[1] for r in pai.sql("SHOW TABLES IN pai.sales").collect()] == ["o"]
    described = {r[0]: r[1] for r in pai.sql("DESCRIBE EXTENDED pai.sales.o").collect()}
    assert described["id"] == "bigint" and described["v"] == "decimal(10,2)"
    assert described["Primary Key"] == "id, d" and described["Merge Engine"] == "partial-update"
    assert described["Current Snapshot"] == "1" and described["Part 0"] == "d"
    assert described["Location"] == str(pai.warehouse / "sales.db" / "o")
    with pytest.raises(PaimonError, match="not empty"):
        pai.sql("DROP DATABASE pai.sales")
    pai.sql("DROP TABLE pai.sales.o")
    assert pai.catalog.list_tables("sales") == []
    assert not (pai.warehouse / "sales.db" / "o").exists()
    pai.sql("DROP TABLE IF EXISTS pai.sales.o")
    with pytest.raises(PaimonError, match="does not exist"):
        pai.sql("DROP TABLE pai.sales.o")
    pai.sql("DROP DATABASE pai.sales")
    assert "sales" not in pai.catalog.list_databases()
    with pytest.raises(PaimonError, match="not a valid database name"):
        pai.sql("CREATE DATABASE pai.`..`")
