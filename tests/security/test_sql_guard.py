"""The SQL guard (issue 13): a team's SQL reaches only that team's catalogs.

Every attack of the issue and its variants runs through `ScriptRunner` on the suite's real Spark session (started
with the engines' static conf) with real catalogs — PostgreSQL over JDBC and an embedded Delta warehouse — in
`run()` and in `validate()`: refused with the rule named, no row, the secret file and the target directory
untouched, the PostgreSQL database unchanged. Legitimate scripts of the same shapes still run.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest

from lakeport_engine.guard import RULES, GuardPolicy, SqlGuard
from lakeport_engine.script import ScriptRunner, split_statements
from lakeport_engine.store import CatalogEntry, InMemoryCatalogStore
from lakeport_kernel.redaction import MASK
from tests.conftest import PgDatabase
from tests.spark.conftest import PG_PASSWORD, pg_config

pytestmark = pytest.mark.spark

TEAM = "acme"


@dataclass
class Target:
    """What an attack would reach: a secret file, a directory to overwrite, and the team's PostgreSQL database."""

    secret: Path
    outdir: Path
    db: PgDatabase
    warehouse: Path

    def snapshot(self) -> tuple[Any, ...]:
        """Everything an attack must leave as it was: file mtimes, directory listings, database rows."""
        with psycopg.connect(self.db.dsn) as conn:
            flags = conn.execute("SELECT name, is_superuser FROM public.accounts ORDER BY name").fetchall()
        listing = sorted(str(p.relative_to(self.secret.parent)) for p in self.secret.parent.rglob("*"))
        return (self.secret.stat().st_mtime_ns, self.secret.read_text(), sorted(os.listdir(self.outdir)), listing,
                flags)


@pytest.fixture
def target(tmp_path: Path, pg_source: PgDatabase) -> Target:
    secret = tmp_path / "var" / "secret-keys"
    secret.parent.mkdir()
    secret.write_text("fernet-key-that-must-stay-here\n")
    outdir = tmp_path / "out"
    outdir.mkdir()
    (outdir / "keep.txt").write_text("keep")
    with psycopg.connect(pg_source.dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE public.orders (id int primary key, customer text, amount numeric(10,2))")
        conn.execute("INSERT INTO public.orders VALUES (1, 'ann', 10.50), (2, 'bob', 20.00)")
        conn.execute("CREATE TABLE public.accounts (name text primary key, is_superuser boolean)")
        conn.execute("INSERT INTO public.accounts VALUES ('dev', false)")
    warehouse = tmp_path / "lake"
    warehouse.mkdir()
    return Target(secret, outdir, pg_source, warehouse)


@pytest.fixture
def store(target: Target) -> InMemoryCatalogStore:
    """Team acme's catalogs: `pg` (PostgreSQL) and `lake` (embedded Delta). No Hive catalog: spark_catalog is not theirs."""
    return InMemoryCatalogStore([
        CatalogEntry("pg", "jdbc", pg_config(target.db)),
        CatalogEntry("lake", "delta", {"warehouse": str(target.warehouse), "default-database": "default"}),
    ], team=TEAM)


@pytest.fixture
def session(spark: Any) -> Any:
    """A child session of the suite's SparkSession, as an engine gives each run."""
    return spark.newSession()


@pytest.fixture
def runner(session: Any, store: InMemoryCatalogStore) -> Iterator[ScriptRunner]:
    yield ScriptRunner(session, store, team=TEAM)


def attacks(t: Target) -> list[tuple[str, str]]:
    """(script, rule): every attack of the issue and variants."""
    s, d = t.secret, t.outdir
    jdbc = (f"url 'jdbc:postgresql://127.0.0.1:5432/{t.db.name}', dbtable 'public.accounts', user 'postgres', "
            "sessionInitStatement 'UPDATE public.accounts SET is_superuser = true'")
    return [
        # files by path
        (f"SELECT * FROM text.`{s}`", "path-read"),
        (f"select * from TEXT.`{s}`", "path-read"),
        (f"SELECT * FROM `text`.`{s}`", "path-read"),
        (f"SELECT /* hi */ * FROM -- x\n csv.`{s}`", "path-read"),
        (f"SELECT * FROM binaryFile.`{s.parent}`", "path-read"),
        (f"SELECT * FROM parquet.`{s.parent}`", "path-read"),
        (f"SELECT * FROM json.`{s}`", "path-read"),
        (f"SELECT * FROM orc.`{s}`", "path-read"),
        (f"SELECT * FROM delta.`{t.warehouse}`", "path-read"),
        (f"SELECT * FROM `org.apache.spark.sql.execution.datasources.text.TextFileFormat`.`{s}`", "path-read"),
        # the platform's own deletion-vector reader (platform/jvm) is the connector's, never a user's
        (f"SELECT * FROM `io.lakeport.spark.DeletionVectorParquetFileFormat`.`{s.parent}`", "path-read"),
        (f"SELECT * FROM read_files('{s}')", "path-read"),
        (f"SELECT * FROM read_files('\\u002f{str(s)[1:]}')", "path-read"),
        (f"WITH q AS (SELECT * FROM text.`{s}`) SELECT * FROM q", "path-read"),
        (f"SELECT * FROM pg.public.orders WHERE customer IN (SELECT value FROM text.`{s}`)", "path-read"),
        (f"SELECT (SELECT max(value) FROM text.`{s}`) AS k", "path-read"),
        (f"EXPLAIN SELECT * FROM text.`{s}`", "path-read"),
        (f"EXPLAIN EXTENDED WITH q AS (SELECT * FROM csv.`{s}`) SELECT * FROM q", "path-read"),
        (f"USE CATALOG pg;\nSELECT * FROM text.`{s}`", "path-read"),
        (f"SELECT 1;\nSELECT * FROM text.`{s}`", "path-read"),
        (f"CREATE TEMPORARY VIEW v AS SELECT * FROM text.`{s}`", "path-read"),
        ("CREATE TEMPORARY VIEW a AS SELECT * FROM pg.public.orders;\n"
         f"CREATE TEMPORARY VIEW b AS SELECT customer FROM a UNION ALL SELECT value FROM csv.`{s}`", "path-read"),
        (f"CREATE TABLE pg.public.stolen AS WITH q AS (SELECT * FROM text.`{s}`) SELECT * FROM q", "path-read"),
        (f"INSERT INTO pg.public.orders SELECT 9, value, 1 FROM text.`{s}`", "path-read"),
        (f"REFRESH '{s.parent}'", "path-read"),
        # inline connections and sources
        (f"CREATE TEMPORARY VIEW v USING jdbc OPTIONS ({jdbc})", "inline-source"),
        (f"create or replace temporary view v using org.apache.spark.sql.jdbc options ({jdbc})", "inline-source"),
        (f"CREATE TABLE pg.public.x USING jdbc OPTIONS ({jdbc})", "inline-source"),
        (f"CREATE TEMPORARY VIEW v USING text OPTIONS (path '{s}')", "inline-source"),
        (f"CREATE TEMPORARY VIEW v USING io.lakeport.spark.DeletionVectorParquetFileFormat OPTIONS (path '{s}', "
         "`lakeport.deletionVectors` '')", "inline-source"),
        ("CREATE TABLE lake.default.dvx (a INT) USING io.lakeport.spark.DeletionVectorParquetFileFormat",
         "inline-source"),
        ("SELECT * FROM pg.public.orders WITH ('sessionInitStatement' = 'UPDATE public.accounts SET is_superuser "
         "= true')", "inline-source"),
        # options behind time travel (the relation sits in a field of RelationTimeTravel, not a child)
        ("SELECT * FROM pg.public.orders VERSION AS OF 1 WITH ('sessionInitStatement' = 'UPDATE public.accounts "
         "SET is_superuser = true')", "inline-source"),
        ("INSERT INTO pg.public.orders WITH ('url' = 'jdbc:postgresql://127.0.0.1/postgres') SELECT 9, 'x', 1",
         "inline-source"),
        # locations
        (f"CREATE TABLE lake.default.t (a INT) USING delta LOCATION '{d}'", "location"),
        (f"CREATE DATABASE d LOCATION '{d}'", "location"),
        (f"ALTER TABLE pg.public.orders SET LOCATION '{d}'", "location"),
        (f"ALTER TABLE pg.public.orders ADD PARTITION (id = 1) LOCATION '{d}'", "location"),
        # directories, resources, functions
        (f"INSERT OVERWRITE DIRECTORY '{d}' USING csv SELECT * FROM pg.public.orders", "write-directory"),
        (f"insert overwrite local directory '{d}' stored as textfile select 1", "write-directory"),
        (f"EXPLAIN INSERT OVERWRITE DIRECTORY '{d}' USING csv SELECT 1", "write-directory"),
        (f"ADD FILE {s}", "resource"),
        (f"add jar {s}", "resource"),
        (f"ADD ARCHIVE {s}", "resource"),
        ("LIST FILES", "resource"),
        ("LIST JAR", "resource"),
        (f"CREATE TEMPORARY FUNCTION f AS 'x.Y' USING JAR '{s}'", "create-function"),
        ("CREATE FUNCTION f AS 'org.apache.hadoop.hive.ql.udf.UDFReflect'", "create-function"),
        ("CREATE TEMPORARY FUNCTION f() RETURNS STRING RETURN 'x'", "create-function"),
        # conf
        ("SET spark.sql.catalog.x=org.apache.spark.sql.execution.datasources.v2.jdbc.JDBCTableCatalog", "conf"),
        (f"SET spark.sql.catalog.x.url=jdbc:postgresql://127.0.0.1:5432/{t.db.name}", "conf"),
        ("SET spark.sql.catalog.x=org.apache.spark.sql.execution.datasources.v2.jdbc.JDBCTableCatalog;\n"
         "SELECT * FROM IDENTIFIER('x.public.accounts')", "conf"),
        ("set SPARK.SQL.CATALOG.pg.url = jdbc:postgresql://127.0.0.1/postgres", "conf"),
        ("SET spark.sql.runSQLOnFiles=true", "conf"),
        ("SET spark.hadoop.fs.file.impl=org.apache.hadoop.fs.RawLocalFileSystem", "conf"),
        ("SET spark.sql.warehouse.dir", "conf"),
        ("RESET spark.sql.catalog.pg", "conf"),
        ("SET", "conf-listing"),
        ("SET -v", "conf-listing"),
        ("RESET", "conf-listing"),
        # names Spark computes
        ("SELECT * FROM IDENTIFIER('other.public.accounts')", "unbound-catalog"),
        ("SELECT * FROM IDENTIFIER('system.session.x')", "unbound-catalog"),
        ("SELECT * FROM IDENTIFIER(concat('pg', '.public.accounts'))", "dynamic-name"),
        ("DECLARE VARIABLE lp_name STRING DEFAULT 'pg.public.accounts';\nSELECT * FROM IDENTIFIER(lp_name)",
         "dynamic-name"),
        ("SELECT * FROM IDENTIFIER('`pg, x`.public.accounts')", "dynamic-name"),
        ("SELECT * FROM `pg, public`.accounts", "dynamic-name"),
        ("SELECT IDENTIFIER('reflect')('java.lang.System', 'getenv', 'HOME')", "dynamic-name"),
        # the session catalog is nobody's
        ("CREATE TABLE t (a INT)", "session-catalog"),
        ("CREATE TABLE spark_catalog.default.t AS SELECT 1 AS a", "session-catalog"),
        ("SELECT * FROM spark_catalog.default.anything", "session-catalog"),
        ("SELECT * FROM IDENTIFIER('spark_catalog.default.anything')", "session-catalog"),
        ("CREATE DATABASE shared_db", "session-catalog"),
        ("CREATE VIEW v AS SELECT * FROM pg.public.orders", "session-catalog"),
        ("CREATE GLOBAL TEMPORARY VIEW g AS SELECT * FROM pg.public.orders", "global-state"),
        ("SELECT * FROM global_temp.g", "global-state"),
        ("CACHE TABLE pg.public.orders", "cache"),
        ("CACHE LAZY TABLE c AS SELECT * FROM pg.public.orders", "cache"),
        ("UNCACHE TABLE IF EXISTS c", "cache"),
        ("CLEAR CACHE", "cache"),
        # code
        ("SELECT reflect('java.lang.System', 'getenv', 'HOME')", "reflection"),
        ("SELECT JAVA_METHOD('java.lang.System', 'getProperty', 'user.home')", "reflection"),
        ("select try_reflect('java.lang.System', 'load', '/tmp/x.so')", "reflection"),
        ("SELECT `reflect`('java.lang.System', 'getenv', 'HOME')", "reflection"),
        ("SELECT system.builtin.reflect('java.lang.System', 'getenv', 'HOME')", "reflection"),
        ("SELECT * FROM pg.public.orders WHERE customer = reflect('java.lang.System', 'getenv', 'HOME')",
         "reflection"),
        ("SELECT TRANSFORM(customer) USING 'cat' AS (c) FROM pg.public.orders", "transform"),
        (f"EXECUTE IMMEDIATE 'SELECT * FROM text.`{s}`'", "execute-immediate"),
        ("EXECUTE IMMEDIATE 'SELECT 1'", "execute-immediate"),
        (f"LOAD DATA LOCAL INPATH '{s}' INTO TABLE pg.public.orders", "load-data"),
        ("MSCK REPAIR TABLE pg.public.orders", "repair"),
        ("CREATE TABLE lake.default.t (a STRING) ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.OpenCSVSerde'",
         "custom-class"),
        ("ALTER TABLE pg.public.orders SET SERDE 'org.apache.hadoop.hive.serde2.OpenCSVSerde'", "custom-class"),
    ]


ATTACK_IDS = [f"{i:02d}" for i in range(len(attacks(Target(Path("/s"), Path("/o"), PgDatabase("x", "x"), Path("/w")))))]


def refused(statements: list[Any], rule: str) -> Any:
    """The failed statement; it names the rule, its statement and line, and carries no JVM frames."""
    failed = [s for s in statements if s.status == "failed"]
    assert len(failed) == 1, [(s.status, s.error) for s in statements]
    error = failed[0].error
    assert f"(rule: {rule})" in error and RULES[rule] in error, error
    assert error.startswith(f"Statement {failed[0].index + 1}, line {failed[0].line}:"), error
    assert "\tat " not in error and "java.lang" not in error.replace("'java.lang.System'", ""), error
    return failed[0]


@pytest.mark.parametrize("case", ATTACK_IDS)
def test_attack_is_refused_in_run_before_anything_runs(runner: ScriptRunner, target: Target, case: str) -> None:
    script, rule = attacks(target)[int(case)]
    before = target.snapshot()
    result = runner.run(script)
    assert not result.succeeded
    refused(result.statements, rule)
    assert all(s.rows is None for s in result.statements)  # no row of any statement
    assert "succeeded" not in [s.status for s in result.statements]  # a refusal stops the script before it starts
    assert target.snapshot() == before
    assert "fernet-key" not in str(result.as_dict())


@pytest.mark.parametrize("case", ATTACK_IDS)
def test_attack_is_refused_in_validate(runner: ScriptRunner, target: Target, case: str) -> None:
    script, rule = attacks(target)[int(case)]
    before = target.snapshot()
    errors, schema = runner.validate(script)
    assert errors, "validate accepted an attack"
    assert any(f"(rule: {rule})" in e["message"] for e in errors), errors
    assert schema is None or schema == []
    assert target.snapshot() == before


def test_restricted_mode_refusal_reads_like_the_guards(session: Any) -> None:
    """Spark's own refusal (restricted mode, static conf of every engine) becomes the guard's message."""
    assert session.conf.get("spark.sql.restrictedMode.enabled") == "true"
    stmt = split_statements("SELECT 1;\nSELECT reflect('java.lang.System', 'getenv', 'HOME')")[1]
    with pytest.raises(Exception) as raised:
        session.sql(stmt.sql)  # straight to Spark, past the guard
    refusal = SqlGuard.refusal_for_error(raised.value, stmt)
    assert refusal is not None
    assert refusal.message == f"Statement 2, line 2: {RULES['reflection']} (rule: reflection)"


LEGITIMATE = [
    "SELECT * FROM pg.public.orders ORDER BY id",
    "USE CATALOG pg;\nSELECT count(*) AS n FROM public.orders",
    "USE pg.public;\nSELECT count(*) AS n FROM orders",
    "SELECT * FROM IDENTIFIER('pg.public.orders') ORDER BY id",
    "CREATE TEMPORARY VIEW v AS SELECT * FROM pg.public.orders;\nCREATE TEMPORARY VIEW w AS SELECT * FROM v;\n"
    "SELECT count(*) FROM w",
    "CREATE OR REPLACE TEMP VIEW v AS SELECT 1 AS a;\nSELECT * FROM v;\nDROP VIEW v",
    "WITH q AS (SELECT * FROM pg.public.orders) SELECT count(*) FROM q",
    "SELECT * FROM pg.public.orders WHERE id IN (SELECT id FROM pg.public.orders WHERE amount > 15)",
    "EXPLAIN SELECT * FROM pg.public.orders",
    "SET spark.sql.shuffle.partitions=3;\nSET spark.sql.shuffle.partitions;\nRESET spark.sql.shuffle.partitions",
    "SET TIME ZONE 'UTC'",
    "SELECT * FROM range(3)",
    "SELECT explode(array(1, 2)) AS x",
    "SELECT upper(customer), concat_ws(', ', customer, 'x') FROM pg.public.orders",
    "CREATE TABLE pg.public.copy AS SELECT * FROM pg.public.orders;\n"
    "INSERT OVERWRITE TABLE pg.public.copy SELECT * FROM pg.public.orders WHERE id = 1;\n"
    "SELECT count(*) FROM pg.public.copy;\nDROP TABLE pg.public.copy",
    "CREATE TABLE pg.public.ctas_with AS WITH q AS (SELECT id FROM pg.public.orders) SELECT * FROM q;\n"
    "DROP TABLE pg.public.ctas_with",
    "CREATE TABLE lake.default.t AS SELECT * FROM pg.public.orders;\nSELECT count(*) FROM lake.default.t",
    "USE CATALOG lake;\nCREATE TABLE t2 (a INT);\nINSERT INTO t2 VALUES (1);\nSELECT * FROM t2",
    "CREATE TABLE lake.default.tt AS SELECT 1 AS a;\nINSERT INTO lake.default.tt VALUES (2);\n"
    "SELECT count(*) FROM lake.default.tt VERSION AS OF 0;\nSELECT count(*) FROM lake.default.tt TIMESTAMP AS OF now()",
    "SHOW TABLES IN pg.public",
    "DESCRIBE TABLE pg.public.orders",
]


@pytest.mark.parametrize("script", LEGITIMATE)
def test_legitimate_scripts_still_run(runner: ScriptRunner, target: Target, script: str) -> None:
    result = runner.run(script)
    assert result.succeeded, result.error
    errors, _ = runner.validate(script)
    assert errors == []


def test_policy_widens_the_conf_allowlist(session: Any, store: InMemoryCatalogStore) -> None:
    key = "spark.sql.legacy.allowUntypedScalaUDF"
    assert not ScriptRunner(session, store, team=TEAM).run(f"SET {key}=true").succeeded
    wider = GuardPolicy(conf_allowlist=(*GuardPolicy().conf_allowlist, key))
    assert ScriptRunner(session, store, team=TEAM, policy=wider).run(f"SET {key}=true").succeeded
    # a catalog key never, whatever the operator allows
    never = GuardPolicy(conf_allowlist=("spark.sql.catalog.x",))
    refused(ScriptRunner(session, store, team=TEAM, policy=never).run("SET spark.sql.catalog.x=y").statements, "conf")


def test_a_secret_the_user_types_is_masked_in_echoes_results_and_errors(runner: ScriptRunner) -> None:
    """PG_PASSWORD is the catalog's secret (registered when the store was read)."""
    script = f"SELECT '{PG_PASSWORD}' AS p;\nSELECT * FROM pg.public.nope_{len(PG_PASSWORD)} WHERE x = '{PG_PASSWORD}'"
    result = runner.run(script)
    text = str(result.as_dict())
    assert PG_PASSWORD not in text
    assert result.statements[0].rows == [[MASK]]
    assert MASK in result.statements[0].sql
