"""kafka catalogs: created and read through the public API with the SASL password write-only, bad settings
refused, a TCP connection test; and a streaming statement over one refused by name, listing the connector jars
the engine lacks."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any

import pytest
from rest_framework.test import APIClient

from lakeport_engine.script import ScriptRunner
from lakeport_engine.store import CatalogEntry, InMemoryCatalogStore
from lakeport_engine.streaming.sources import StreamSourceError, stream_view
from tests.streaming import support
from tests.streaming.conftest import columns
from tests.support.net import free_port

BASE = "/api/v1/teams/acme/catalogs"
SASL_PASSWORD = "kafka-sasl-pw-7f3a91"
stream_spark = support.stream_spark
ORDERS = {"default.orders": {"columns": columns(("id", "bigint"), ("ts", "timestamp")), "event-time": "ts"}}


@pytest.fixture
def broker_port() -> Iterator[int]:
    """A port that accepts TCP connections (stands in for a broker's listener; no Kafka protocol spoken)."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        yield server.getsockname()[1]


def _body(**configuration: Any) -> dict[str, Any]:
    return {"catalog_name": "clicks", "catalog_type": "kafka", "configuration": configuration}


@pytest.mark.django_db
def test_kafka_catalog_keeps_its_sasl_password_write_only(admin_client: APIClient, broker_port: int) -> None:
    body = _body(**{"bootstrap-servers": f"127.0.0.1:{broker_port}", "security-protocol": "SASL_SSL",
                    "sasl-mechanism": "SCRAM-SHA-512", "sasl-username": "ingest", "sasl-password": SASL_PASSWORD,
                    "tables": ORDERS})
    created = admin_client.post(f"{BASE}/", body, format="json")
    assert created.status_code == 201, created.content
    assert SASL_PASSWORD not in json.dumps(created.json())
    read = admin_client.get(f"{BASE}/clicks/").json()
    assert SASL_PASSWORD not in json.dumps(read)
    assert read["configuration"]["bootstrap-servers"] == f"127.0.0.1:{broker_port}"
    assert read["configuration"]["sasl-username"] == "ingest"

    tested = admin_client.post(f"{BASE}/clicks/test-connection/").json()
    assert tested["ok"] is True and f"127.0.0.1:{broker_port}" in tested["message"]
    assert admin_client.get(f"{BASE}/clicks/databases/").json()["databases"] == ["default"]
    assert admin_client.get(f"{BASE}/clicks/databases/default/tables/").json()["tables"] == [
        {"name": "orders", "kind": "stream"}]
    detail = admin_client.get(f"{BASE}/clicks/databases/default/tables/orders/").json()
    assert [(c["name"], c["type"]) for c in detail["columns"]] == [("id", "bigint"), ("ts", "timestamp")]
    assert admin_client.get(f"{BASE}/clicks/databases/default/tables/nope/").status_code == 404

    # a PATCH that does not name the password keeps it (the connection test still has the SASL settings)
    patched = admin_client.patch(f"{BASE}/clicks/", {"configuration": {"start": "latest"}}, format="json")
    assert patched.status_code == 200, patched.content
    assert SASL_PASSWORD not in json.dumps(patched.json())

    closed = admin_client.patch(f"{BASE}/clicks/", {"configuration": {"bootstrap-servers": f"127.0.0.1:{free_port()}"}},
                                format="json")
    assert closed.status_code == 200, closed.content
    failed = admin_client.post(f"{BASE}/clicks/test-connection/").json()
    assert failed["ok"] is False and "no bootstrap server accepts connections" in failed["message"]
    assert SASL_PASSWORD not in json.dumps(failed)


@pytest.mark.django_db
@pytest.mark.parametrize(("configuration", "words"), [
    ({"bootstrap-servers": "kafka-1"}, "host:port"),
    ({"bootstrap-servers": "k:9092", "security-protocol": "SASL_SSL", "sasl-mechanism": "PLAIN"},
     "needs sasl-mechanism, sasl-username and sasl-password"),
    ({"bootstrap-servers": "k:9092", "sasl-password": SASL_PASSWORD}, "need security-protocol"),
    ({"bootstrap-servers": "k:9092", "tables": {"sales.orders": ORDERS["default.orders"]}}, "default.<topic>"),
])
def test_bad_kafka_settings_are_refused_by_name(admin_client: APIClient, configuration: dict[str, Any],
                                                words: str) -> None:
    refused = admin_client.post(f"{BASE}/", _body(**configuration), format="json")
    assert refused.status_code == 400
    assert words in json.dumps(refused.json()) and SASL_PASSWORD not in json.dumps(refused.json())


@pytest.mark.spark
def test_streaming_from_kafka_without_the_connector_jars_is_refused_by_name(stream_spark: Any) -> None:
    config = {"bootstrap-servers": "127.0.0.1:9092", "security-protocol": "SASL_PLAINTEXT", "sasl-mechanism": "PLAIN",
              "sasl-username": "ingest", "sasl-password": SASL_PASSWORD, "tables": ORDERS}
    runner = ScriptRunner(stream_spark.newSession(), InMemoryCatalogStore([CatalogEntry("clicks", "kafka", config)],
                                                                         team="acme"), team="acme")
    with pytest.raises(StreamSourceError) as refused:
        stream_view(runner.resolver, "clicks", "default", "orders")
    message = str(refused.value)
    assert "Stream table clicks.default.orders: Kafka needs Spark's Kafka connector jars" in message
    assert "spark-sql-kafka-0-10_2.13" in message and "kafka-clients" in message and "commons-pool2" in message
    assert SASL_PASSWORD not in message
