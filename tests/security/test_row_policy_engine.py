"""Row filters and column masks in the engine (issue 34; docs/access.md, "Row filters and column masks").

The caller's document is the platform's own (`grants.selectors.access_document` over filters and masks stored in the
database, bound for the caller), and the statements run through the script runner as an engine runs them (resolver,
guard, embedded Delta connector) on one Spark session:

- an attack matrix as alice (developer, SELECT and MODIFY on `lake.sales.orders`, everything on `lake.scratch`):
  every answer — rows and errors — is scanned for the canary (in every masked value and every filtered row) and for
  a marker that only the filter's text holds;
- a Hypothesis differential: generated queries over the filtered and masked table return exactly what the same
  query returns, unrestricted, over `lake.sales.oracle`, the table pre-filtered and pre-masked as alice in Python.
"""

from __future__ import annotations

import json
from typing import Any

import pyarrow as pa
import pytest
from deltalake import write_deltalake
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grants.models import ColumnMask, Grant, Group, RowFilter
from grants.selectors import access_document
from lakeport_engine.script import ScriptRunner
from lakeport_engine.store import CatalogEntry, InMemoryCatalogStore
from teams.models import Role
from tests.factories import MembershipFactory, TeamFactory, UserFactory
from tests.streaming import support

pytestmark = [pytest.mark.spark]
stream_spark = support.stream_spark  # the suite's session, or a plain local one for a lone run

CANARY = "canary"
MARKER = "zq9filtermark"  # only in the filter's text
TABLE = "lake.sales.orders"
FILTER = f"(region = 'EU' OR (is_member('apac') AND region = 'APAC')) AND note <> '{MARKER}'"
MASKS = {
    "email": "CASE WHEN is_member('support') THEN email ELSE concat(substr(email, 1, 2), '***') END",
    "amount": "CASE WHEN region = 'EU' OR current_user() = 'policy-nobody' THEN amount END",  # a mask over another column
}
ROWS = [  # (id, region, email, note, amount); what alice may not see holds the canary
    (1, "EU", f"ab.{CANARY}1@x.eu", "11", 10), (2, "US", f"cd.{CANARY}2@x.us", f"{CANARY}-row-2", 20),
    (3, "EU", f"ef.{CANARY}3@x.eu", "33", 30), (4, "APAC", f"gh.{CANARY}4@x.sg", "44", 40),
    (5, "US", f"ij.{CANARY}5@x.us", f"{CANARY}-row-5", 50), (6, "APAC", f"ab.{CANARY}6@x.jp", "66", None),
    (7, "EU", f"kl.{CANARY}7@x.eu", "77", 70), (8, "LATAM", f"mn.{CANARY}8@x.br", f"{CANARY}-row-8", 80),
]
SEEN = [(i, r, e[:2] + "***", n, a if r == "EU" else None) for i, r, e, n, a in ROWS if r in ("EU", "APAC")]


def _table(rows: list[tuple[Any, ...]]) -> pa.Table:
    return pa.table({"id": pa.array([r[0] for r in rows], pa.int64()), "region": [r[1] for r in rows],
                     "email": [r[2] for r in rows], "note": [r[3] for r in rows],
                     "amount": pa.array([r[4] for r in rows], pa.int64())})


class Caller:
    """Runs scripts as one caller (their document, or none) on its own session of the shared SparkSession (kept for
    the module: temp views of one case stay, so each case names its own)."""

    def __init__(self, spark: Any, entries: list[CatalogEntry], doc: Any) -> None:
        self.runner = ScriptRunner(spark.newSession(), InMemoryCatalogStore(entries, team="acme"), team="acme",
                                   access=doc)

    def run(self, script: str) -> Any:
        result = self.runner.run(script)
        text = json.dumps(result.as_dict(), default=str)
        assert CANARY not in text.lower() and MARKER not in text, text[:3000]  # every answer, rows and errors
        return result

    def rows(self, sql: str) -> list[list[Any]]:
        result = self.run(sql)
        assert result.succeeded, (sql, result.error)
        return result.statements[-1].rows or []

    def refused(self, sql: str) -> str:
        result = self.run(sql)
        assert not result.succeeded, sql
        return str(result.error["message"])


_WORLD: dict[str, Caller] = {}


@pytest.fixture
def world(stream_spark: Any, db: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Caller]:
    """Built by the first test of the module and kept (the documents are plain data; the platform rows roll back with
    that test): every case reads the same tables, and the few that write only write tables of their own."""
    if _WORLD:
        return _WORLD
    lake = tmp_path_factory.mktemp("policy") / "lake"
    write_deltalake(str(lake / "sales" / "orders"), _table(ROWS))  # version 0: before any filter
    write_deltalake(str(lake / "sales" / "oracle"), _table(SEEN))
    write_deltalake(str(lake / "scratch" / "sink"), _table([(0, "-", "-", "-", 0)]))
    team = TeamFactory(name="policy-acme")
    users = {name: UserFactory(username=f"policy-{name}") for name in ("admin", "alice")}
    for username, role in (("admin", Role.ADMIN), ("alice", Role.DEVELOPER)):
        MembershipFactory(team=team, user=users[username], role=role)
    Group.objects.create(team=team, name="apac").members.add(users["alice"])
    Group.objects.create(team=team, name="support")
    for securable, privilege in ((TABLE, "SELECT"), (TABLE, "MODIFY"), ("lake.scratch", "MANAGE"),
                                 ("lake.sales.oracle", "SELECT")):
        Grant.objects.create(team=team, securable=securable, catalog="lake", privilege=privilege, user=users["alice"])
    RowFilter.objects.create(team=team, table=TABLE, catalog="lake", expression=FILTER)
    for column, expression in MASKS.items():
        ColumnMask.objects.create(team=team, table=TABLE, catalog="lake", column=column, expression=expression)
    entries = [CatalogEntry("lake", "delta", {"warehouse": str(lake), "default-database": "sales"})]
    _WORLD.update({name: Caller(stream_spark, entries, access_document(team=team, user=user))
                   for name, user in users.items()})
    return _WORLD


SEEN_ROWS = [list(r) for r in SEEN]

# (query as alice, expected rows | a text the refusal must contain)
READS: list[tuple[str, Any]] = [
    (f"SELECT * FROM {TABLE} ORDER BY id", SEEN_ROWS),
    (f"SELECT count(*), sum(amount), count(amount) FROM {TABLE}", [[5, 110, 3]]),
    (f"WITH c AS (SELECT * FROM {TABLE}) SELECT id, email FROM c WHERE region NOT IN ('EU', 'APAC')", []),
    (f"SELECT id FROM (SELECT * FROM (SELECT * FROM {TABLE}) a WHERE note LIKE '{CANARY[:3]}%') b", []),
    (f"SELECT a.id, b.note FROM {TABLE} a JOIN {TABLE} b ON a.id + 1 = b.id ORDER BY a.id",
     [[3, "44"], [6, "77"]]),
    (f"SELECT a.id, b.id FROM {TABLE} a FULL JOIN {TABLE} b ON a.id = b.id WHERE a.id IS NULL OR b.id IS NULL", []),
    (f"SELECT id FROM {TABLE} WHERE id IN (SELECT id FROM {TABLE} WHERE region = 'US')", []),
    (f"SELECT DISTINCT region FROM {TABLE} UNION SELECT note FROM {TABLE} EXCEPT SELECT note FROM {TABLE} "
     "ORDER BY 1", [["APAC"], ["EU"]]),
    (f"SELECT * FROM (SELECT note FROM {TABLE} INTERSECT SELECT note FROM {TABLE} VERSION AS OF 0) ORDER BY 1",
     [["11"], ["33"], ["44"], ["66"], ["77"]]),
    (f"SELECT id, lag(note) OVER (ORDER BY id), count(*) OVER (PARTITION BY region) FROM {TABLE} WHERE id < 5 "
     "ORDER BY id", [[1, None, 2], [3, "11", 2], [4, "33", 1]]),
    (f"SELECT max(email), min(email), count(DISTINCT email), max(length(email)), sort_array(collect_set(email)) "
     f"FROM {TABLE} WHERE region = 'EU'", [["kl***", "ab***", 3, 5, ["ab***", "ef***", "kl***"]]]),
    (f"SELECT count(*) FROM {TABLE} WHERE email LIKE '%x.us' OR region IN ('US', 'LATAM')", [[0]]),
    (f"SELECT * FROM (SELECT * FROM {TABLE} VERSION AS OF 0) ORDER BY id", SEEN_ROWS),  # from before the filter
    (f"SELECT count(*) FROM {TABLE} TIMESTAMP AS OF '2000-01-01'", [[5]]),
    (f"SELECT id FROM {TABLE} WHERE CAST(note AS INT) > 0 ORDER BY id", [[1], [3], [4], [6], [7]]),  # filter first
    (f"SELECT raise_error(note) FROM {TABLE} WHERE id = 2", []),
    (f"SELECT assert_true(id < 7, note) FROM {TABLE}", "77"),  # its error holds a visible row's value only
    (f"SELECT nope FROM {TABLE}", "nope"),  # Spark's message without the plan under it (which prints the filter)
    (f"SELECT CAST(email AS INT) FROM {TABLE}", "***"),  # ANSI's cast error shows a masked value
    (f"EXPLAIN SELECT * FROM {TABLE}", "rule: row-policy"),
    (f"EXPLAIN FORMATTED SELECT count(*) FROM (SELECT * FROM {TABLE})", "rule: row-policy"),
    (f"SELECT input_file_name(), id FROM {TABLE}", "rule: row-policy"),
    (f"SELECT input_file_block_start() FROM {TABLE}", "rule: row-policy"),
    (f"SELECT _metadata.file_path FROM {TABLE}", "rule: row-policy"),
    (f"SELECT t._metadata FROM {TABLE} t", "rule: row-policy"),
    (f"DESCRIBE HISTORY {TABLE}", "rule:"),
    (f"UPDATE {TABLE} SET note = 'x' WHERE region = 'US'", "rule: row-policy"),
    (f"DELETE FROM {TABLE} WHERE region = 'US'", "rule: row-policy"),
    (f"INSERT OVERWRITE {TABLE} SELECT * FROM {TABLE}", "rule: row-policy"),
    (f"TRUNCATE TABLE {TABLE}", "rule: row-policy"),
    (f"MERGE INTO {TABLE} t USING (SELECT 2 AS id) s ON t.id = s.id WHEN MATCHED THEN DELETE", "rule: row-policy"),
    (f"CREATE TEMPORARY VIEW w AS SELECT * FROM {TABLE};\nEXPLAIN SELECT * FROM w", "rule: row-policy"),
    (f"CREATE TEMPORARY VIEW w2 AS SELECT * FROM {TABLE};\nSELECT _metadata FROM w2", "rule: row-policy"),
    (f"CREATE TEMPORARY VIEW v AS SELECT * FROM {TABLE};\nSELECT count(*), max(email) FROM v WHERE region = 'US'",
     [[0, None]]),
    (f"CREATE TABLE lake.scratch.stolen AS SELECT * FROM {TABLE};\nSELECT * FROM lake.scratch.stolen ORDER BY id",
     SEEN_ROWS),
    (f"INSERT OVERWRITE lake.scratch.sink SELECT * FROM {TABLE} VERSION AS OF 0;\n"
     "SELECT * FROM lake.scratch.sink ORDER BY id", SEEN_ROWS),
    ("CREATE TABLE lake.scratch.mine (id BIGINT, email STRING);\n"
     f"MERGE INTO lake.scratch.mine t USING {TABLE} s ON t.id = s.id WHEN NOT MATCHED THEN INSERT (id, email) "
     "VALUES (s.id, s.email);\nSELECT count(*), max(email) FROM lake.scratch.mine", [[5, "kl***"]]),
]


@pytest.mark.parametrize("case", range(len(READS)))
def test_alice_reads_only_filtered_rows_and_masked_values(world: dict[str, Caller], case: int) -> None:
    sql, expected = READS[case]
    if isinstance(expected, list):
        assert world["alice"].rows(sql) == expected, sql
    else:
        message = world["alice"].refused(sql)
        assert expected in message, message


def test_the_filter_applies_to_admins_too_and_they_may_explain(world: dict[str, Caller]) -> None:
    admin = world["admin"]
    assert admin.runner.rows.get(("lake", "sales", "orders")) is not None  # the document carries it for admins
    # admin is in neither group: the filter keeps EU rows, the masks hide emails (the expressions decide)
    assert admin.rows(f"SELECT id, email FROM {TABLE} ORDER BY id") == [[1, "ab***"], [3, "ef***"], [7, "kl***"]]
    plan = admin.runner.run(f"EXPLAIN SELECT * FROM {TABLE}")  # a manager may read the expressions
    assert plan.succeeded, plan.error
    message = admin.refused(f"CREATE MATERIALIZED VIEW lake.scratch.mv AS SELECT region, count(*) AS n FROM {TABLE} "
                            "GROUP BY region")
    assert "materialized view" in message and "rule: row-policy" in message, message


COLUMNS = ["id", "region", "email", "note", "amount"]
EXPRESSIONS = [*COLUMNS, "upper(email)", "length(email)", "amount * 2", "coalesce(amount, -1)", "concat(region, email)",
               "substr(note, 1, 1)", "amount IS NULL"]
PREDICATES = ["amount > 15", "email LIKE 'a%'", "region <> 'EU'", "amount IS NULL", "id % 2 = 0", "note = '11'",
              "email = 'ab***'", "length(note) > 2", "region IN ('US', 'LATAM')", "id BETWEEN 2 AND 6"]


@st.composite
def queries(draw: st.DrawFn) -> str:
    """A query over table `T` (the filtered one or the oracle): projections, predicates, aggregates, a self-join,
    set operations, windows and a CTE."""
    where = ""
    if draw(st.booleans()):
        parts = draw(st.lists(st.sampled_from(PREDICATES), min_size=1, max_size=3))
        where = " WHERE " + f" {draw(st.sampled_from(['AND', 'OR']))} ".join(f"({p})" for p in parts)
    items = ", ".join(draw(st.lists(st.sampled_from(EXPRESSIONS), min_size=1, max_size=4, unique=True)))
    shape = draw(st.sampled_from(["plain", "aggregate", "join", "union", "window", "cte"]))
    if shape == "aggregate":
        key = draw(st.sampled_from(["region", "email", "note", "amount IS NULL"]))
        return (f"SELECT {key}, count(*), max(email), sum(amount), count(DISTINCT note) FROM T{where} GROUP BY {key}")
    if shape == "join":
        offset = draw(st.integers(0, 3))
        return f"SELECT a.id, b.email, b.amount FROM (SELECT * FROM T{where}) a JOIN T b ON a.id = b.id + {offset}"
    if shape == "union":
        op = draw(st.sampled_from(["UNION", "UNION ALL", "EXCEPT", "INTERSECT"]))
        return f"SELECT email FROM T{where} {op} SELECT concat(region, '***') FROM T"
    if shape == "window":
        return f"SELECT id, row_number() OVER (PARTITION BY region ORDER BY id), sum(amount) OVER () FROM T{where}"
    if shape == "cte":
        return f"WITH c AS (SELECT {items} FROM T{where}) SELECT * FROM c"
    return f"SELECT {items} FROM T{where}"


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(query=queries())
def test_queries_over_the_protected_table_equal_the_prefiltered_oracle(world: dict[str, Caller], query: str) -> None:
    protected = world["alice"].run(query.replace("FROM T", f"FROM {TABLE}"))
    oracle = world["alice"].run(query.replace("FROM T", "FROM lake.sales.oracle"))
    assert protected.succeeded == oracle.succeeded, (query, protected.error, oracle.error)
    if oracle.succeeded:
        got, want = protected.statements[-1].rows or [], oracle.statements[-1].rows or []
        assert sorted(map(repr, got)) == sorted(map(repr, want)), query
