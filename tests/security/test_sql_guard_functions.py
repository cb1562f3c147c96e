"""The guard's function rules (issue 28) on the suite's real Spark session: built-ins pass with harmless options,
option keys that load a resource are refused in any case or spelling, metastore functions only when an operator
allow-lists them (LAKEPORT_ALLOWED_HIVE_FUNCTIONS), and relation options are read from Spark's plan wherever a
relation sits (INSERT target, view body, CTE, subquery, EXPLAIN, variables)."""

from __future__ import annotations

from typing import Any

import pytest

from lakeport_engine.guard import GuardPolicy, GuardRefusal, GuardScope, SqlGuard
from lakeport_engine.sqltext import split_statements

pytestmark = pytest.mark.spark

SCOPE = GuardScope(catalogs=frozenset({"pg"}), embedded=frozenset({"lake"}), session_catalog_bound=False,
                   current_catalog=lambda: "pg")


def verdict(guard: SqlGuard, sql: str) -> str | None:
    try:
        guard.check(sql, split_statements(sql)[0], SCOPE)
    except GuardRefusal as refusal:
        return refusal.rule
    return None


@pytest.fixture(scope="module")
def guard(spark: Any) -> SqlGuard:
    return SqlGuard(spark.newSession())


@pytest.mark.parametrize("sql", [
    "SELECT from_xml('<a>1</a>', 'a INT', map('mode', 'PERMISSIVE', 'rowTag', 'a'))",
    "SELECT from_json('{\"a\": 1}', 'a INT', map('allowComments', 'true'))",
    "SELECT to_json(named_struct('a', 1), map('pretty', 'true')), to_csv(named_struct('a', 1))",
    "SELECT schema_of_csv('1,abc', map('sep', ',')), upper('x'), builtin.lower('Y'), system.builtin.abs(-1)",
    "SELECT from_csv('1;x', 'a INT, b STRING', map('SEP', ';', 'header', 'false', 'nullValue', '-', 'mode', "
    "'FAILFAST')), from_json('{\"t\": \"2026\"}', 't DATE', map('dateFormat', 'yyyy', 'timeZone', 'UTC'))",
    "SELECT url_decode('a%20b'), parse_url('http://h/p?q=1', 'QUERY'), try_parse_url('x', 'HOST')",
    "SELECT /*+ BROADCAST(o) */ o.id FROM pg.public.orders o",
    "INSERT INTO pg.public.orders SELECT 1, 2",
    "UPDATE pg.public.orders SET amount = 1 WHERE id = 1",
    "CREATE TABLE lake.default.t (a INT) TBLPROPERTIES ('delta.appendOnly' = 'true')",
    "SELECT id FROM pg.public.orders --x\u2028WITH ('url' = 'x')\nWHERE 1 = 1",
])
def test_legitimate_statements_pass(guard: SqlGuard, sql: str) -> None:
    assert verdict(guard, sql) is None


@pytest.mark.parametrize(("sql", "rule"), [
    ("SELECT from_xml(x, 'a INT', map('RowValidationXsdPath', '/etc/x')) FROM pg.public.orders", "function-option"),
    ("SELECT to_xml(named_struct('a', 1), map('rowValidationXSDPath', 'ftp://h/x'))", "function-option"),
    ("SELECT from_csv('1', 'a INT', map('sep', ',', 'descFilePath', '/x'))", "function-option"),
    ("SELECT from_json('1', 'a INT', map_from_arrays(array('avroSchemaUrl'), array('x')))", "function-option"),
    ("SELECT schema_of_avro('\"int\"', map('avroSchemaUrl', 'file:///etc/passwd'))", "function-option"),
    # an allow-list per format: a key no format documents (or a later Spark's, not yet reviewed) is refused by name
    ("SELECT from_json('1', 'a INT', map('mode', 'PERMISSIVE', 'unknownKey', 'x'))", "function-option"),
    ("SELECT to_csv(named_struct('a', 1), map('rowTag', 'a'))", "function-option"),  # XML's, not CSV's
    ("SELECT from_xml('<a/>', 'a INT', map('xsd', '/etc/x'))", "function-option"),
    ("SELECT from_protobuf(CAST('x' AS BINARY), 'M', concat('/etc', '/x'))", "function-option"),
    ("SELECT evil()", "persistent-function"),
    ("SELECT other_db.fn(1)", "persistent-function"),
    ("SELECT system.session.fn(1)", "persistent-function"),
    ("SELECT * FROM pg.public.orders WITH (k = 'v')", "inline-source"),
    ("DECLARE VARIABLE v = (SELECT max(id) FROM pg.public.orders --\rWITH ('url' = 'x'))", "inline-source"),
    ("ALTER VIEW pg.public.v AS SELECT * FROM pg.public.orders WITH ('dbtable' = 'x')", "inline-source"),
    ("MERGE INTO pg.public.orders t USING (SELECT * FROM pg.public.orders WITH ('query' = 'x')) s ON t.id = s.id "
     "WHEN MATCHED THEN DELETE", "inline-source"),
    ("CREATE TABLE pg.public.t (a INT) TBLPROPERTIES ('engine' = 'x')", "table-properties"),
])
def test_refused_with_the_rule(guard: SqlGuard, sql: str, rule: str) -> None:
    assert verdict(guard, sql) == rule


def test_an_operator_allow_lists_a_metastore_function_by_name(spark: Any) -> None:
    allowing = SqlGuard(spark.newSession(), GuardPolicy(allowed_functions=("Sales.Mask_Email",)))
    assert verdict(allowing, "SELECT sales.mask_email('a@b')") is None
    assert verdict(allowing, "SELECT mask_email('a@b')") == "persistent-function"  # another name: another function
    assert verdict(allowing, "SELECT other.mask_email('a@b')") == "persistent-function"


@pytest.mark.parametrize("sql", [
    # found by the guard fuzz: a subquery is both an inner child and a subquery of its plan node
    "SELECT (SELECT max(id) FROM pg.public.orders) AS c FROM pg.public.orders WITH ('url' = 'x')",
    "SELECT (SELECT (SELECT 1 FROM pg.public.orders) FROM pg.public.orders) FROM pg.public.orders WITH ('k' = 'v')",
    "SELECT * FROM pg.public.orders a JOIN pg.public.orders WITH ('dbtable' = 'x') b ON a.id = b.id",
])
def test_options_on_any_relation_are_found_however_often_plans_repeat(guard: SqlGuard, sql: str) -> None:
    assert verdict(guard, sql) == "inline-source"
