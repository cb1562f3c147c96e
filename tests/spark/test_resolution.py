"""Run-time resolution: late and changed catalogs, unknown catalogs, syntax errors, unreachable servers, Hive limits."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from lakeport_engine.script import ScriptRunner
from lakeport_engine.store import CatalogEntry, InMemoryCatalogStore
from tests.spark.conftest import (
    MARIA_PASSWORD,
    ORDERS,
    PG_PASSWORD,
    TEAM,
    RecordingListener,
    hive_config,
    maria_config,
    pg_config,
    pg_rows,
)
from tests.support.net import free_port

pytestmark = pytest.mark.spark


def test_catalog_created_after_the_session_started_is_seen_by_the_next_statement(session: Any, sales_db: Any) -> None:
    store = InMemoryCatalogStore([], team=TEAM)
    runner = ScriptRunner(session, store, team=TEAM)
    first = runner.run("SELECT count(*) FROM late_pg.shop.orders")
    assert not first.succeeded
    assert first.error["message"] == "Unknown catalog 'late_pg' for team 'acme'."

    store.put(CatalogEntry("late_pg", "jdbc", pg_config(sales_db)))
    second = runner.run("SELECT count(*) FROM late_pg.shop.orders")  # same session, no restart
    assert second.succeeded, second.error
    assert second.statements[0].rows == [[len(ORDERS)]]


def test_changed_catalog_is_re_registered_before_the_next_statement(session: Any, sales_db: Any, pg_source: Any) -> None:
    # two databases with different rows behind one catalog name; the catalog is repointed between statements
    import psycopg

    other = pg_source.dsn.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(other, autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS lp_c_repoint")
        conn.execute("CREATE DATABASE lp_c_repoint")
    try:
        with psycopg.connect(other.rsplit("/", 1)[0] + "/lp_c_repoint", autocommit=True) as conn:
            conn.execute("CREATE SCHEMA shop; CREATE TABLE shop.orders (customer text, amount numeric(10,2))")
            conn.execute("INSERT INTO shop.orders VALUES ('zed', 1.00)")
        store = InMemoryCatalogStore([CatalogEntry("sales", "jdbc", pg_config(sales_db))], team=TEAM)
        listener = RecordingListener()
        runner = ScriptRunner(session, store, team=TEAM, listener=listener)
        assert runner.run("USE CATALOG sales; SELECT count(*) FROM shop.orders").statements[1].rows == [[len(ORDERS)]]

        store.put(CatalogEntry("sales", "jdbc", pg_config(sales_db, **{"default-database": "lp_c_repoint"})))
        result = runner.run("SELECT customer FROM sales.shop.orders; SELECT count(*) FROM shop.orders")
        assert result.succeeded, result.error
        assert result.statements[0].rows == [["zed"]]
        assert result.statements[1].rows == [[1]]  # the current catalog follows the change too
        assert any("re-registered" in m and "version 1 → 2" in m for m in listener.logs)
    finally:
        with psycopg.connect(other, autocommit=True) as conn:
            conn.execute("DROP DATABASE IF EXISTS lp_c_repoint WITH (FORCE)")


def test_unknown_catalog_fails_before_any_statement_runs(session: Any, store: Any, sales_db: Any) -> None:
    script = (
        "USE CATALOG pg_sales;\n"
        "CREATE TABLE shop.should_not_exist (id INT);\n"
        "INSERT INTO shop.should_not_exist VALUES (1);\n"
        "SELECT * FROM   nowhere.db.t"
    )
    result = ScriptRunner(session, store, team=TEAM).run(script)
    assert not result.succeeded
    assert result.error == {"statement": 3, "line": 4, "column": 17,
                            "message": "Unknown catalog 'nowhere' for team 'acme'."}
    assert [s.status for s in result.statements] == ["skipped", "skipped", "skipped", "failed"]
    # no side effect: the table the earlier statements would have created does not exist
    assert pg_rows(sales_db, "SELECT to_regclass('shop.should_not_exist') IS NULL") == [(True,)]
    assert result.catalogs_used == []


def test_use_catalog_of_unknown_name_is_reported_with_the_team(session: Any, store: Any) -> None:
    result = ScriptRunner(session, store, team=TEAM).run("USE CATALOG globex_secret_db")
    assert result.error["message"] == "Unknown catalog 'globex_secret_db' for team 'acme'."
    assert (result.error["line"], result.error["column"]) == (1, 13)


def test_syntax_error_reports_statement_and_script_position(session: Any, store: Any, sales_db: Any) -> None:
    script = (
        "-- totals\n"
        "CREATE TABLE pg_sales.shop.should_not_exist (id INT);\n"
        "SELECT customer,\n"
        "       amount\n"
        "  FORM pg_sales.shop.orders;\n"
    )
    result = ScriptRunner(session, store, team=TEAM).run(script)
    assert not result.succeeded
    error = result.error
    assert error["statement"] == 1
    assert (error["line"], error["column"]) == (5, 8)  # Spark's "line 3, pos 7" of the statement
    assert "PARSE_SYNTAX_ERROR" in error["message"] and "statement 2 of 2" in error["message"]
    assert "(line 5, column 8)" in error["message"]
    assert [s.status for s in result.statements] == ["skipped", "failed"]
    assert pg_rows(sales_db, "SELECT to_regclass('shop.should_not_exist') IS NULL") == [(True,)]


def test_unreachable_jdbc_server_fails_the_statement_naming_the_catalog(session: Any, store: Any) -> None:
    port = free_port()  # nothing listens: connection refused
    store.put(CatalogEntry("pg_down", "jdbc", {"type": "postgresql", "base-url": f"jdbc:postgresql://127.0.0.1:{port}/",
                                              "default-database": "x", "username": "u", "password": PG_PASSWORD}))
    result = ScriptRunner(session, store, team=TEAM).run(
        "SELECT count(*) FROM pg_sales.shop.orders;\nSELECT * FROM pg_down.shop.orders;\nSELECT 1"
    )
    assert [s.status for s in result.statements] == ["succeeded", "failed", "skipped"]
    message = result.error["message"]
    assert message.startswith(f"Catalog 'pg_down' (127.0.0.1:{port}) is unreachable")
    assert "pg_sales" not in message and PG_PASSWORD not in message


@pytest.fixture
def silent_server() -> Iterator[int]:
    """A TCP server that accepts connections and never answers (a hung database)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    server.close()


@pytest.mark.parametrize("kind", ["postgresql", "mysql"])
def test_hung_jdbc_server_fails_after_the_connect_timeout(session: Any, silent_server: int, kind: str) -> None:
    config = {"type": kind, "base-url": f"jdbc:{kind}://127.0.0.1:{silent_server}/", "default-database": "x",
              "username": "u", "password": MARIA_PASSWORD}
    store = InMemoryCatalogStore([CatalogEntry("hung", "jdbc", config)], team=TEAM)
    # returns at all (no hang) because the driver's connect/login timeouts are set from connect_timeout
    result = ScriptRunner(session, store, team=TEAM, connect_timeout=2).run("SELECT * FROM hung.x.t")
    assert result.statements[0].status == "failed"
    assert result.error["message"].startswith(f"Catalog 'hung' (127.0.0.1:{silent_server}) is unreachable")


def test_second_hive_catalog_in_one_session_is_a_clear_error(session: Any, store: Any, hive_metastore: Any) -> None:
    store.put(CatalogEntry("other_hive", "hive", hive_config(hive_metastore)))
    result = ScriptRunner(session, store, team=TEAM).run("USE CATALOG warehouse_hive; USE CATALOG other_hive")
    assert result.statements[0].status == "succeeded"
    assert result.error["statement"] == 1
    assert "Only one Hive catalog per Spark session: 'warehouse_hive'" in result.error["message"]


def test_hive_catalog_on_another_metastore_names_the_static_confs(session: Any, store: Any) -> None:
    store.put(CatalogEntry("far_hive", "hive", {"metastore-uris": "thrift://10.9.8.7:9083"}))
    result = ScriptRunner(session, store, team=TEAM).run("SELECT * FROM far_hive.db.t")
    message = result.error["message"]
    assert "Hive catalog 'far_hive' uses metastore thrift://10.9.8.7:9083" in message
    assert "spark.sql.catalogImplementation=hive, spark.hadoop.hive.metastore.uris=thrift://10.9.8.7:9083" in message


def test_three_part_hive_names_resolve_to_the_session_catalog(session: Any, store: Any) -> None:
    runner = ScriptRunner(session, store, team=TEAM)
    try:
        result = runner.run(
            "CREATE DATABASE IF NOT EXISTS warehouse_hive.lp_c_names;\n"
            "CREATE TABLE warehouse_hive.lp_c_names.t (id INT) USING parquet;\n"
            "INSERT INTO warehouse_hive.lp_c_names.t SELECT count(*) FROM pg_sales.shop.orders;\n"
            "USE warehouse_hive.lp_c_names;\n"
            "SELECT id FROM t"
        )
        assert result.succeeded, result.error
        assert result.statements[-1].rows == [[len(ORDERS)]]
        assert result.catalogs_used == ["warehouse_hive", "pg_sales"]
    finally:
        session.sql("DROP DATABASE IF EXISTS spark_catalog.lp_c_names CASCADE")


def test_validate_reports_errors_and_the_last_query_schema_without_running(session: Any, store: Any, sales_db: Any) -> None:
    runner = ScriptRunner(session, store, team=TEAM)
    errors, schema = runner.validate(
        "USE CATALOG pg_sales;\n"
        "CREATE TABLE shop.made_here (customer STRING);\n"
        "SELECT customer FROM shop.made_here;\n"
        "SELECT o.customer, sum(o.amount) AS total FROM shop.orders o JOIN maria_crm.crm.customers c "
        "ON o.customer = c.name GROUP BY o.customer"
    )
    assert errors == []
    assert schema == [{"name": "customer", "type": "string"}, {"name": "total", "type": "decimal(20,2)"}]
    assert pg_rows(sales_db, "SELECT to_regclass('shop.made_here') IS NULL") == [(True,)]  # nothing ran

    errors, schema = runner.validate("SELECT nope FROM pg_sales.shop.orders;\nSELECT * FROM pg_sales.shop.missing")
    assert [e["statement"] for e in errors] == [0, 1]
    assert "UNRESOLVED_COLUMN" in errors[0]["message"] and "TABLE_OR_VIEW_NOT_FOUND" in errors[1]["message"]
    assert schema is None

    errors, _ = runner.validate("SELECT 1;\nSELEC 2;\nSELECT * FROM ghost.a.b")
    assert [(e["statement"], e["line"]) for e in errors] == [(1, 2), (2, 3)]
    assert errors[1]["message"] == "Unknown catalog 'ghost' for team 'acme'."


def test_secrets_never_reach_logs_or_results(session: Any, store: Any, caplog: pytest.LogCaptureFixture) -> None:
    listener = RecordingListener()
    caplog.set_level("DEBUG")
    store.put(CatalogEntry("bad_login", "jdbc", maria_config(username="nobody")))
    result = ScriptRunner(session, store, team=TEAM, listener=listener).run(
        "SELECT * FROM maria_crm.crm.customers; SELECT * FROM bad_login.crm.customers"
    )
    assert result.statements[1].status == "failed"
    text = repr(result) + repr(listener.events) + caplog.text
    assert MARIA_PASSWORD not in text and PG_PASSWORD not in text
    assert "Catalog 'maria_crm' registered: jdbc mysql at 127.0.0.1:3306." in listener.logs
