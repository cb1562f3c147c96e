"""Which materialized view queries refresh incrementally (lakeport_engine/delta/refresh.py), and the reason the
others are refreshed in full: pure query analysis, no Spark."""

from __future__ import annotations

import pytest

from lakeport_engine.delta.refresh import Incremental, incremental_shape
from lakeport_engine.matviews import view_statement_text


@pytest.mark.parametrize(("query", "kind", "keys"), [
    ("SELECT id, v FROM lake.db.t", "append", ()),
    ("SELECT id * 2 AS d, upper(v) AS u FROM lake.db.t WHERE id > 3 AND v IS NOT NULL", "append", ()),
    ("SELECT g, count(*) AS n, sum(k) AS s, min(k) AS lo, max(k) AS hi FROM lake.db.t GROUP BY g", "aggregate",
     ("g",)),
    ("SELECT g, h, count(v) AS n FROM lake.db.t WHERE k > 0 GROUP BY g, h", "aggregate", ("g", "h")),
    ("SELECT count(*) AS n FROM lake.db.t", "aggregate", ()),
])
def test_incremental_shapes(query: str, kind: str, keys: tuple[str, ...]) -> None:
    shape = incremental_shape(query, 1)
    assert isinstance(shape, Incremental), shape
    assert (shape.kind, shape.keys, shape.joins) == (kind, keys, False)


@pytest.mark.parametrize(("query", "sources", "kind", "keys"), [
    ("SELECT a.id, b.v FROM lake.db.t a JOIN lake.db.u b ON a.id = b.id WHERE a.k > 0", 2, "append", ()),
    ("SELECT a.id FROM lake.db.t a INNER JOIN lake.db.u b USING (id) CROSS JOIN lake.db.w c", 3, "append", ()),
    ("SELECT a.id FROM lake.db.t a, lake.db.u b WHERE a.id = b.id", 2, "append", ()),
    ("SELECT b.g, count(*) AS n, sum(a.k) AS s FROM lake.db.t a JOIN lake.db.u b ON a.id = b.id GROUP BY b.g", 2,
     "aggregate", ("g",)),
    ("SELECT a.id FROM lake.db.t a JOIN lake.db.t b ON a.id = b.id", 1, "append", ()),
])
def test_inner_joins_are_incremental_shapes(query: str, sources: int, kind: str, keys: tuple[str, ...]) -> None:
    """Whether the refresh is incremental then depends on which tables changed (tests/delta/test_mv_joins.py)."""
    shape = incremental_shape(query, sources)
    assert isinstance(shape, Incremental), shape
    assert (shape.kind, shape.keys, shape.joins) == (kind, keys, True)


@pytest.mark.parametrize(("query", "sources", "reason"), [
    ("SELECT a.id FROM lake.db.t a LEFT JOIN lake.db.u b ON a.id = b.id", 2, "has a LEFT JOIN"),
    ("SELECT a.id FROM lake.db.t a FULL OUTER JOIN lake.db.u b ON a.id = b.id", 2, "has a FULL OUTER JOIN"),
    ("SELECT a.id FROM lake.db.t a LEFT ANTI JOIN lake.db.u b ON a.id = b.id", 2, "has a LEFT ANTI JOIN"),
    ("SELECT a.id FROM lake.db.t a SEMI JOIN lake.db.u b ON a.id = b.id", 2, "has a SEMI JOIN"),
    ("SELECT DISTINCT g FROM lake.db.t", 1, "has DISTINCT"),
    ("SELECT g, avg(k) AS a FROM lake.db.t GROUP BY g", 1, "the column 'a' is an average ('AVG(k)')"),
    ("SELECT g, sum(k) AS s, avg(k) AS a FROM lake.db.t GROUP BY g", 1, "keep sum(…) and count(…) in the view"),
    ("SELECT g, count(DISTINCT k) AS n FROM lake.db.t GROUP BY g", 1, "the column 'n'"),
    ("SELECT g, count(*) AS n FROM lake.db.t GROUP BY g HAVING count(*) > 1", 1, "has HAVING"),
    ("SELECT id FROM lake.db.t ORDER BY id LIMIT 5", 1, "has ORDER BY"),
    ("SELECT id, row_number() OVER (ORDER BY id) AS r FROM lake.db.t", 1, "window function"),
    ("SELECT id FROM lake.db.t WHERE id IN (SELECT id FROM lake.db.t WHERE k > 1)", 1, "subquery"),
    ("SELECT count(*) AS n FROM lake.db.t GROUP BY g", 1, "GROUP BY key is not a column"),
    ("SELECT g, sum(k) + 1 AS s FROM lake.db.t GROUP BY g", 1, "the column 's'"),
    ("SELECT id FROM lake.db.t UNION ALL SELECT id FROM lake.db.t", 1, "not one SELECT"),
])
def test_full_refresh_reasons(query: str, sources: int, reason: str) -> None:
    shape = incremental_shape(query, sources)
    assert isinstance(shape, str) and reason in shape, shape


def test_merged_values_keep_null_sums_and_skip_nulls_in_min_max() -> None:
    shape = incremental_shape("SELECT g, count(*) AS n, sum(k) AS s, min(k) AS lo FROM lake.db.t GROUP BY g", 1)
    assert isinstance(shape, Incremental)
    assert shape.combine == {"n": "`t`.`n` + `s`.`n`", "s": "coalesce(`t`.`s` + `s`.`s`, `t`.`s`, `s`.`s`)",
                             "lo": "least(`t`.`lo`, `s`.`lo`)"}
    assert shape.merge_on() == "`t`.`g` <=> `s`.`g`"


@pytest.mark.parametrize(("sql", "verb", "query"), [
    ("CREATE MATERIALIZED VIEW a.b.c AS SELECT 1", "create", "SELECT 1"),
    ("create materialized view a.b.c partitioned by (x) tblproperties ('as' = 'select') comment 'AS SELECT 2' "
     "schedule cron '* * * * *' as with q as (select 1) select * from q;", "create",
     "with q as (select 1) select * from q"),
    ("CREATE MATERIALIZED VIEW a.b.c PARTITIONED BY (as) AS (SELECT 3)", "create", "(SELECT 3)"),
    ("REFRESH MATERIALIZED VIEW a.b.c", "refresh", None),
    ("DESC MATERIALIZED VIEW a.b.c", "describe", None),
    ("SHOW MATERIALIZED VIEWS", "show", None),
])
def test_view_statement_text(sql: str, verb: str, query: str | None) -> None:
    found = view_statement_text(sql)
    assert found is not None and (found.verb, found.query) == (verb, query)


@pytest.mark.parametrize("sql", ["CREATE VIEW a AS SELECT 1", "SELECT materialized FROM view", "SHOW VIEWS",
                                 "CREATE TABLE materialized AS SELECT 1"])
def test_other_statements_are_not_view_statements(sql: str) -> None:
    assert view_statement_text(sql) is None
