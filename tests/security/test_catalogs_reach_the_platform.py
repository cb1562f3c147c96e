"""Issue 28, "catalogs may point at the platform itself": a team admin saves (or tests) a catalog on the platform's
own database, Celery broker or result backend, in every loopback spelling; each is refused naming the rule, and
nothing is connected to. Another database on the platform's PostgreSQL server stays usable (the suite's sources)."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.db import connection
from rest_framework.test import APIClient

from catalogs.models import Catalog
from jobs.models import TERMINAL_STATUSES, RunStatus
from tests.conftest import PgDatabase
from tests.jobs.conftest import running_worker, wait_status
from tests.support.worker import Worker

pytestmark = pytest.mark.django_db

BASE = "/api/v1/teams/acme/catalogs/"
# loopback spellings an attacker may try for the platform's own host
LOOPBACK_ALIASES = ("127.0.0.1", "127.1", "127.0.0.2", "localhost", "localhost.", "LOCALHOST", "0.0.0.0",
                    "[::1]", "[::ffff:7f00:1]", "[0:0:0:0:0:0:0:1]")


def _resolving_name() -> str:
    """A DNS name (not spelled 'localhost') that resolves to this machine: the host's own name."""
    return socket.gethostname()


def _jdbc(name: str, host: str, database: str) -> dict[str, Any]:
    port = connection.settings_dict.get("PORT") or 5432
    return {"catalog_name": name, "catalog_type": "jdbc", "configuration": {
        "type": "postgresql", "base-url": f"jdbc:postgresql://{host}:{port}/", "default-database": database,
        "username": "postgres", "password": "any-password-works-on-trust"}}


def _redis(name: str, host: str, db: int) -> dict[str, Any]:
    broker = urlsplit(settings.CELERY_BROKER_URL)
    return {"catalog_name": name, "catalog_type": "redis-streams",
            "configuration": {"url": f"redis://{host}:{broker.port or 6379}/{db}"}}


def _refused(resp: Any) -> bool:
    return resp.status_code == 400 and "platform's own services" in json.dumps(resp.json())


@pytest.mark.parametrize("host", [*LOOPBACK_ALIASES, "resolving-name"])
def test_a_jdbc_catalog_on_the_platform_database_is_refused_in_every_spelling(admin_client: APIClient,
                                                                              host: str) -> None:
    host = _resolving_name() if host == "resolving-name" else host
    body = _jdbc("platform", host, connection.settings_dict["NAME"])
    resp = admin_client.post(BASE, body, format="json")
    assert _refused(resp), resp.content
    assert "any-password-works-on-trust" not in resp.content.decode()
    assert not Catalog.objects.exists()


def test_a_jdbc_catalog_on_another_database_of_the_same_server_is_allowed(admin_client: APIClient,
                                                                          pg_source: PgDatabase) -> None:
    resp = admin_client.post(BASE, _jdbc("sales", "127.1", pg_source.name), format="json")
    assert resp.status_code == 201, resp.content


def test_an_update_and_an_apply_cannot_move_a_catalog_onto_the_platform(admin_client: APIClient,
                                                                        pg_source: PgDatabase) -> None:
    assert admin_client.post(BASE, _jdbc("sales", "127.0.0.1", pg_source.name), format="json").status_code == 201
    patch = admin_client.patch(f"{BASE}sales/", {"configuration": {"default-database": connection.settings_dict["NAME"]}},
                               format="json")
    assert _refused(patch), patch.content
    put = admin_client.put(f"{BASE}sales/", _jdbc("sales", "[::1]", connection.settings_dict["NAME"]), format="json")
    assert _refused(put), put.content
    stored = Catalog.objects.get(catalog_name="sales")
    assert stored.version == 1


@pytest.mark.parametrize("host", ["127.0.0.1", "127.1", "localhost.", "[::1]", "0.0.0.0"])
@pytest.mark.parametrize("db", ["broker", "other"])
def test_a_redis_streams_catalog_on_the_broker_server_is_refused_whatever_its_db(
        admin_client: APIClient, host: str, db: str) -> None:
    broker_db = int(urlsplit(settings.CELERY_BROKER_URL).path.strip("/") or 0)
    number = broker_db if db == "broker" else (broker_db + 1) % 16  # SELECT crosses db numbers: the server is refused
    resp = admin_client.post(BASE, _redis("events", host, number), format="json")
    assert _refused(resp), resp.content


@pytest.mark.parametrize("catalog_type,configuration", [
    ("hive", {"metastore-uris": "thrift://127.1:{pg}"}),
    ("nats-jetstream", {"servers": ["nats://localhost.:{redis}"]}),
    ("kafka", {"bootstrap-servers": "[::1]:{redis}"}),
])
def test_other_catalog_types_cannot_reach_the_platforms_services(admin_client: APIClient, catalog_type: str,
                                                                 configuration: dict[str, Any]) -> None:
    ports = {"pg": connection.settings_dict.get("PORT") or 5432,
             "redis": urlsplit(settings.CELERY_BROKER_URL).port or 6379}
    text = json.dumps(configuration)
    for key, value in ports.items():
        text = text.replace("{" + key + "}", str(value))
    resp = admin_client.post(BASE, {"catalog_name": "x", "catalog_type": catalog_type,
                                    "configuration": json.loads(text)}, format="json")
    assert _refused(resp), resp.content


def test_the_operator_allow_list_limits_catalog_hosts(admin_client: APIClient, pg_source: PgDatabase,
                                                      settings: Any) -> None:
    settings.LAKEPORT_CATALOG_ALLOWED_HOSTS = ["db.example.internal"]
    resp = admin_client.post(BASE, _jdbc("sales", "127.0.0.1", pg_source.name), format="json")
    assert resp.status_code == 400 and "LAKEPORT_CATALOG_ALLOWED_HOSTS" in json.dumps(resp.json())
    settings.LAKEPORT_CATALOG_ALLOWED_HOSTS = ["127.0.0.0/8"]
    assert admin_client.post(BASE, _jdbc("sales", "127.0.0.1", pg_source.name), format="json").status_code == 201


def test_a_saved_catalog_whose_host_now_reaches_the_platform_is_refused_at_use(
        admin_client: APIClient, developer_client: APIClient, pg_source: PgDatabase,
        client_for: Callable[..., APIClient]) -> None:
    # saved on another database; the row is then changed under it (as a DNS change would change the address)
    assert admin_client.post(BASE, _jdbc("sales", "127.0.0.1", pg_source.name), format="json").status_code == 201
    catalog = Catalog.objects.get(catalog_name="sales")
    stored = json.loads(catalog.configuration)
    stored["default-database"] = connection.settings_dict["NAME"]
    Catalog.objects.filter(pk=catalog.pk).update(configuration=json.dumps(stored))
    for path in ("sales/test-connection/",):
        resp = developer_client.post(f"{BASE}{path}")
        assert resp.status_code == 409 and "platform's own services" in json.dumps(resp.json()), resp.content
    resp = developer_client.get(f"{BASE}sales/databases/")
    assert resp.status_code == 409, resp.content


def test_the_ad_hoc_test_answers_a_platform_service_a_closed_port_and_a_silent_one_alike(
        admin_client: APIClient) -> None:
    """No port-scanning oracle: the platform's database, a port nothing listens on and one that never answers give
    the same message after the same (whole) timeout, and nothing tells them apart."""
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))  # bound, never listening: connections are refused
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(0)
    filler = socket.create_connection(silent.getsockname())  # the backlog is full: new SYNs are dropped, as filtered
    try:
        answers = []
        for host, port, database in (("127.1", connection.settings_dict.get("PORT") or 5432,
                                      connection.settings_dict["NAME"]),
                                     ("127.0.0.1", closed.getsockname()[1], "x"),
                                     ("localhost", silent.getsockname()[1], "x")):
            config = _jdbc("probe", host, database)["configuration"]
            config["base-url"] = f"jdbc:postgresql://{host}:{port}/"
            started = time.monotonic()
            resp = admin_client.post(f"{BASE}test-connection/?timeout=1", {"catalog_type": "jdbc",
                                                                           "configuration": config}, format="json")
            took = time.monotonic() - started
            assert resp.status_code == 200, resp.content
            body = resp.json()
            answers.append((body["ok"], body["message"].split(": ", 1)[1]))  # the message without its target
            assert took >= 1.0, (host, port, took)  # the whole deadline, whatever happened
            assert "platform" not in body["message"], body
        assert len(set(answers)) == 1 and answers[0][0] is False, answers
    finally:
        for sock in (filler, closed, silent):
            sock.close()


@pytest.fixture(scope="module")
def reach_worker(django_db_setup: Any, django_db_blocker: Any,
                 tmp_path_factory: pytest.TempPathFactory) -> Iterator[Worker]:
    with running_worker(tmp_path_factory, "reach-worker", hostname="reach@%h", beat=False) as worker:
        yield worker


@pytest.mark.django_db(transaction=True)
def test_the_engine_refuses_a_catalog_that_reaches_the_platform_when_it_binds(
        reach_worker: Worker, admin_client: APIClient, developer_client: APIClient, pg_source: PgDatabase) -> None:
    """Saved on another database, then (as a DNS change would) pointing at the platform's: the run that binds it
    fails naming the rule, and no row of the platform's tables comes back."""
    assert admin_client.post(BASE, _jdbc("sales", "127.0.0.1", pg_source.name), format="json").status_code == 201
    catalog = Catalog.objects.get(catalog_name="sales")
    stored = json.loads(catalog.configuration)
    stored["default-database"] = connection.settings_dict["NAME"]
    Catalog.objects.filter(pk=catalog.pk).update(configuration=json.dumps(stored))
    job = developer_client.post("/api/v1/teams/acme/jobs/", {"name": "steal", "sql":
                                "SELECT username FROM sales.public.auth_user"}, format="json")
    assert job.status_code == 201, job.content
    run = developer_client.post(f"/api/v1/teams/acme/jobs/{job.json()['id']}/runs/")
    done = wait_status(int(run.json()["id"]), *TERMINAL_STATUSES)
    assert done.status == RunStatus.FAILED, done.statements
    assert "platform's own services" in done.error["message"] and "Catalog 'sales' is refused" in done.error["message"]
    assert done.result is None
