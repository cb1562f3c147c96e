"""Lineage of Spark SQL statements: the datasets a statement read and wrote, and where each output column came from.

Read from Spark's analyzed plan (`QueryExecution.analyzed`, serialised once with `toJSON()`): the plan Spark builds
to run a statement anyway, so capture analyses nothing twice. Each dataset is named twice: by the team's catalog
(`pg_sales.shop.orders`) and by its physical identity in the OpenLineage naming scheme (namespace
`postgres://host:port`, name `database.schema.table`; `mysql://host:port` + `database.table`;
`hive://host:port` + `database.table`; Delta: `file` + the table path), so two catalogs on one table meet in one
node. Temp views and CTEs are followed to their tables; the embedded Delta connector reads through temp views
whose names it reports, with the snapshot version it read. Datasets are named in `datasets.py`.

`plan_lineage(plan, context)` takes any analyzed plan (a py4j LogicalPlan) and is what a streaming query calls
with its own analyzed plan. Imports no Django; never carries a secret (identities are built from host, port and
names only, never from a JDBC URL's parameters).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, cast

from lakeport_engine.datasets import CatalogInfo, Dataset, hive_dataset, jdbc_dataset
from lakeport_engine.protocol import LineageDataset, LineageDocument

logger = logging.getLogger("lakeport.lineage")

IDENTITY, EXPRESSION, AGGREGATION = "identity", "expression", "aggregation"
_KIND_RANK = {IDENTITY: 0, EXPRESSION: 1, AGGREGATION: 2}

# Roots that write a table; the field holding their query (an index into children, or a nested plan).
_DSV2_WRITES = frozenset({"AppendData", "OverwriteByExpression", "OverwritePartitionsDynamic"})
_CTAS = frozenset({"CreateTableAsSelect", "ReplaceTableAsSelect"})
_V1_WRITES = {  # class → field holding the CatalogTable written
    "InsertIntoHadoopFsRelationCommand": "catalogTable",
    "InsertIntoHiveTable": "table",
    "CreateHiveTableAsSelectCommand": "tableDesc",
    "OptimizedCreateHiveTableAsSelectCommand": "tableDesc",
    "CreateDataSourceTableAsSelectCommand": "table",
}
_LEAVES = frozenset({"DataSourceV2Relation", "LogicalRelation", "HiveTableRelation", "LogicalRDD", "LocalRelation",
                     "StreamingRelation", "StreamingRelationV2"})  # streaming sources read through platform views
_AGGREGATES = frozenset({"AggregateExpression", "WindowExpression"})
_PASS_THROUGH = frozenset({"Alias", "Cast", "UpCast", "AttributeReference"})


# ---- records ---------------------------------------------------------------------------------------------
@dataclass
class ColumnLineage:
    """Output column `column` of dataset `dataset` (a key) ← input columns `(dataset key, column)`."""

    dataset: str
    column: str
    inputs: list[tuple[str, str]]
    kind: str


@dataclass
class StatementLineage:
    """What one statement read and wrote, and its column lineage (only for written datasets)."""

    inputs: list[Dataset] = field(default_factory=list)
    outputs: list[Dataset] = field(default_factory=list)
    columns: list[ColumnLineage] = field(default_factory=list)

    def as_dict(self) -> LineageDocument:
        """JSON-ready form (what the engine sends to the worker with the statement's result: the protocol's
        `LineageDocument`)."""
        return {"inputs": [cast(LineageDataset, asdict(d)) for d in self.inputs],
                "outputs": [cast(LineageDataset, asdict(d)) for d in self.outputs],
                "columns": [{"dataset": c.dataset, "column": c.column, "kind": c.kind,
                             "inputs": [list(i) for i in c.inputs]} for c in self.columns]}

    @property
    def empty(self) -> bool:
        return not (self.inputs or self.outputs)

    def merge(self, other: StatementLineage) -> None:
        """Add `other`'s datasets (one entry per key and version) and column lineage."""
        for mine, theirs in ((self.inputs, other.inputs), (self.outputs, other.outputs)):
            seen = {(d.key, d.version) for d in mine}
            mine.extend(d for d in theirs if (d.key, d.version) not in seen)
        self.columns.extend(other.columns)


@dataclass
class LineageContext:
    """The session's catalogs by Spark catalog name, and the platform's views of the current statement (Delta
snapshots, stream sources) with the dataset each reads."""

    catalogs: Mapping[str, CatalogInfo]
    views: Mapping[str, Dataset] = field(default_factory=dict)  # temp views the platform made over a known table


# ---- plan trees --------------------------------------------------------------------------------------------
@dataclass
class _Node:
    data: dict[str, Any]
    children: list[_Node]

    @property
    def name(self) -> str:
        return str(self.data["class"]).rsplit(".", 1)[-1]


def _tree(flat: list[dict[str, Any]]) -> _Node | None:
    """Rebuild a tree from toJSON()'s pre-order list (each node says how many children follow)."""
    if not flat:
        return None
    position = 0

    def build() -> _Node:
        nonlocal position
        data = flat[position]
        position += 1
        return _Node(data, [build() for _ in range(int(data.get("num-children", 0)))])

    return build()


def _is_plan(value: Any) -> bool:
    return (isinstance(value, list) and bool(value) and isinstance(value[0], dict)
            and ".plans.logical." in str(value[0].get("class", "")) or (
                isinstance(value, list) and bool(value) and isinstance(value[0], dict)
                and ".execution." in str(value[0].get("class", "")) and "num-children" in value[0]))


def _expr_id(node: dict[str, Any]) -> int | None:
    value = node.get("exprId")
    return int(value["id"]) if isinstance(value, dict) and "id" in value else None


def _identifier(value: Any) -> tuple[str, str, str] | None:
    """(catalog, database, table) of a CatalogTable / TableIdentifier JSON field."""
    if not isinstance(value, dict):
        return None
    ident = value.get("identifier", value)
    if not isinstance(ident, dict) or "table" not in ident:
        return None
    return str(ident.get("catalog") or "spark_catalog"), str(ident.get("database") or "default"), str(ident["table"])


def _parts(text: Any) -> list[str]:
    if isinstance(text, list):
        return [str(t) for t in text]
    text = str(text or "").strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    return [p for p in text.split(", ") if p] if text else []


class _Walker:
    """Walks one analyzed plan: datasets read, and for every attribute (exprId) its source columns and kind."""

    def __init__(self, context: LineageContext) -> None:
        self.context = context
        self.inputs: dict[str, Dataset] = {}
        self.sources: dict[int, tuple[set[tuple[str, str]], str]] = {}
        self.ctes: dict[int, list[int]] = {}
        self.names: dict[int, str] = {}
        self.scalars: dict[int, list[int]] = {}  # scalar subquery exprId → its plan's output

    # datasets ----------------------------------------------------------------------------------------
    def _session_table(self, ident: tuple[str, str, str]) -> Dataset | None:
        catalog, database, table = ident
        info = self.context.catalogs.get(catalog) or self.context.catalogs.get(catalog.lower())
        if info is None or info.type != "hive":
            return None
        return hive_dataset(info, database, table)

    def _v2_table(self, catalog: str, namespace: list[str], table: str) -> Dataset | None:
        info = self.context.catalogs.get(catalog)
        if info is None or info.type != "jdbc":
            return None
        return jdbc_dataset(info, namespace, table)

    # walking -----------------------------------------------------------------------------------------
    def walk(self, node: _Node, dataset: Dataset | None = None) -> list[int]:
        """Visit `node` (inside the relation of `dataset`, if known); returns its output exprIds."""
        name, data = node.name, node.data
        if name == "SubqueryAlias":
            ident = data.get("identifier") or {}
            alias, qualifier = str(ident.get("name", "")), _parts(ident.get("qualifier"))
            found = self.context.views.get(alias)
            if found is None and len(qualifier) >= 2 and node.children and node.children[0].name == "DataSourceV2Relation":
                found = self._v2_table(qualifier[0], qualifier[1:], alias)
            if found is not None:
                dataset = found
        self._nested_plans(data)
        if name == "CTERelationRef":
            out = self._attrs(data.get("output"))
            for attr, source in zip(out, self.ctes.get(int(data.get("cteId", -1)), []), strict=False):
                self.sources[attr] = self.sources.get(source, (set(), IDENTITY))
            return out
        outputs = [self.walk(child, dataset) for child in node.children]
        if name == "CTERelationDef":
            self.ctes[int(data.get("id", -1))] = outputs[0] if outputs else []
            return outputs[0] if outputs else []
        if name == "WithCTE":
            return outputs[-1] if outputs else []
        if name in _LEAVES:
            return self._leaf(node, dataset)
        if name in ("Project", "Aggregate"):
            key = "projectList" if name == "Project" else "aggregateExpressions"
            return [self._expression(expr) for expr in data.get(key) or []]
        if name == "Window":
            return [*outputs[0], *[self._expression(expr) for expr in data.get("windowExpressions") or []]]
        if name == "Union" and outputs:
            for other in outputs[1:]:
                for mine, theirs in zip(outputs[0], other, strict=False):
                    self._combine(mine, [theirs])
            return outputs[0]
        if name == "Expand":
            return self._expand(data)
        if name == "Generate":
            return self._generate(data, outputs[0] if outputs else [])
        if name == "LateralJoin":
            return [*(outputs[0] if outputs else []), *self._lateral(data.get("right"))]
        return [attr for out in outputs for attr in out]

    def _expand(self, data: dict[str, Any]) -> list[int]:
        """GROUPING SETS / ROLLUP / CUBE and UNPIVOT: output column i is the i-th expression of every projection."""
        out = self._attrs(data.get("output"))
        for projection in data.get("projections") or []:
            for attr, expr in zip(out, projection, strict=False):
                self._combine(attr, self._attr_ids(expr), _kind(expr))
        return out

    def _generate(self, data: dict[str, Any], child: list[int]) -> list[int]:
        """LATERAL VIEW / a generator in SELECT: the child's columns, then the generator's, computed from its input."""
        made = self._attrs(data.get("generatorOutput"))
        sources = self._attr_ids(data.get("generator") or [])
        for attr in made:
            self._combine(attr, sources, EXPRESSION)
        dropped = {int(i) for i in data.get("unrequiredChildIndex") or []}  # set by the optimizer, not the analyzer
        return [*(a for i, a in enumerate(child) if i not in dropped), *made]

    def _lateral(self, right: Any) -> list[int]:
        """A lateral subquery's output, walked after the left side so its outer references find their sources."""
        _, plan = next(iter(_subqueries(right or [])), ({}, []))  # the LateralSubquery's `plan`
        tree = _tree(plan)
        return self.walk(tree) if tree is not None else []

    def _nested_plans(self, data: dict[str, Any]) -> None:
        """Relations read inside expressions (subqueries): inputs, and a scalar subquery's column is remembered."""
        for key, value in data.items():
            if key in ("query", "table", "plan", "child", "analyzedQuery"):
                continue  # handled by the caller (write roots) or a real child index
            if key == "right" and data["class"].endswith(".LateralJoin"):
                continue  # the lateral subquery: walked after the left side, with column lineage
            # one expression (a Filter's condition) or a list of them (a Project's list): both are searched
            for owner, plan in _subqueries(value):
                tree = _tree(plan)
                outputs = self.walk(tree) if tree is not None else []
                if str(owner.get("class", "")).endswith(".ScalarSubquery") and (ident := _expr_id(owner)) is not None:
                    self.scalars[ident] = outputs  # its one column is what the expression around it reads

    def _leaf(self, node: _Node, dataset: Dataset | None) -> list[int]:
        data = node.data
        if dataset is None:
            ident = _identifier(data.get("catalogTable")) or _identifier(data.get("tableMeta"))
            dataset = self._session_table(ident) if ident else None
        if node.name == "HiveTableRelation":
            attrs = self._attrs(data.get("dataCols")) + self._attrs(data.get("partitionCols"))
        else:
            attrs = self._attrs(data.get("output"))
        if dataset is not None:
            self.inputs.setdefault(dataset.key, dataset)
            for attr, column in zip(attrs, self._attr_names(node), strict=False):
                self.sources[attr] = ({(dataset.key, column)}, IDENTITY)
        return attrs

    def _attr_names(self, node: _Node) -> list[str]:
        data = node.data
        fields = ("dataCols", "partitionCols") if node.name == "HiveTableRelation" else ("output",)
        return [str(expr[0].get("name")) for f in fields for expr in data.get(f) or [] if expr]

    def _attrs(self, value: Any) -> list[int]:
        ids: list[int] = []
        for expr in value or []:
            top = expr[0] if isinstance(expr, list) and expr else expr
            if isinstance(top, dict) and (ident := _expr_id(top)) is not None:
                ids.append(ident)
                self.names[ident] = str(top.get("name"))
        return ids

    @staticmethod
    def _attr_ids(expr: list[dict[str, Any]]) -> list[int]:
        """The attributes an expression (toJSON's pre-order list) reads, outer references of a subquery included."""
        ids: list[int] = []
        for node in expr:
            cls = str(node.get("class", ""))
            if cls.endswith(".AttributeReference") and (ident := _expr_id(node)) is not None:
                ids.append(ident)
            elif cls.endswith(".OuterReference"):
                # toJSON keeps the referenced attribute in field `e`, not as a child node
                inner = node.get("e")
                ids.extend(_Walker._attr_ids(inner) if isinstance(inner, list) else [])
        return ids

    def _expression(self, expr: list[dict[str, Any]]) -> int:
        """Register an output expression of a Project/Aggregate/Window; returns its exprId."""
        top = expr[0]
        ident = _expr_id(top)
        if ident is not None:
            self.names[ident] = str(top.get("name"))
        if top["class"].endswith(".AttributeReference") or ident is None:
            return ident if ident is not None else -1
        scalars = [o for n in expr if str(n.get("class", "")).endswith(".ScalarSubquery")
                   and (sub := _expr_id(n)) is not None for o in self.scalars.get(sub, [])]
        self._combine(ident, [*self._attr_ids(expr[1:]), *scalars], _kind(expr))
        return ident

    def _combine(self, attr: int, inputs: Iterable[int], kind: str = IDENTITY) -> None:
        columns, current = self.sources.get(attr, (set(), kind))
        columns = set(columns)
        for source in inputs:
            more, more_kind = self.sources.get(source, (set(), IDENTITY))
            columns |= more
            current = max(current, more_kind, kind, key=_KIND_RANK.__getitem__)
        self.sources[attr] = (columns, max(current, kind, key=_KIND_RANK.__getitem__))

    def column_lineage(self, target: Dataset, outputs: list[int], names: list[str]) -> list[ColumnLineage]:
        """Lineage of the written columns `names`, produced by the query outputs `outputs` (by position)."""
        lineage: list[ColumnLineage] = []
        for attr, column in zip(outputs, names, strict=False):
            columns, kind = self.sources.get(attr, (set(), IDENTITY))
            if columns:
                lineage.append(ColumnLineage(target.key, column, sorted(columns), kind))
        return lineage


def _kind(expr: list[dict[str, Any]]) -> str:
    """How an expression (toJSON's pre-order list) makes its value from the attributes it reads."""
    names = {n["class"].rsplit(".", 1)[-1] for n in expr}
    if names & _AGGREGATES:
        return AGGREGATION
    if names <= _PASS_THROUGH | {"Literal"} and len(_Walker._attr_ids(expr)) <= 1:
        return IDENTITY  # a rename, a view's cast to its own schema, or a grouping set's null
    return EXPRESSION


def _subqueries(value: Any) -> Iterable[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """(subquery expression node, its plan) for the plans nested in an expression node's fields
    (ScalarSubquery/Exists/ListQuery/LateralSubquery keep theirs in `plan`)."""
    if isinstance(value, dict):
        for key, inner in value.items():
            if key == "plan" and _is_plan(inner):
                yield value, inner
            elif isinstance(inner, (list, dict)):
                yield from _subqueries(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _subqueries(inner)


# ---- public ------------------------------------------------------------------------------------------------
def plan_lineage(plan: Any, context: LineageContext) -> StatementLineage:
    """The lineage of one analyzed plan (a py4j `LogicalPlan`; a `CommandResult` is unwrapped to its command).

    Reads come from every relation under the plan (views, CTEs and subqueries followed); the write target from
    the root command; column lineage maps each written column to the input columns it was computed from.
    """
    if _simple(plan) == "CommandResult":
        plan = plan.commandLogicalPlan()
    flat = json.loads(plan.toJSON())
    return _lineage(plan, flat, context)


def frame_lineage(frame: Any, context: LineageContext) -> StatementLineage:
    """The lineage of a DataFrame Spark already analyzed (the one `spark.sql` returned for a statement)."""
    return plan_lineage(frame._jdf.queryExecution().analyzed(), context)


def write_lineage(source: Any, target: Dataset, columns: list[str], context: LineageContext) -> StatementLineage:
    """A write the engine made itself (the embedded Delta connector): `source` DataFrame → `target` columns."""
    flat = json.loads(source._jdf.queryExecution().analyzed().toJSON())
    walker = _Walker(context)
    tree = _tree(flat)
    outputs = walker.walk(tree) if tree is not None else []
    names = columns or [walker.names.get(o, "") for o in outputs]
    return StatementLineage(list(walker.inputs.values()), [target], walker.column_lineage(target, outputs, names))


def _simple(plan: Any) -> str:
    return str(plan.getClass().getSimpleName())


def _lineage(plan: Any, flat: list[dict[str, Any]], context: LineageContext) -> StatementLineage:
    walker = _Walker(context)
    root = _tree(flat)
    if root is None:
        return StatementLineage()
    name = root.name
    target: Dataset | None = None
    query: _Node | None = None
    if name in _DSV2_WRITES:
        target = _dsv2_target(plan.table(), context)
        query = root.children[0] if root.children else None
    elif name in _CTAS:
        ident = plan.name()
        target = walker._v2_table(str(ident.catalog().name()), list(ident.identifier().namespace()),
                                  str(ident.identifier().name()))
        query = _tree(root.data.get("query") or [])
    elif name in _V1_WRITES:
        ident = _identifier(root.data.get(_V1_WRITES[name]))
        target = walker._session_table(ident) if ident else None
        query = root.children[0] if root.children else _tree(root.data.get("query") or [])
    if query is None:
        walker.walk(root)
        return StatementLineage(list(walker.inputs.values()), [])
    outputs = walker.walk(query)
    lineage = StatementLineage(list(walker.inputs.values()), [target] if target is not None else [])
    if target is not None:
        # Spark aliases an insert's query output to the target's column names during analysis
        lineage.columns = walker.column_lineage(target, outputs, [walker.names.get(o, "") for o in outputs])
    return lineage


def _dsv2_target(relation: Any, context: LineageContext) -> Dataset | None:
    """The table a DSv2 write goes to (toJSON() drops a relation's catalog and identifier: read them over py4j)."""
    catalog, identifier = relation.catalog(), relation.identifier()
    if catalog.isEmpty() or identifier.isEmpty():
        return None
    info = context.catalogs.get(str(catalog.get().name()))
    if info is None or info.type != "jdbc":
        return None
    ident = identifier.get()
    return jdbc_dataset(info, [str(p) for p in ident.namespace()], str(ident.name()))


__all__ = [
    "AGGREGATION", "EXPRESSION", "IDENTITY", "ColumnLineage", "LineageContext", "StatementLineage", "frame_lineage",
    "plan_lineage", "write_lineage",
]
