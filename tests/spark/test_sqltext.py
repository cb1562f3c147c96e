"""The statement splitter, catalog references, and the pure conf builders (no Spark)."""

from __future__ import annotations

import pytest

from lakeport_engine.bindings.delta import DELTA_CATALOG, DeltaBindingError, delta_mode, jvm_static_conf
from lakeport_engine.bindings.hive import HiveConfigError, static_conf
from lakeport_engine.bindings.jdbc import catalog_options, host_port, jdbc_url
from lakeport_engine.errors import CatalogBindingError
from lakeport_engine.resolver import hive_static_conf, statement_refs
from lakeport_engine.script import json_value, split_statements
from lakeport_engine.sqltext import SqlTextError, StatementSpan, rewrite, statement_spans, utf16_offsets
from lakeport_engine.store import CatalogEntry, InMemoryCatalogStore


def test_split_handles_comments_strings_and_backticks() -> None:
    script = (
        "-- leading comment; not a statement\n"
        "SELECT ';' AS `a;b`, 'it''s; fine', \"dq;\", 'esc\\'; still' FROM t; /* block; */\n"
        "  /* nested /* ; */ ; */ SELECT r'raw\\'; -- trailing; comment\n"
        ";;\n"
        "INSERT INTO x\n  VALUES (1)"
    )
    statements = split_statements(script)
    assert [s.sql for s in statements] == [
        "SELECT ';' AS `a;b`, 'it''s; fine', \"dq;\", 'esc\\'; still' FROM t",
        "SELECT r'raw\\'",
        "INSERT INTO x\n  VALUES (1)",
    ]
    assert [(s.index, s.line, s.column) for s in statements] == [(0, 2, 1), (1, 3, 26), (2, 5, 1)]
    assert [script[s.span.start:s.span.end] for s in statements] == [s.sql for s in statements]


def test_spans_of_a_script_that_does_not_tokenize_run_the_open_statement_to_the_end() -> None:
    script = "SELECT 1; /* c */ SELECT 'open; --\n  "
    assert statement_spans(script) == [StatementSpan(0, 8, 1, 1), StatementSpan(18, len(script.rstrip()), 1, 19)]


def test_utf16_offsets_count_characters_outside_the_bmp_twice() -> None:
    text = "é😀a𝔸b"
    js = utf16_offsets(text)
    assert [js(i) for i in range(len(text) + 1)] == [0, 1, 3, 4, 6, 7]


def test_split_reports_unterminated_text_with_position() -> None:
    with pytest.raises(SqlTextError) as err:
        split_statements("SELECT 1;\nSELECT 'open")
    assert (err.value.line, err.value.column) == (2, 8)
    with pytest.raises(SqlTextError, match="comment"):
        split_statements("SELECT /* /* */ 1")
    with pytest.raises(SqlTextError, match="quoted identifier"):
        split_statements("SELECT `x")


def test_statement_position_translation() -> None:
    stmt = split_statements("\n\n   SELECT a,\n  FORM b")[0]
    assert (stmt.line, stmt.column) == (3, 4)
    assert stmt.position(1, 7) == (3, 11)
    assert stmt.position(2, 2) == (4, 3)


@pytest.mark.parametrize(("sql", "candidates", "required"), [
    ("USE CATALOG pg_sales", ["pg_sales"], ["pg_sales"]),
    ("SET CATALOG `Pg`", ["pg"], ["pg"]),
    ("SELECT o.customer FROM pg.shop.orders o JOIN m.crm.c c ON o.x = c.y", ["pg", "m"], ["pg", "m"]),
    ("SELECT a.b.c FROM t a", ["a"], []),  # a struct field, not a table: a candidate, never required
    ("USE h.marts", ["h"], []),
    ("CREATE DATABASE IF NOT EXISTS h.marts", ["h"], []),
    ("DROP SCHEMA h.marts CASCADE", ["h"], []),
    ("SHOW TABLES IN pg.shop", ["pg"], []),
    ("SELECT 1.5, x.y FROM db.t", [], []),
    ("CREATE TABLE IF NOT EXISTS h.db.t AS SELECT * FROM `p g`.s.t", ["h", "p g"], ["h", "p g"]),
    ("SELECT 'pg.shop.orders' FROM t -- pg2.a.b", [], []),
])
def test_catalog_references(sql: str, candidates: list[str], required: list[str]) -> None:
    refs = statement_refs(split_statements(sql)[0])
    assert refs.candidates == candidates
    assert refs.required == required


def test_rewrite_replaces_tokens_only() -> None:
    stmt = split_statements("SELECT 'h.db.t' FROM h.db.t JOIN h . db . u")[0]
    chains = statement_refs(stmt).chains
    replacements = {c.tokens[0].start: "spark_catalog" for c in chains}
    assert rewrite(stmt.sql, replacements, stmt.tokens) == \
        "SELECT 'h.db.t' FROM spark_catalog.db.t JOIN spark_catalog . db . u"


def test_jdbc_urls_and_options() -> None:
    pg = {"type": "postgresql", "base-url": "jdbc:postgresql://db:5433/", "default-database": "sales",
          "username": "u", "password": "p", "properties": {"sslmode": "require"}}
    assert jdbc_url(pg) == "jdbc:postgresql://db:5433/sales"
    assert host_port(pg) == ("db", 5433)
    options = catalog_options(pg, connect_timeout=7)
    assert options["driver"] == "org.postgresql.Driver" and options["sslmode"] == "require"
    assert options["connectTimeout"] == "7" and options["loginTimeout"] == "7"

    my = {"type": "mysql", "base-url": "jdbc:mariadb://m/", "default-database": "crm", "username": "u", "password": "p"}
    assert jdbc_url(my) == "jdbc:mysql://m/crm?permitMysqlScheme"
    assert host_port(my) == ("m", 3306)
    assert catalog_options(my, connect_timeout=2)["connectTimeout"] == "2000"  # milliseconds for Connector/J
    my2 = {**my, "base-url": "jdbc:mysql://m:3307/?permitMysqlScheme&connectTimeout=500"}
    assert jdbc_url(my2) == "jdbc:mysql://m:3307/crm?permitMysqlScheme&connectTimeout=500"
    assert "connectTimeout" not in catalog_options(my2)  # the URL's own value wins


def test_hive_static_conf_scans_the_script() -> None:
    store = InMemoryCatalogStore([
        CatalogEntry("wh", "hive", {"metastore-uris": "thrift://b:9083, thrift://a:9083", "warehouse": "/data/wh"}),
        CatalogEntry("wh2", "hive", {"metastore-uris": "thrift://c:9083"}),
        CatalogEntry("pg", "jdbc", {"type": "postgresql"}),
    ], team="acme")
    assert hive_static_conf("SELECT * FROM pg.a.b", store, "acme") == {}
    assert hive_static_conf("USE CATALOG pg; USE CATALOG wh; SELECT 1", store, "acme") == {
        "spark.sql.catalogImplementation": "hive",
        "spark.hadoop.hive.metastore.uris": "thrift://a:9083,thrift://b:9083",
        "spark.sql.warehouse.dir": "/data/wh",
    }
    with pytest.raises(CatalogBindingError, match="Hive catalogs 'wh', 'wh2' of team 'acme'"):
        hive_static_conf("SELECT * FROM wh.a.b JOIN wh2.a.c", store, "acme")


def test_hive_conf_dir_is_read_for_the_metastore(tmp_path: object) -> None:
    from pathlib import Path

    conf_dir = Path(str(tmp_path))
    (conf_dir / "hive-site.xml").write_text(
        "<configuration><property><name>hive.metastore.uris</name><value>thrift://hms:9083</value></property>"
        "</configuration>"
    )
    assert static_conf({"hive-conf-dir": str(conf_dir)})["spark.hadoop.hive.metastore.uris"] == "thrift://hms:9083"
    with pytest.raises(HiveConfigError, match="metastore-uris"):
        static_conf({"default-database": "x"})


def test_delta_jvm_conf_is_a_pure_function(monkeypatch: pytest.MonkeyPatch) -> None:
    conf = jvm_static_conf({"warehouse": "s3a://bucket/wh",
                            "storage-options": {"AWS_ACCESS_KEY_ID": "AKIA1", "AWS_SECRET_ACCESS_KEY": "s",
                                                "fs.azure.account.key.acct.dfs.core.windows.net": "k", "weird": "x"}})
    assert conf == {
        "spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
        "spark.sql.catalog.spark_catalog": DELTA_CATALOG,
        "spark.sql.warehouse.dir": "s3a://bucket/wh",
        "spark.hadoop.fs.s3a.access.key": "AKIA1",
        "spark.hadoop.fs.s3a.secret.key": "s",
        "spark.hadoop.fs.azure.account.key.acct.dfs.core.windows.net": "k",
    }
    monkeypatch.setenv("LAKEPORT_DELTA_MODE", "JVM")
    assert delta_mode() == "jvm"
    assert delta_mode("embedded") == "embedded"
    monkeypatch.setenv("LAKEPORT_DELTA_MODE", "fast")
    with pytest.raises(DeltaBindingError, match="'embedded' or 'jvm'"):
        delta_mode()


def test_json_values() -> None:
    import datetime as dt
    from decimal import Decimal

    assert json_value(Decimal("1.50")) == "1.50"
    assert json_value(dt.date(2024, 1, 2)) == "2024-01-02"
    assert json_value(dt.datetime(2024, 1, 2, 3, 4, 5)) == "2024-01-02T03:04:05"
    assert json_value(b"\x00\x01") == "AAE="
    assert json_value([Decimal("2"), {"k": float("nan")}]) == ["2", {"k": "nan"}]
