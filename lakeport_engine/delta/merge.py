"""`MERGE INTO` on embedded Delta tables, copy-on-write, planned and run by Spark.

Like Delta's own MERGE: the first pass joins the target's latest snapshot with the source to find the files
holding matched rows (every file when a `WHEN NOT MATCHED BY SOURCE` clause exists); the second pass full-outer
joins only those files' rows with the source, decides each row's clause in order, and writes the touched files'
rows as they are after the merge plus the inserted rows. A target row that more than one source row would change
is Delta's error, never a silent pick. delta-rs commits the removed and added files as one version.

Intermediate results are materialized with `localCheckpoint` (on the executors, never in the driver) so that the
row numbering of the target, the source and the join are the same in every pass that reads them.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import sqlglot
from deltalake import DeltaTable
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from lakeport_engine.delta.catalog import TableRef
from lakeport_engine.delta.commit import DeltaWriter, align, spark_message
from lakeport_engine.delta.dml import conjuncts, ruled_out
from lakeport_engine.delta.errors import DeltaConnectorError
from lakeport_engine.delta.features import check_writable
from lakeport_engine.delta.schema import spark_schema
from lakeport_engine.delta.snapshot import add_actions, file_path, plain_uri, snapshot_frame

Kind = Literal["matched", "not_matched", "not_matched_by_source"]
_ROW, _FILE, _T, _S, _ACTION = "__lp_row", "__lp_file", "__lp_t", "__lp_s", "__lp_action"
MULTIPLE_MATCHES = "DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE"


@dataclass(frozen=True)
class MergeClause:
    """One `WHEN … THEN …`: its kind, condition and action; `values` maps target columns to SQL expressions."""

    kind: Kind
    action: Literal["update", "delete", "insert"]
    condition: str | None = None
    values: dict[str, str] = field(default_factory=dict)
    star: bool = False  # UPDATE SET * / INSERT *


@dataclass(frozen=True)
class MergeSpec:
    """A MERGE as Spark will run it: the source query (Delta tables already on snapshot views) and the clauses."""

    ref: TableRef
    target_alias: str
    source_sql: str
    source_alias: str
    on: str
    clauses: tuple[MergeClause, ...]


@dataclass(frozen=True)
class MergeResult:
    version: int
    committed: bool
    updated: int
    deleted: int
    inserted: int
    written: DataFrame | None


def merge_spec(tree: exp.Merge, ref: TableRef, target_alias: str) -> MergeSpec:
    """Read a parsed MERGE (its Delta sources already rewritten onto views) into a `MergeSpec`."""
    using = tree.args.get("using")
    if isinstance(using, exp.Subquery):
        source_sql = using.this.sql(dialect="spark")
        source_alias = using.alias
    elif isinstance(using, exp.Table):
        source_alias = using.alias or using.name
        bare = using.copy()
        bare.set("alias", None)
        source_sql = f"SELECT * FROM {bare.sql(dialect='spark')}"
    else:
        raise DeltaConnectorError(f"MERGE INTO {ref}: USING needs a table or a (subquery) with an alias.")
    if not source_alias:
        raise DeltaConnectorError(f"MERGE INTO {ref}: give the USING subquery an alias.")
    on = tree.args.get("on")
    if on is None:
        raise DeltaConnectorError(f"MERGE INTO {ref} needs an ON condition.")
    clauses: list[MergeClause] = []
    whens = tree.args.get("whens")
    for when in (whens.expressions if whens is not None else []):
        kind: Kind = ("matched" if when.args.get("matched") else
                      "not_matched_by_source" if when.args.get("source") else "not_matched")
        condition = when.args.get("condition")
        cond = condition.sql(dialect="spark") if condition is not None else None
        then = when.args.get("then")
        if isinstance(then, exp.Var) and then.name.upper() == "DELETE":
            if kind == "not_matched":
                raise DeltaConnectorError(f"MERGE INTO {ref}: WHEN NOT MATCHED can only INSERT.")
            clauses.append(MergeClause(kind, "delete", cond))
        elif isinstance(then, exp.Update):
            if kind == "not_matched":
                raise DeltaConnectorError(f"MERGE INTO {ref}: WHEN NOT MATCHED can only INSERT.")
            if len(then.expressions) == 1 and isinstance(then.expressions[0], exp.Star):
                clauses.append(MergeClause(kind, "update", cond, star=True))
                continue
            values: dict[str, str] = {}
            for assignment in then.expressions:
                if not isinstance(assignment, exp.EQ) or not isinstance(assignment.this, exp.Column):
                    raise DeltaConnectorError(f"MERGE INTO {ref}: '{assignment.sql(dialect='spark')}' is not an "
                                              "assignment column = value.")
                name = assignment.this.name
                if name.lower() in {v.lower() for v in values}:
                    raise DeltaConnectorError(f"MERGE INTO {ref}: column '{name}' is assigned twice in one clause.")
                values[name] = assignment.expression.sql(dialect="spark")
            clauses.append(MergeClause(kind, "update", cond, values))
        elif isinstance(then, exp.Insert):
            if kind != "not_matched":
                raise DeltaConnectorError(f"MERGE INTO {ref}: only WHEN NOT MATCHED [BY TARGET] can INSERT.")
            if isinstance(then.this, exp.Star):
                clauses.append(MergeClause(kind, "insert", cond, star=True))
                continue
            columns = [c.name for c in (then.this.expressions if isinstance(then.this, exp.Tuple) else [])]
            row = then.expression.expressions if isinstance(then.expression, exp.Tuple) else []
            if not columns or len(columns) != len(row):
                raise DeltaConnectorError(f"MERGE INTO {ref}: INSERT needs (columns) VALUES (values) of the same "
                                          "length, or INSERT *.")
            clauses.append(MergeClause(kind, "insert", cond, {c: v.sql(dialect="spark")
                                                              for c, v in zip(columns, row, strict=True)}))
        else:
            raise DeltaConnectorError(f"MERGE INTO {ref}: unsupported clause '{when.sql(dialect='spark')}'.")
    if not clauses:
        raise DeltaConnectorError(f"MERGE INTO {ref} needs at least one WHEN clause.")
    return MergeSpec(ref, target_alias, source_sql, source_alias, on.sql(dialect="spark"), tuple(clauses))


def apply_merge(spark: SparkSession, writer: DeltaWriter, table: DeltaTable, spec: MergeSpec) -> MergeResult:
    """Run `spec` on the latest snapshot `table`: find the touched files, rewrite them with the inserts, one commit."""
    ref = spec.ref
    check_writable(table, ref, removes_files=True)
    schema = spark_schema(table.schema())
    files = add_actions(table)
    values = _clause_values(spec, schema)
    t, s = f"`{spec.target_alias}`", f"`{spec.source_alias}`"
    views: list[str] = []  # temp views this statement made, dropped at its end

    def view(frame: DataFrame, what: str) -> str:
        name = f"__lp_merge_{what}_{uuid.uuid4().hex[:12]}"
        frame.createOrReplaceTempView(name)
        views.append(name)
        return f"`{name}`"

    try:
        try:
            source = spark.sql(spec.source_sql).withColumn(_S, F.lit(True)).localCheckpoint(eager=True)
        except Exception as exc:  # noqa: BLE001
            raise _error(ref, "the USING query failed", exc) from exc
        source_view = view(source, "source")
        if any(c.kind == "not_matched_by_source" for c in spec.clauses):
            touched = {f["path"] for f in files}
        else:
            candidates = _candidates(spec, source, files, list(table.metadata().partition_columns))
            scan = view(snapshot_frame(spark, table, ref, only=candidates).withColumn(_FILE, F.input_file_name()),
                        "scan")
            rows = _sql(spark, ref, f"SELECT DISTINCT {t}.`{_FILE}` FROM {scan} AS {t} JOIN {source_view} AS {s} "
                                    f"ON {spec.on}").collect()
            root = table.table_uri.removeprefix("file://").rstrip("/")
            by_uri = {plain_uri(file_path(root, f["path"])): f["path"] for f in files}
            touched = {by_uri[plain_uri(str(r[0]))] for r in rows}
        target = (snapshot_frame(spark, table, ref, only=touched) if touched
                  else spark.createDataFrame([], schema))
        target = target.withColumn(_ROW, F.monotonically_increasing_id()).withColumn(_T, F.lit(True))
        target = target.localCheckpoint(eager=True)
        target_view = view(target, "target")
        joined = _sql(spark, ref, _joined_sql(spec, schema, values, target_view, source_view)).localCheckpoint(
            eager=True)
        joined_view = view(joined, "joined")
        changes = [f"c{i}" for i, c in enumerate(spec.clauses) if c.kind != "not_matched"]
        _check_single_match(spark, spec, joined_view, changes)
        updates = [f"c{i}" for i, c in enumerate(spec.clauses) if c.action == "update"]
        deletes = [f"c{i}" for i, c in enumerate(spec.clauses) if c.action == "delete"]
        inserts = [f"c{i}" for i, c in enumerate(spec.clauses) if c.action == "insert"]
        # a target row deleted by two source rows (allowed) is one deleted row
        counts = _sql(spark, ref, f"SELECT {_distinct_rows(updates)}, {_distinct_rows(deletes)}, "
                                  f"{_count(inserts)} FROM {joined_view}").collect()[0]  # an aggregate: one row
        updated, deleted, inserted = (int(counts[0] or 0), int(counts[1] or 0), int(counts[2] or 0))
        if updated + deleted + inserted == 0:
            return MergeResult(table.version(), False, 0, 0, 0, None)
        columns = ", ".join(f"`__lp_kept`.`{f.name}`" for f in schema.fields)
        new_values = ", ".join(f"`__lp_new_{i}` AS `{f.name}`" for i, f in enumerate(schema.fields))
        changed_rows = f"SELECT DISTINCT `{_ROW}` FROM {joined_view} WHERE {_in(_ACTION, changes)}"
        kept_and_new = _sql(spark, ref, f"""
            SELECT {columns} FROM {target_view} AS `__lp_kept`
            LEFT ANTI JOIN ({changed_rows}) AS `__lp_changed` ON `__lp_kept`.`{_ROW}` = `__lp_changed`.`{_ROW}`
            UNION ALL
            SELECT {new_values} FROM {joined_view} WHERE {_in(_ACTION, updates + inserts)}""")
        frame = align(kept_and_new, schema, ref=ref, by_name=True)
        removed = [f for f in files if f["path"] in touched]
        metrics = {"lakeport.numTargetRowsUpdated": updated, "lakeport.numTargetRowsDeleted": deleted,
                   "lakeport.numTargetRowsInserted": inserted}
        version = writer.replace_files(ref, table, frame, removed=removed, read_set={f["path"] for f in files},
                                       operation="MERGE", metrics=metrics)
        return MergeResult(version, True, updated, deleted, inserted, frame)
    finally:
        for name in views:
            spark.catalog.dropTempView(name.strip("`"))


def _candidates(spec: MergeSpec, source: DataFrame, files: list[dict[str, Any]],
                partition_cols: list[str]) -> set[str]:
    """The target files that may hold a row the source matches: for each `target.col = source.col` conjunct of
    ON, files whose statistics lie outside the source keys' [min, max] cannot (dynamic file pruning)."""
    paths = {f["path"] for f in files}
    keys = _equi_keys(spec, set(source.columns))
    if not keys:
        return paths
    bounds = source.agg(*[F.min(F.col(f"`{s}`")) for _, s in keys], *[F.max(F.col(f"`{s}`")) for _, s in keys]).collect()[0]
    conditions = []
    for index, (target_column, _) in enumerate(keys):
        low, high = bounds[index], bounds[len(keys) + index]
        if low is None:
            return set()  # no source key is non-NULL: an equality matches nothing
        if isinstance(low, bool) or not isinstance(low, int | str):
            continue
        literal = exp.Literal.string if isinstance(low, str) else exp.Literal.number
        conditions.append(f"`{target_column}` >= {literal(low).sql()} AND `{target_column}` <= {literal(high).sql()}")
    if not conditions:
        return paths
    terms = conjuncts(" AND ".join(conditions))
    return {f["path"] for f in files if not ruled_out(f, terms, partition_cols)}


def _equi_keys(spec: MergeSpec, source_columns: set[str]) -> list[tuple[str, str]]:
    """(target column, source column) of the `t.a = s.b` conjuncts of ON, qualified by the two aliases."""
    try:
        tree = sqlglot.parse_one(spec.on, dialect="spark")
    except (ParseError, TokenError):
        return []
    keys = []
    for node in (tree.flatten() if isinstance(tree, exp.And) else [tree]):
        if not isinstance(node, exp.EQ) or not all(isinstance(n, exp.Column) for n in (node.this, node.expression)):
            continue
        sides = {n.table.lower(): n.name for n in (node.this, node.expression)}
        target, source = sides.get(spec.target_alias.lower()), sides.get(spec.source_alias.lower())
        if target and source and source in source_columns:
            keys.append((target, source))
    return keys


def _clause_values(spec: MergeSpec, schema: T.StructType) -> dict[int, dict[str, str]]:
    """Per clause, the SQL of each target column's new value (by lower-case name); `*` spelled out."""
    by_lower = {f.name.lower(): f.name for f in schema.fields}
    source = f"`{spec.source_alias}`"
    out: dict[int, dict[str, str]] = {}
    for index, clause in enumerate(spec.clauses):
        if clause.action == "delete":
            continue
        if clause.star:
            out[index] = {name.lower(): f"{source}.`{name}`" for name in schema.names}
            continue
        unknown = [c for c in clause.values if c.lower() not in by_lower]
        if unknown:
            raise DeltaConnectorError(f"MERGE INTO {spec.ref}: '{unknown[0]}' is not a column of the table "
                                      f"(columns: {', '.join(schema.names)}).")
        out[index] = {c.lower(): v for c, v in clause.values.items()}
    return out


def _joined_sql(spec: MergeSpec, schema: T.StructType, values: dict[int, dict[str, str]],
                target_view: str, source_view: str) -> str:
    """Every target row of the touched files with each source row it matches (and each side alone), with the
    first clause that applies (`__lp_action`) and every column's value after that clause (`__lp_new_<i>`)."""
    t, s = f"`{spec.target_alias}`", f"`{spec.source_alias}`"

    def first(kind: Kind, otherwise: str) -> str:
        whens = [f"WHEN {_true(c.condition)} THEN 'c{i}'" for i, c in enumerate(spec.clauses) if c.kind == kind]
        return f"CASE {' '.join(whens)} ELSE '{otherwise}' END" if whens else f"'{otherwise}'"

    action = (f"CASE WHEN {t}.`{_T}` AND {s}.`{_S}` THEN {first('matched', 'keep')} "
              f"WHEN {t}.`{_T}` THEN {first('not_matched_by_source', 'keep')} "
              f"ELSE {first('not_matched', 'skip')} END")
    inner = [f"{t}.`{_ROW}` AS `{_ROW}`", f"{action} AS `{_ACTION}`"]
    outer = [f"`{_ROW}`", f"`{_ACTION}`"]
    for index, f in enumerate(schema.fields):
        inner.append(f"{t}.`{f.name}` AS `__lp_old_{index}`")
        cases = []
        for k, clause in enumerate(spec.clauses):
            assigned = values.get(k, {})
            if f.name.lower() in assigned:
                inner.append(f"CAST(({assigned[f.name.lower()]}) AS {f.dataType.simpleString()}) "
                             f"AS `__lp_c{k}_{index}`")
                cases.append(f"WHEN 'c{k}' THEN `__lp_c{k}_{index}`")
            elif clause.action == "insert":
                cases.append(f"WHEN 'c{k}' THEN NULL")  # an INSERT leaves unnamed columns NULL; an UPDATE keeps them
        outer.append(f"CASE `{_ACTION}` {' '.join(cases)} ELSE `__lp_old_{index}` END AS `__lp_new_{index}`"
                     if cases else f"`__lp_old_{index}` AS `__lp_new_{index}`")
    return (f"SELECT {', '.join(outer)} FROM (SELECT {', '.join(inner)} FROM {target_view} AS {t} "
            f"FULL OUTER JOIN {source_view} AS {s} ON {spec.on}) AS `__lp_joined`")


def _check_single_match(spark: SparkSession, spec: MergeSpec, joined_view: str, changes: Sequence[str]) -> None:
    """Delta's rule: a target row may be changed by one source row only (an unconditional DELETE as the only
    matched clause excepted: deleting twice is deleting)."""
    matched = [c for c in spec.clauses if c.kind == "matched"]
    if len(matched) == 1 and matched[0].action == "delete" and matched[0].condition is None:
        return
    twice = _sql(spark, spec.ref, f"SELECT `{_ROW}` FROM {joined_view} WHERE {_in(_ACTION, changes)} "
                                  f"GROUP BY `{_ROW}` HAVING count(*) > 1 LIMIT 1").collect()
    if twice:
        raise DeltaConnectorError(
            f"MERGE INTO {spec.ref} [{MULTIPLE_MATCHES}]: a target row matched more than one source row and would "
            "be changed by each; make the ON condition match at most one source row per target row (for example, "
            "de-duplicate the source). Nothing was changed."
        )


def _sql(spark: SparkSession, ref: TableRef, text: str) -> DataFrame:
    try:
        return spark.sql(text)
    except Exception as exc:  # noqa: BLE001 — Spark's analysis error of the user's MERGE, named
        raise _error(ref, "it cannot run", exc) from exc


def _error(ref: TableRef, what: str, exc: BaseException) -> DeltaConnectorError:
    return DeltaConnectorError(f"MERGE INTO Delta table {ref}: {what}: {spark_message(exc)}")


def _true(condition: str | None) -> str:
    return f"coalesce(({condition}), false)" if condition else "true"


def _in(column: str, codes: Sequence[str]) -> str:
    return f"`{column}` IN ({', '.join(repr(c) for c in codes)})" if codes else "false"


def _distinct_rows(codes: Sequence[str]) -> str:
    return f"count(DISTINCT CASE WHEN {_in(_ACTION, codes)} THEN `{_ROW}` END)"


def _count(codes: Sequence[str]) -> str:
    return f"count_if({_in(_ACTION, codes)})"
