"""Row filters and column masks on the tables of JDBC and Hive catalogs (docs/access.md, "Enforcement").

Spark reads those tables itself (its JDBCTableCatalog, the Hive session catalog), so no connector makes a snapshot
view of them. The mechanism is the lake connectors' own: the statement is read with their `StatementReader`, each
protected table it reads becomes a temp view over `RowPolicy.protect(spark.table(…))` and the statement is rewritten
onto the views (`delta.statements.rewrite`), so the filter and masks sit below every view, CTE, subquery and join the
user writes. Two checks then have the last word, so a read the rewrite missed is refused, never run unfiltered:
Spark's parser on the rewritten statement (`SqlGuard.check_protected_reads`: no protected table left but as an
INSERT target) and, where a Hive table is protected, Spark's analyzed plan (`unprotected_hive_reads`: a Hive view
over the table reads it outside the policy).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from lakeport_engine.delta.errors import DeltaConnectorError
from lakeport_engine.delta.statements import Reference, StatementReader, rewrite
from lakeport_engine.row_policy import RowPolicy, RowPolicyRefusal

VIEW_PREFIX = "__lp_rows_"  # `__lp_`: a name users may not write (the guard's reserved-name rule)
# Catalog types Spark reads by itself: their protected tables get a policy view here.
SPARK_READ_TYPES = frozenset({"jdbc", "hive"})


@dataclass(frozen=True)
class SparkReadCatalog:
    """A bound JDBC or Hive catalog as the statement names it: its team name and default database."""

    team_name: str
    default_database: str


@dataclass
class ProtectedStatement:
    """A statement rewritten onto policy views (`views`: the temp views made, `keep`: a temp view defined over them
    refers to them by name later, so they stay for the session)."""

    sql: str
    views: list[str] = field(default_factory=list)
    keep: bool = False


def substitute(spark: Any, sql: str, rows: RowPolicy, catalogs: Mapping[str, SparkReadCatalog], *,  # noqa: ANN401
               current_catalog: str | None, current_database: str | None) -> ProtectedStatement:
    """`sql` (Spark names) with each protected table of `catalogs` (keyed by Spark catalog name) it reads replaced by a
    temp view of the table with its filter and masks applied; unchanged when it reads none. A statement the reader
    cannot read is left as it is (the parse check after it refuses it if it still reads a protected table)."""
    if not rows or not catalogs:
        return ProtectedStatement(sql)
    session = spark._jsparkSession.sessionState().catalog()
    reader = StatementReader(dict(catalogs), current_catalog=current_catalog, current_database=current_database,
                             table_format="spark", is_temp_view=lambda name: bool(session.getTempView(name).isDefined()))
    text = sql.strip().rstrip(";").strip()
    try:
        references, keep = _reads(reader, text)
    except (DeltaConnectorError, ParseError, TokenError):
        return ProtectedStatement(sql)
    protected = [r for r in references if rows.get(_team_target(r, catalogs)) is not None]
    if not protected:
        return ProtectedStatement(sql)
    views: dict[tuple[Any, ...], str] = {}
    try:
        for reference in protected:
            if reference.snapshot_key in views:
                continue
            target = _team_target(reference, catalogs)
            if reference.version is not None or reference.timestamp_sql is not None or reference.tag is not None:
                raise RowPolicyRefusal(f"time travel of table '{'.'.join(target)}' is not allowed")
            ref = reference.ref
            name = ".".join(_quote(p) for p in (ref.catalog, ref.database, ref.table))
            view = f"{VIEW_PREFIX}{uuid.uuid4().hex[:12]}"
            rows.protect(spark.table(name), target).createOrReplaceTempView(view)
            views[reference.snapshot_key] = view
    except BaseException:
        drop(spark, list(views.values()))
        raise
    return ProtectedStatement(rewrite(text, protected, views), list(views.values()), keep=keep)


def _reads(reader: StatementReader, text: str) -> tuple[list[Reference], bool]:
    """The tables `text` reads (a write target is not a read) and whether a temp view or cache is defined over them."""
    tree = sqlglot.parse_one(text, dialect="spark")
    if isinstance(tree, exp.Command):  # EXPLAIN …: the reader finds the statement it explains
        plan = reader.read(text)
        return (plan.references if plan is not None else []), False
    target: exp.Expr | None = None
    if isinstance(tree, exp.Insert | exp.Create | exp.Merge | exp.Update | exp.Delete):
        target = tree.this.this if isinstance(tree.this, exp.Schema) else tree.this
    elif isinstance(tree, exp.TruncateTable) and tree.expressions:
        target = tree.expressions[0]
    keep = isinstance(tree, exp.Cache)
    if isinstance(tree, exp.Create) and str(tree.args.get("kind") or "").upper() == "VIEW":
        props = (tree.args.get("properties") or exp.Properties(expressions=[])).expressions
        if not any(isinstance(p, exp.TemporaryProperty) for p in props):
            return [], False  # a view of the metastore would read the table without its policy: the checks refuse it
        keep, target = True, None  # the temp view refers to the policy views by name
    return reader.references(text, tree, sqlglot.tokenize(text, dialect="spark"), skip=target), keep


def drop(spark: Any, views: list[str]) -> None:  # noqa: ANN401 - a SparkSession
    """Drop the policy views of one statement (the analyzed plan has inlined them)."""
    for view in views:
        spark.catalog.dropTempView(view)


def _team_target(reference: Reference, catalogs: Mapping[str, SparkReadCatalog]) -> tuple[str, str, str]:
    ref = reference.ref
    catalog = catalogs.get(ref.catalog)
    return ((catalog.team_name if catalog else ref.catalog).lower(), ref.database.lower(), ref.table.lower())


def _quote(part: str) -> str:
    return "`" + part.replace("`", "``") + "`"


# ---- the analyzed plan (Hive) ----------------------------------------------------------------------------------
def unprotected_hive_reads(spark: Any, sql: str) -> Iterator[tuple[str, str]]:  # noqa: ANN401 - a SparkSession
    """`(database, table)` of every Hive table Spark's analyzed plan of `sql` reads outside a policy view (a Hive view
    over it, a name the rewrite did not see); the target of an INSERT is a write, not a read. Analyzes, never runs."""
    jsession = spark._jsparkSession
    state = jsession.sessionState()
    mode = spark.sparkContext._jvm.org.apache.spark.sql.execution.CommandExecutionMode.SKIP()
    analyzed = state.executePlan(state.sqlParser().parsePlan(sql), mode).analyzed()
    yield from _hive_relations(json.loads(analyzed.toJSON()), shielded=False, root=True)


def _hive_relations(flat: list[dict[str, Any]], *, shielded: bool, root: bool = False) -> Iterator[tuple[str, str]]:
    """Walk toJSON()'s pre-order list (children by count; subqueries and nested plans in fields)."""
    stack: list[list[Any]] = []  # [children left, shielded, skip next child]
    for position, node in enumerate(flat):
        while stack and stack[-1][0] == 0:
            stack.pop()
        inside = stack[-1][1] if stack else shielded
        skip = bool(stack and stack[-1][2])
        if stack:
            stack[-1][0] -= 1
            stack[-1][2] = False
        name = str(node.get("class", "")).rsplit(".", 1)[-1]
        here = inside or skip or _is_policy_view(node, name)
        if not here and name in ("HiveTableRelation", "LogicalRelation"):
            ident = _identifier(node.get("tableMeta") or node.get("catalogTable"))
            if ident is not None:
                yield ident
        for key, value in node.items():
            if key != "table":  # a V2 write's target relation (a field, not a child): written, not read
                for plan in _nested_plans(value):
                    yield from _hive_relations(plan, shielded=here)
        write_target = root and position == 0 and name == "InsertIntoStatement"  # its first child is the target
        stack.append([int(node.get("num-children", 0)), here, write_target])


def _is_policy_view(node: dict[str, Any], name: str) -> bool:
    if name != "View":
        return False
    desc = node.get("desc")
    ident = desc.get("identifier") if isinstance(desc, dict) else None
    return isinstance(ident, dict) and str(ident.get("table", "")).startswith(VIEW_PREFIX)


def _identifier(value: Any) -> tuple[str, str] | None:  # noqa: ANN401 - toJSON()'s CatalogTable
    if not isinstance(value, dict):
        return None
    ident = value.get("identifier")
    if not isinstance(ident, dict) or "table" not in ident:
        return None
    return str(ident.get("database") or "default").lower(), str(ident["table"]).lower()


def _nested_plans(value: Any) -> Iterator[list[dict[str, Any]]]:  # noqa: ANN401 - toJSON()'s field values
    """Plans held in a node's field: a subquery expression's plan, a command's query."""
    if isinstance(value, list) and value and isinstance(value[0], dict):
        if ".plans.logical." in str(value[0].get("class", "")) and "num-children" in value[0]:
            yield value
            return
        for item in value:
            yield from _nested_plans(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _nested_plans(item)


def hive_refusal(spark: Any, sql: str, rows: RowPolicy, hive: str | None) -> None:  # noqa: ANN401
    """Refuse `sql` when its analyzed plan reads a protected table of Hive catalog `hive` outside its policy view."""
    if hive is None or not any(t[0] == hive for t in rows.tables):
        return
    for database, table in unprotected_hive_reads(spark, sql):
        if rows.get((hive, database, table)) is not None:
            raise RowPolicyRefusal(f"a read of table '{hive}.{database}.{table}' outside its row filter and masks "
                                   "(through a view of the metastore?) is not allowed")

__all__ = ["SPARK_READ_TYPES", "VIEW_PREFIX", "ProtectedStatement", "SparkReadCatalog", "drop", "hive_refusal",
           "substitute", "unprotected_hive_reads"]
