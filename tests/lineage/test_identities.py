"""A table's physical identity from its catalog's configuration, as each catalog type's binding names it.

Two catalogs on one server must meet in one lineage node, so the identity is host and port as the server
knows them (lower-case host, the product's default port), never the URL's spelling or its parameters.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lakeport_engine.bindings import Binding, binding_for, lineage_catalogs


def _binding(kind: str, config: dict[str, Any], spark_name: str | None = "c") -> Binding:
    return Binding("c", kind, "fp", 1, spark_name, config)


@pytest.mark.parametrize(("config", "namespace", "physical"), [
    ({"type": "postgresql", "base-url": "jdbc:postgresql://DB.Example:5433/", "default-database": "shop"},
     "postgres://db.example:5433", "shop.public.orders"),
    ({"type": "postgresql", "base-url": "jdbc:postgresql://db/?sslmode=require&password=url-pw-1",
      "default-database": "shop"}, "postgres://db:5432", "shop.public.orders"),
    ({"type": "mysql", "base-url": "jdbc:mariadb://My-Host/", "default-database": "shop"},
     "mysql://my-host:3306", "public.orders"),
])
def test_jdbc_tables_are_named_by_server_not_by_url(config: dict[str, Any], namespace: str, physical: str) -> None:
    dataset = binding_for("jdbc").lineage_dataset(_binding("jdbc", config), "public", "orders")
    assert dataset is not None
    assert (dataset.name, dataset.namespace, dataset.physical_name) == ("c.public.orders", namespace, physical)
    assert "url-pw-1" not in repr(dataset)


def test_hive_and_kafka_tables_are_named_by_their_first_server() -> None:
    hive = binding_for("hive").lineage_dataset(
        _binding("hive", {"metastore-uris": "thrift://HMS.example:9083,thrift://standby:9083"}), "sales", "t")
    assert hive is not None and (hive.namespace, hive.physical_name) == ("hive://hms.example:9083", "sales.t")
    default_port = binding_for("hive").lineage_dataset(_binding("hive", {"metastore-uris": "thrift://hms"}), "d", "t")
    assert default_port is not None and default_port.namespace == "hive://hms:9083"
    kafka = binding_for("kafka").lineage_dataset(
        _binding("kafka", {"bootstrap-servers": "Broker1:29092, broker2:9092"}, None), "default", "clicks")
    assert kafka is not None and (kafka.namespace, kafka.physical_name) == ("kafka://broker1:29092", "clicks")


def test_a_hive_conf_dir_names_the_metastore_its_hive_site_sets(tmp_path: Path) -> None:
    (tmp_path / "hive-site.xml").write_text(
        "<configuration><property><name>hive.metastore.uris</name>"
        "<value>thrift://HMS-A.example , thrift://hms-b.example:9084</value></property></configuration>")
    dataset = binding_for("hive").lineage_dataset(_binding("hive", {"hive-conf-dir": str(tmp_path)}), "sales", "t")
    assert dataset is not None and (dataset.namespace, dataset.physical_name) == ("hive://hms-a.example:9083", "sales.t")


def test_an_embedded_metastore_is_named_by_its_derby_database_or_warehouse(tmp_path: Path) -> None:
    (tmp_path / "hive-site.xml").write_text(
        "<configuration><property><name>javax.jdo.option.ConnectionURL</name>"
        "<value>jdbc:derby:;databaseName=/data/hms/metastore_db;create=true;user=app;password=derby-pw-1</value>"
        "</property></configuration>")
    derby = binding_for("hive").lineage_dataset(_binding("hive", {"hive-conf-dir": str(tmp_path)}), "d", "t")
    assert derby is not None and derby.namespace == "hive+embedded:/data/hms/metastore_db"
    assert "derby-pw-1" not in repr(derby)
    (tmp_path / "hive-site.xml").write_text("<configuration></configuration>")
    warehouse = binding_for("hive").lineage_dataset(
        _binding("hive", {"hive-conf-dir": str(tmp_path), "warehouse": "/data/wh"}), "d", "t")
    assert warehouse is not None and warehouse.namespace == "hive+embedded:/data/wh"


def test_the_plan_walk_knows_only_catalogs_spark_can_name() -> None:
    bindings = [_binding("jdbc", {"type": "postgresql", "base-url": "jdbc:postgresql://db:5432/"}, "pg"),
                _binding("delta", {"warehouse": "/wh"}, None),  # the embedded connector: no Spark catalog
                _binding("redis-streams", {"url": "redis://r:6379"}, None)]
    catalogs = lineage_catalogs(bindings)
    assert list(catalogs) == ["pg"]
    assert (catalogs["pg"].type, catalogs["pg"].host, catalogs["pg"].port) == ("jdbc", "db", 5432)
