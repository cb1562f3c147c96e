"""Which materialized view queries can be refreshed incrementally, and how their changes merge into the view.

Incremental refresh reads only the rows one source appended since the version the view reflects and:
- a filter/projection (`SELECT exprs FROM src [WHERE …]`): appends the query of those rows to the view;
- an aggregate by group keys (`SELECT keys, count/sum/min/max … FROM src [WHERE …] GROUP BY keys`): computes the
  same aggregate over those rows, then groups the view's rows and those by the keys again (sum of counts and sums,
  min of mins, max of maxes: exact because the source only appended; NULL keys form one group, as in GROUP BY)
  and replaces the view with the result in one commit — work in the view's size plus the appended rows.
  (`combine`/`merge_on` give the same as a MERGE by key; measured slower on small views, bench/mv_refresh.py.)
Either may read several tables through inner (or cross) joins: when only one of them has commits since the
refresh and they are appends, the query over its appended rows joined with the other tables at their unchanged
versions is exactly the rows the join gained (an inner join distributes over a union of one side), so the same two
ways apply. Which tables changed is known only at refresh time (`view_statements`); a join where two sides changed,
or one side changed by anything but appends, is refreshed in full, saying so.
Anything else (outer/semi/anti joins, DISTINCT, HAVING, avg, windows, LIMIT, subqueries, …) is refreshed in full;
`incremental_shape` says why, and DESCRIBE MATERIALIZED VIEW shows that reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

# Aggregate → how the view's value and the value over the appended rows combine (`t` view row, `s` new part).
_COMBINE = {
    "count": "`t`.`{c}` + `s`.`{c}`",
    "sum": "coalesce(`t`.`{c}` + `s`.`{c}`, `t`.`{c}`, `s`.`{c}`)",  # NULL (no non-NULL value yet) is no zero
    "min": "least(`t`.`{c}`, `s`.`{c}`)",  # least/greatest skip NULLs, as min/max do
    "max": "greatest(`t`.`{c}`, `s`.`{c}`)",
}

# Aggregate → how the view's rows and the new part's rows of one group aggregate again (sum of counts, …).
_REGROUP = {"count": "sum", "sum": "sum", "min": "min", "max": "max"}


@dataclass(frozen=True)
class Incremental:
    """How a view's query is maintained from appended rows: `append` or `aggregate` (merged by `keys`)."""

    kind: str
    keys: tuple[str, ...] = ()
    combine: dict[str, str] = field(default_factory=dict)  # output column → SQL of its merged value
    regroup: dict[str, str] = field(default_factory=dict)  # output column → aggregate of view ∪ new part values
    joins: bool = False  # reads several tables (or one twice) through inner joins: one static side needed

    def regroup_sql(self, columns: list[str], current: str, part: str) -> str:
        """The view's new rows: its current rows and the new part's, grouped by the keys again (`columns` in the
        view's order; `current`/`part` temp views). Costs the view's size plus the appended rows, not the source's."""
        quoted = ", ".join(f"`{c}`" for c in columns)
        select = ", ".join(f"{self.regroup[c]} AS `{c}`" if c in self.regroup else f"`{c}`" for c in columns)
        group = f" GROUP BY {', '.join(f'`{k}`' for k in self.keys)}" if self.keys else ""
        return (f"SELECT {select} FROM (SELECT {quoted} FROM `{current}` UNION ALL SELECT {quoted} FROM `{part}`)"
                f" AS `__lp_regroup`{group}")

    def merge_on(self) -> str:
        """The MERGE condition matching a view row with a new group (true for a global aggregate)."""
        return " AND ".join(f"`t`.`{k}` <=> `s`.`{k}`" for k in self.keys) or "true"


def incremental_shape(query: str, source_count: int) -> Incremental | str:
    """The incremental plan of `query`, or the reason it must be refreshed in full."""
    if source_count < 1:
        return "the query reads no Delta table"
    try:
        tree = sqlglot.parse_one(query, dialect="spark")
    except (ParseError, TokenError):
        return "the query could not be analysed"
    if not isinstance(tree, exp.Select):
        return f"the query is a {type(tree).__name__.upper()}, not one SELECT"
    for arg, what in (("with", "WITH"), ("distinct", "DISTINCT"), ("having", "HAVING"),
                      ("order", "ORDER BY"), ("limit", "LIMIT"), ("offset", "OFFSET"), ("qualify", "QUALIFY"),
                      ("laterals", "LATERAL VIEW")):
        if tree.args.get(arg):
            return f"the query has {what}"
    joins = tree.args.get("joins") or []
    for join in joins:
        if _join_kind(join) is not None:
            return (f"the query has a {_join_kind(join)} JOIN (incremental refresh joins only with INNER or CROSS "
                    "JOIN, where the rows a side appended meet the other sides' unchanged rows)")
    if source_count > 1 and not joins:
        return f"the query reads {source_count} Delta tables without joining them"
    if len(list(tree.find_all(exp.Select))) > 1:
        return "the query has a subquery"
    if any(True for _ in tree.find_all(exp.Window)):
        return "the query has a window function"
    if any(isinstance(f, exp.Explode | exp.Posexplode | exp.Inline) for f in tree.find_all(exp.Func)):
        return "the query has a generator (explode)"
    group = tree.args.get("group")
    aggregates = list(tree.find_all(exp.AggFunc))
    if group is None and not aggregates:
        return Incremental("append", joins=bool(joins))
    keys: list[str] = []
    key_sql = {g.sql(dialect="spark") for g in (group.expressions if group is not None else [])}
    if group is not None and (group.args.get("rollup") or group.args.get("cube")
                              or group.args.get("grouping_sets")):
        return "the query groups by ROLLUP/CUBE/GROUPING SETS"
    seen_keys: set[str] = set()
    combine: dict[str, str] = {}
    regroup: dict[str, str] = {}
    for item in tree.expressions:
        name = item.alias_or_name
        if not name or isinstance(item, exp.Star):
            return "a column of the query has no name (give it an alias)"
        inner = item.this if isinstance(item, exp.Alias) else item
        if inner.sql(dialect="spark") in key_sql:
            keys.append(name)
            seen_keys.add(inner.sql(dialect="spark"))
            continue
        kind = _mergeable(inner)
        if isinstance(inner, exp.Avg):  # the view's columns are what readers see: no hidden sum/count beside them
            return (f"the column '{name}' is an average ('{inner.sql(dialect='spark')}'), which cannot be merged "
                    "from the view's rows alone; for incremental refresh keep sum(…) and count(…) in the view and "
                    "divide them when reading it")
        if kind is None:
            return (f"the column '{name}' is not a group key nor count/sum/min/max of plain arguments "
                    f"('{inner.sql(dialect='spark')}')")
        combine[name] = _COMBINE[kind].format(c=name)
        regroup[name] = f"{_REGROUP[kind]}(`{name}`)"
    if seen_keys != key_sql:
        return "a GROUP BY key is not a column of the query (the view could not be merged by it)"
    return Incremental("aggregate", tuple(keys), combine, regroup, joins=bool(joins))


def _join_kind(join: exp.Join) -> str | None:
    """None for an inner or cross join (incremental), else its kind as written (LEFT, FULL OUTER, SEMI, …)."""
    side, kind = (join.args.get("side") or "").upper(), (join.args.get("kind") or "").upper()
    if not side and kind in ("", "INNER", "CROSS"):
        return None
    return " ".join(p for p in (side, kind) if p)


def _mergeable(node: exp.Expression) -> str | None:
    """count | sum | min | max when `node` is that aggregate without DISTINCT or FILTER, else None."""
    kinds: dict[type[exp.Expression], str] = {exp.Count: "count", exp.Sum: "sum", exp.Min: "min", exp.Max: "max"}
    kind = kinds.get(type(node))
    if kind is None:
        return None
    if any(isinstance(n, exp.Distinct) for n in node.find_all(exp.Distinct)):
        return None
    if sum(1 for _ in node.find_all(exp.AggFunc)) > 1:
        return None  # an aggregate inside an aggregate
    return kind
