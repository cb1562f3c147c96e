"""JDBC catalogs against the real PostgreSQL and MariaDB: test connection and browsing through the API."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from rest_framework.test import APIClient

from tests.catalogs_metadata.helpers import assert_secret_absent, capture_everything

pytestmark = pytest.mark.django_db

BASE = "/api/v1/teams/acme/catalogs"


def pg_config(db: str, *, port: int = 5432, user: str = "postgres", password: str = "unused-by-trust") -> dict[str, Any]:
    return {"type": "postgresql", "base-url": f"jdbc:postgresql://127.0.0.1:{port}/", "default-database": db,
            "username": user, "password": password}


def my_config(db: str, *, port: int = 3306, user: str = "root", password: str = "") -> dict[str, Any]:
    return {"type": "mysql", "base-url": f"jdbc:mysql://127.0.0.1:{port}/?permitMysqlScheme",
            "default-database": db, "username": user, "password": password}


@pytest.fixture
def pg_schema(pg_source: Any) -> Any:
    """`sales` with a range-partitioned table (and one partition), a plain table, a view; an empty `staging`."""
    with psycopg.connect(pg_source.dsn, autocommit=True) as conn:
        conn.execute("""
            CREATE SCHEMA sales;
            CREATE SCHEMA staging;
            CREATE TABLE sales.orders (id bigint NOT NULL, amount numeric(10,2), note text, day date NOT NULL)
                PARTITION BY RANGE (day);
            CREATE TABLE sales.orders_2024 PARTITION OF sales.orders FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
            CREATE TABLE sales.customers (id integer PRIMARY KEY, name varchar(40) NOT NULL);
            CREATE VIEW sales.big_orders AS SELECT id, amount FROM sales.orders WHERE amount > 100;
            COMMENT ON COLUMN sales.orders.note IS 'free text';
        """)
    return pg_source


@pytest.fixture
def my_schema(mariadb_source: Any) -> Any:
    conn = mariadb_source.connect()
    with conn.cursor() as cur:
        cur.execute("CREATE TABLE customers (id int NOT NULL PRIMARY KEY, name varchar(40) COMMENT 'full name')")
        cur.execute("CREATE TABLE orders (id bigint NOT NULL, amount decimal(10,2))")
        cur.execute("CREATE VIEW big_orders AS SELECT id FROM orders WHERE amount > 100")
    conn.close()
    return mariadb_source


# ---- test connection -------------------------------------------------------------------------------------
def test_postgres_saved_catalog_connects(developer_client: APIClient, make_catalog, pg_source) -> None:
    make_catalog("pg", "jdbc", pg_config(pg_source.name))
    resp = developer_client.post(f"{BASE}/pg/test-connection/")
    assert resp.status_code == 200, resp.content
    body = resp.json()
    assert body["ok"] is True
    assert "PostgreSQL" in body["message"] and pg_source.name in body["message"]
    assert isinstance(body["elapsed_ms"], int) and body["elapsed_ms"] >= 0


def test_mariadb_saved_catalog_connects(developer_client: APIClient, make_catalog, mariadb_source) -> None:
    make_catalog("maria", "jdbc", my_config(mariadb_source.name))
    body = developer_client.post(f"{BASE}/maria/test-connection/").json()
    assert body["ok"] is True
    assert "MariaDB" in body["message"]


def test_postgres_wrong_password_names_user_not_password(
    admin_client: APIClient, make_catalog, password_postgres, caplog
) -> None:
    capture_everything(caplog)
    wrong = "Wr0ng-pg-Passw0rd!"
    make_catalog("pgauth", "jdbc", pg_config("postgres", port=password_postgres.port, password=wrong))
    resp = admin_client.post(f"{BASE}/pgauth/test-connection/")
    assert resp.status_code == 200
    assert resp.json()["ok"] is False
    assert resp.json()["message"] == "authentication failed for user postgres"
    assert_secret_absent(wrong, responses=[resp], caplog=caplog)


def test_postgres_right_password_on_password_server(admin_client: APIClient, make_catalog, password_postgres) -> None:
    make_catalog("pgauth", "jdbc", pg_config("postgres", port=password_postgres.port,
                                              password=password_postgres.password))
    body = admin_client.post(f"{BASE}/pgauth/test-connection/").json()
    assert body["ok"] is True, body


def test_mariadb_wrong_password(admin_client: APIClient, make_catalog, mariadb_source, mariadb_user, caplog) -> None:
    capture_everything(caplog)
    wrong = "Wr0ng-my-Passw0rd!"
    make_catalog("maria", "jdbc", my_config(mariadb_source.name, user=mariadb_user.name, password=wrong))
    resp = admin_client.post(f"{BASE}/maria/test-connection/")
    assert resp.json()["ok"] is False
    assert resp.json()["message"] == f"authentication failed for user {mariadb_user.name}"
    assert_secret_absent(wrong, responses=[resp], caplog=caplog)


def test_mariadb_user_with_right_password_browses(admin_client: APIClient, make_catalog, my_schema, mariadb_user) -> None:
    make_catalog("maria", "jdbc", my_config(my_schema.name, user=mariadb_user.name, password=mariadb_user.password))
    assert admin_client.post(f"{BASE}/maria/test-connection/").json()["ok"] is True
    # The user only sees what it was granted: the source database, not root's others.
    assert admin_client.get(f"{BASE}/maria/databases/").json()["databases"] == [my_schema.name]


@pytest.mark.parametrize("kind", ["postgresql", "mysql"])
def test_refused_port_is_ok_false_not_an_error(admin_client: APIClient, make_catalog, refused_port, kind) -> None:
    config = pg_config("postgres", port=refused_port) if kind == "postgresql" else my_config("x", port=refused_port)
    make_catalog("down", "jdbc", config)
    resp = admin_client.post(f"{BASE}/down/test-connection/")
    assert resp.status_code == 200
    assert resp.json()["ok"] is False
    assert resp.json()["message"] == f"connection refused at 127.0.0.1:{refused_port}"


@pytest.mark.parametrize("kind", ["postgresql", "mysql"])
def test_silent_server_times_out(admin_client: APIClient, make_catalog, silent_server, kind, caplog) -> None:
    capture_everything(caplog)
    secret = "S1lent-Server-Pw!"
    config = (pg_config("postgres", port=silent_server.port, password=secret) if kind == "postgresql"
              else my_config("x", port=silent_server.port, password=secret))
    make_catalog("silent", "jdbc", config)
    resp = admin_client.post(f"{BASE}/silent/test-connection/?timeout=2")
    assert resp.status_code == 200
    body = resp.json()
    assert body["ok"] is False
    assert "timed out" in body["message"] and f"127.0.0.1:{silent_server.port}" in body["message"]
    assert silent_server.accepted, "the client never reached the silent server"
    assert_secret_absent(secret, responses=[resp], caplog=caplog)


def test_unknown_default_database(admin_client: APIClient, make_catalog) -> None:
    make_catalog("pg", "jdbc", pg_config("lp_no_such_db"))
    make_catalog("maria", "jdbc", my_config("lp_no_such_db"))
    assert admin_client.post(f"{BASE}/pg/test-connection/").json() | {"elapsed_ms": 0} == {
        "ok": False, "message": "database lp_no_such_db does not exist", "elapsed_ms": 0}
    assert admin_client.post(f"{BASE}/maria/test-connection/").json()["message"] == "database lp_no_such_db does not exist"


def test_unsaved_config_wrong_password_and_ok(admin_client: APIClient, mariadb_source, mariadb_user, caplog) -> None:
    capture_everything(caplog)
    wrong = "Unsaved-Wr0ng-Pw!"
    bad = admin_client.post(f"{BASE}/test-connection/", {
        "catalog_type": "jdbc",
        "configuration": my_config(mariadb_source.name, user=mariadb_user.name, password=wrong),
    }, format="json")
    good = admin_client.post(f"{BASE}/test-connection/", {
        "catalog_type": "jdbc",
        "configuration": my_config(mariadb_source.name, user=mariadb_user.name, password=mariadb_user.password),
    }, format="json")
    assert (bad.status_code, bad.json()["ok"]) == (200, False)
    assert "authentication failed" in bad.json()["message"]
    assert (good.status_code, good.json()["ok"]) == (200, True)
    assert_secret_absent(wrong, responses=[bad], caplog=caplog)
    assert_secret_absent(mariadb_user.password, responses=[good], caplog=caplog)


# ---- browsing --------------------------------------------------------------------------------------------
def test_postgres_browse_three_levels(viewer_client: APIClient, make_catalog, pg_schema) -> None:
    make_catalog("pg", "jdbc", pg_config(pg_schema.name))
    dbs = viewer_client.get(f"{BASE}/pg/databases/")
    assert dbs.status_code == 200, dbs.content
    assert dbs.json() == {"catalog": "pg", "databases": ["public", "sales", "staging"]}  # no pg_catalog etc.

    tables = viewer_client.get(f"{BASE}/pg/databases/sales/tables/").json()["tables"]
    assert tables == [
        {"name": "big_orders", "kind": "view"},
        {"name": "customers", "kind": "table"},
        {"name": "orders", "kind": "table"},
        {"name": "orders_2024", "kind": "partition"},
    ]
    assert viewer_client.get(f"{BASE}/pg/databases/staging/tables/").json()["tables"] == []

    detail = viewer_client.get(f"{BASE}/pg/databases/sales/tables/orders/").json()
    assert detail["catalog"] == "pg" and detail["database"] == "sales" and detail["name"] == "orders"
    assert detail["columns"] == [
        {"name": "id", "type": "bigint", "nullable": False, "comment": None},
        {"name": "amount", "type": "numeric(10,2)", "nullable": True, "comment": None},
        {"name": "note", "type": "text", "nullable": True, "comment": "free text"},
        {"name": "day", "type": "date", "nullable": False, "comment": None},
    ]
    assert detail["partition_columns"] == ["day"]
    assert detail["version"] is None and detail["row_count"] is None
    view = viewer_client.get(f"{BASE}/pg/databases/sales/tables/big_orders/").json()
    assert view["kind"] == "view" and [c["name"] for c in view["columns"]] == ["id", "amount"]


def test_postgres_search_filters_tables(viewer_client: APIClient, make_catalog, pg_schema) -> None:
    make_catalog("pg", "jdbc", pg_config(pg_schema.name))
    names = [t["name"] for t in viewer_client.get(f"{BASE}/pg/databases/sales/tables/?search=ORDER").json()["tables"]]
    assert names == ["big_orders", "orders", "orders_2024"]


def test_mariadb_browse_three_levels(viewer_client: APIClient, make_catalog, my_schema) -> None:
    make_catalog("maria", "jdbc", my_config(my_schema.name))
    databases = viewer_client.get(f"{BASE}/maria/databases/").json()["databases"]
    assert my_schema.name in databases
    assert not {"mysql", "information_schema", "performance_schema", "sys"} & set(databases)
    tables = viewer_client.get(f"{BASE}/maria/databases/{my_schema.name}/tables/").json()["tables"]
    assert tables == [{"name": "big_orders", "kind": "view"}, {"name": "customers", "kind": "table"},
                      {"name": "orders", "kind": "table"}]
    detail = viewer_client.get(f"{BASE}/maria/databases/{my_schema.name}/tables/customers/").json()
    assert detail["columns"] == [
        {"name": "id", "type": "int(11)", "nullable": False, "comment": None},
        {"name": "name", "type": "varchar(40)", "nullable": True, "comment": "full name"},
    ]
    assert detail["partition_columns"] == []


@pytest.mark.parametrize("kind", ["postgresql", "mysql"])
def test_unknown_database_and_table_are_404(viewer_client: APIClient, make_catalog, pg_schema, my_schema, kind) -> None:
    if kind == "postgresql":
        make_catalog("c", "jdbc", pg_config(pg_schema.name))
        db = "sales"
    else:
        make_catalog("c", "jdbc", my_config(my_schema.name))
        db = my_schema.name
    for url in [f"{BASE}/c/databases/nope/tables/", f"{BASE}/c/databases/nope/tables/orders/",
                f"{BASE}/c/databases/{db}/tables/nope/"]:
        resp = viewer_client.get(url)
        assert resp.status_code == 404, url
        assert resp.json()["error"]["code"] == "not_found"
        assert "does not exist" in resp.json()["error"]["message"]


def test_postgres_system_schema_is_not_browsable(viewer_client: APIClient, make_catalog, pg_schema) -> None:
    make_catalog("pg", "jdbc", pg_config(pg_schema.name))
    assert viewer_client.get(f"{BASE}/pg/databases/pg_catalog/tables/").status_code == 404
    assert viewer_client.get(f"{BASE}/pg/databases/information_schema/tables/tables/").status_code == 404


def test_browsing_unreachable_server_is_502(viewer_client: APIClient, make_catalog, refused_port) -> None:
    make_catalog("down", "jdbc", pg_config("postgres", port=refused_port))
    resp = viewer_client.get(f"{BASE}/down/databases/")
    assert resp.status_code == 502
    assert resp.json()["error"] == {"code": "bad_gateway", "message": f"connection refused at 127.0.0.1:{refused_port}",
                                    "details": {}}


def test_browsing_silent_server_is_504(viewer_client: APIClient, make_catalog, silent_server) -> None:
    make_catalog("silent", "jdbc", my_config("x", port=silent_server.port))
    resp = viewer_client.get(f"{BASE}/silent/databases/?timeout=1")
    assert resp.status_code == 504
    assert resp.json()["error"]["code"] == "gateway_timeout"
    assert "timed out" in resp.json()["error"]["message"]


def test_quoted_and_odd_names_are_parameters_not_sql(viewer_client: APIClient, make_catalog, pg_source) -> None:
    """Mixed case and `$`/`-` are legal identifiers; they must be looked up exactly, as bind parameters."""
    with psycopg.connect(pg_source.dsn, autocommit=True) as conn:
        conn.execute('CREATE SCHEMA "Mixed-Case$1"; CREATE TABLE "Mixed-Case$1"."Weird-Table" ("Col A" int)')
    make_catalog("pg", "jdbc", pg_config(pg_source.name))
    tables = viewer_client.get(f"{BASE}/pg/databases/Mixed-Case$1/tables/").json()["tables"]
    assert tables == [{"name": "Weird-Table", "kind": "table"}]
    detail = viewer_client.get(f"{BASE}/pg/databases/Mixed-Case$1/tables/Weird-Table/").json()
    assert detail["columns"][0]["name"] == "Col A"
    assert viewer_client.get(f"{BASE}/pg/databases/mixed-case$1/tables/").status_code == 404


@pytest.mark.parametrize("kind,properties", [
    ("postgresql", {"sslmode": "require"}),
    ("postgresql", {"ssl": "true"}),
    ("mysql", {"sslMode": "REQUIRED"}),
    ("mysql", {"useSSL": "true"}),
])
def test_tls_required_by_the_url_is_honoured(admin_client: APIClient, make_catalog, kind, properties) -> None:
    """The local servers run without TLS: a catalog that demands TLS must fail, not silently connect in clear."""
    config = pg_config("postgres") if kind == "postgresql" else my_config("mysql")
    make_catalog("tls", "jdbc", config | {"properties": properties})
    body = admin_client.post(f"{BASE}/tls/test-connection/").json()
    assert body["ok"] is False
    assert "TLS was required" in body["message"]
