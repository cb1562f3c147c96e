"""Row-level changes of embedded Delta tables: DELETE, UPDATE and TRUNCATE, copy-on-write.

Delta's two-pass plan, distributed on Spark: the first pass finds the data files that hold rows the condition
matches (counting them per file); a condition on partition columns only is decided from the log's partition
values, without reading a data file. The second pass rewrites only those files, keeping (DELETE) or changing
(UPDATE) their rows; delta-rs commits the removed and added files as one version (`DeltaWriter.replace_files`).
"""

from __future__ import annotations

import dataclasses
import functools
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import sqlglot
from deltalake import DeltaTable
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from lakeport_engine.delta.catalog import TableRef
from lakeport_engine.delta.commit import DeltaWriter, align, spark_message
from lakeport_engine.delta.errors import DeltaConnectorError
from lakeport_engine.delta.features import check_writable
from lakeport_engine.delta.schema import spark_schema
from lakeport_engine.delta.snapshot import (
    add_actions,
    file_path,
    partition_literal,
    plain_uri,
    read_actions,
    snapshot_frame,
)

_FILE = "__lp_file"
_KEY = "__lp_partition_key"
# Beyond this many distinct partitions a partition-only condition is evaluated on the data (one small row per
# partition becomes a union that costs more to plan than the scan).
_MAX_PARTITION_ROWS = 256


@dataclass(frozen=True)
class RowChange:
    """One DELETE, UPDATE or TRUNCATE: SQL pieces as written, Delta tables in them already rewritten onto views."""

    operation: str  # DELETE | UPDATE | TRUNCATE
    ref: TableRef
    alias: str
    condition: str | None = None
    assignments: tuple[tuple[str, str], ...] = ()  # (column, SQL expression)


@dataclass(frozen=True)
class ChangeResult:
    """The version committed (the one read when nothing changed) and the rows the statement affected."""

    version: int
    affected_rows: int
    committed: bool
    rewritten: DataFrame | None  # the rows written by the commit (lineage), None when only files were removed


def apply_change(spark: SparkSession, writer: DeltaWriter, table: DeltaTable, change: RowChange) -> ChangeResult:
    """Apply `change` to the latest snapshot `table`: find the touched files, rewrite them, commit once."""
    ref = change.ref
    check_writable(table, ref, removes_files=True)
    schema = spark_schema(table.schema())
    partition_cols = list(table.metadata().partition_columns)
    files = add_actions(table)
    _check_assignments(change, schema)
    matched: dict[str, int | None]
    covers: Callable[[DeltaTable], set[str] | None] | None = None  # what the read covers: None, the whole table
    if change.operation == "TRUNCATE" or change.condition is None:
        matched = {f["path"]: f.get("num_records") for f in files}
        read_set = set(matched)
        whole_files = change.operation != "UPDATE"
    else:
        by_partition = (_partition_matches(spark, table, change, partition_cols)
                        if _on_columns(change.condition, partition_cols) else None)
        if by_partition is not None:
            counts = {f["path"]: f.get("num_records") for f in files}
            matched = {p: counts[p] for p in by_partition}
            read_set = set(matched)
            covers = functools.partial(_partition_matches, spark, change=change, partition_cols=partition_cols)
            whole_files = change.operation == "DELETE"
        else:
            # data skipping: files whose min/max/null counts rule the condition out are neither read nor touched
            tests = conjuncts(change.condition)
            candidates = [f for f in files if not ruled_out(f, tests, partition_cols)]
            matched = dict(_matching_files(spark, table, change, candidates)) if candidates else {}
            read_set = {f["path"] for f in candidates}
            whole_files = False
            # the read covers the partitions the condition's partition-column terms allow (the whole table if none)
            on_partitions = [t.sql(dialect="spark") for t in tests
                             if _on_columns(t.sql(dialect="spark"), partition_cols)]
            if on_partitions:
                narrowed = dataclasses.replace(change, condition=" AND ".join(f"({t})" for t in on_partitions))
                covers = functools.partial(_partition_matches, spark, change=narrowed, partition_cols=partition_cols)
    if not matched:
        return ChangeResult(table.version(), 0, committed=False, rewritten=None)
    removed = [f for f in files if f["path"] in matched]
    if whole_files:
        affected = sum(int(c) for c in (matched[f["path"]] for f in removed) if c is not None)
        version = writer.replace_files(ref, table, None, removed=removed, read_set=read_set,
                                       operation=change.operation, metrics=_metrics(change.operation, affected),
                                       covers=covers)
        return ChangeResult(version, affected, committed=True, rewritten=None)
    affected = sum(int(n or 0) for n in matched.values())
    frame = _rewritten(spark, table, change, set(matched), schema)
    version = writer.replace_files(ref, table, frame, removed=removed, read_set=read_set,
                                   operation=change.operation, metrics=_metrics(change.operation, affected),
                                   covers=covers)
    return ChangeResult(version, affected, committed=True, rewritten=frame)


def _metrics(operation: str, affected: int) -> dict[str, Any]:
    """Operation metrics as Delta names them, in the commit's commitInfo."""
    name = {"DELETE": "numDeletedRows", "UPDATE": "numUpdatedRows", "TRUNCATE": "numDeletedRows"}[operation]
    return {f"lakeport.{name}": affected}


def _check_assignments(change: RowChange, schema: T.StructType) -> None:
    names = {f.name.lower() for f in schema.fields}
    seen: set[str] = set()
    for column, _ in change.assignments:
        if column.lower() not in names:
            raise DeltaConnectorError(f"UPDATE {change.ref}: '{column}' is not a column of the table "
                                      f"(columns: {', '.join(schema.names)}).")
        if column.lower() in seen:
            raise DeltaConnectorError(f"UPDATE {change.ref}: column '{column}' is assigned twice.")
        seen.add(column.lower())


def _on_columns(condition: str, columns: Sequence[str]) -> bool:
    """True if the condition reads only `columns` (partition columns) and nothing that varies per row otherwise."""
    try:
        tree = sqlglot.parse_one(condition, dialect="spark")
    except (ParseError, TokenError):
        return False
    if any(isinstance(node, exp.Subquery | exp.Select | exp.Rand) for node in tree.walk()):
        return False
    used = {c.name.lower() for c in tree.find_all(exp.Column)}
    return bool(used) and used <= {c.lower() for c in columns}


def _partition_matches(spark: SparkSession, table: DeltaTable, change: RowChange,
                       partition_cols: Sequence[str]) -> set[str] | None:
    """Paths of the files whose partition values satisfy the condition, decided without reading data files."""
    actions = read_actions(table).to_pylist()
    keys: dict[tuple[Any, ...], list[str]] = {}
    for action in actions:
        keys.setdefault(tuple(action.get(f"partition.{c}") for c in partition_cols), []).append(action["path"])
    if not keys or len(keys) > _MAX_PARTITION_ROWS:
        return None
    types = {f.name: f.dataType for f in spark_schema(table.schema()).fields}
    rows = [spark.range(1).select(*[partition_literal(v, types[c]).alias(c)
                                    for c, v in zip(partition_cols, key, strict=True)], F.lit(i).alias(_KEY))
            for i, key in enumerate(keys)]
    values = functools.reduce(DataFrame.unionAll, rows)
    view = _view_name("partitions")
    values.createOrReplaceTempView(view)
    try:
        hits = spark.sql(f"SELECT {_KEY} FROM `{view}` AS `{change.alias}` "
                         f"WHERE coalesce(({change.condition}), false)").collect()
    except Exception as exc:  # noqa: BLE001 — a condition Spark refuses is the user's error, named
        raise _condition_error(change, exc) from exc
    finally:
        spark.catalog.dropTempView(view)
    chosen = {int(r[0]) for r in hits}
    return {p for i, paths in enumerate(keys.values()) if i in chosen for p in paths}


def _matching_files(spark: SparkSession, table: DeltaTable, change: RowChange,
                    files: list[dict[str, Any]]) -> dict[str, int]:
    """First pass: the files with rows the condition matches, and how many rows each (one distributed scan)."""
    root = table.table_uri.removeprefix("file://").rstrip("/")
    by_uri = {plain_uri(file_path(root, f["path"])): f["path"] for f in files}
    scan = snapshot_frame(spark, table, change.ref, only={f["path"] for f in files}).withColumn(
        _FILE, F.input_file_name())
    view = _view_name("scan")
    scan.createOrReplaceTempView(view)
    try:
        counts = spark.sql(f"SELECT `{_FILE}`, count(*) AS n FROM `{view}` AS `{change.alias}` "
                           f"WHERE coalesce(({change.condition}), false) GROUP BY `{_FILE}`").collect()
    except Exception as exc:  # noqa: BLE001
        raise _condition_error(change, exc) from exc
    finally:
        spark.catalog.dropTempView(view)
    matched: dict[str, int] = {}
    for uri, n in counts:
        path = by_uri.get(plain_uri(str(uri)))
        if path is None:
            raise DeltaConnectorError(f"{change.operation} on {change.ref}: a matched row came from a file that is "
                                      "not in the snapshot; nothing was changed.")
        matched[path] = int(n)
    return matched


def conjuncts(condition: str) -> list[exp.Expr]:
    """The top-level AND terms of a condition, parsed once for every file `ruled_out` checks (none if unparsable)."""
    try:
        tree = sqlglot.parse_one(condition, dialect="spark")
    except (ParseError, TokenError):
        return []
    return [_unwrap(c) for c in (tree.flatten() if isinstance(tree, exp.And) else [tree])]


def ruled_out(action: dict[str, Any], terms: Sequence[exp.Expr], partition_cols: Sequence[str]) -> bool:
    """True if the file's statistics prove no row of it satisfies the conjunction `terms` (`conjuncts()`): it is
    ruled out by any term that is `col <op> literal`, `IN (literals)`, `IS [NOT] NULL` on a data column with stats.
    Anything else, or a file without statistics, may match: the scan decides."""
    return any(_conjunct_ruled_out(term, action, partition_cols) for term in terms)


_FLIPPED: dict[type[exp.Expr], type[exp.Expr]] = {exp.LT: exp.GT, exp.GT: exp.LT, exp.LTE: exp.GTE, exp.GTE: exp.LTE, exp.EQ: exp.EQ}


def _unwrap(node: exp.Expr) -> exp.Expr:
    while isinstance(node, exp.Paren):
        node = node.this
    return node


def _conjunct_ruled_out(node: exp.Expr, action: dict[str, Any], partition_cols: Sequence[str]) -> bool:
    def column(n: exp.Expr) -> str | None:
        n = _unwrap(n)
        if isinstance(n, exp.Column) and n.name.lower() not in {c.lower() for c in partition_cols}:
            return n.name
        return None

    def stats(name: str) -> tuple[Any, Any, int | None, int | None]:
        lower = {k.lower(): k for k in action}
        def get(key: str) -> Any:
            return action.get(lower.get(key.lower(), ""))

        nulls, rows = get(f"null_count.{name}"), action.get("num_records")
        return (get(f"min.{name}"), get(f"max.{name}"), None if nulls is None else int(nulls),
                None if rows is None else int(rows))

    if isinstance(node, exp.Is) and isinstance(node.expression, exp.Null) and (name := column(node.this)):
        low, high, nulls, rows = stats(name)
        return nulls == 0
    if isinstance(node, exp.Not) and isinstance(_unwrap(node.this), exp.Is):
        inner = _unwrap(node.this)
        if isinstance(inner.expression, exp.Null) and (name := column(inner.this)):
            _, _, nulls, rows = stats(name)
            return nulls is not None and rows is not None and nulls == rows
        return False
    if isinstance(node, exp.In) and (name := column(node.this)) and node.expressions:
        low, high, _, _ = stats(name)
        values = [_literal(v) for v in node.expressions]
        if low is None or high is None or any(v is None for v in values):
            return False
        return all(not _comparable(v, low) or v < low or v > high for v in values) and all(
            _comparable(v, low) for v in values)
    kind: type[exp.Expr] = type(node)
    if kind not in _FLIPPED:
        return False
    left, right = node.this, node.expression
    if column(left) is None and column(right) is not None:
        left, right, kind = right, left, _FLIPPED[kind]
    name, value = column(left), _literal(right)
    if name is None or value is None:
        return False
    low, high, _, _ = stats(name)
    if low is None or high is None or not (_comparable(value, low) and _comparable(value, high)):
        return False  # no statistics (or all rows NULL, which a comparison never matches: the scan says so)
    outcome: dict[type[exp.Expr], bool] = {exp.EQ: value < low or value > high, exp.LT: low >= value,
                                           exp.LTE: low > value, exp.GT: high <= value, exp.GTE: high < value}
    return outcome[kind]


def _literal(node: exp.Expr) -> int | float | str | None:
    node = _unwrap(node)
    negative = isinstance(node, exp.Neg)
    if negative:
        node = _unwrap(node.this)
    if not isinstance(node, exp.Literal):
        return None
    if node.is_string:
        return None if negative else node.name
    try:
        number: int | float = int(node.name)
    except ValueError:
        try:
            number = float(node.name)
        except ValueError:
            return None
    return -number if negative else number


def _comparable(value: object, stat: object) -> bool:
    """Compare only like with like: numbers with integer statistics, text with string statistics."""
    if isinstance(stat, bool) or isinstance(value, bool):
        return False
    if isinstance(stat, int):
        return isinstance(value, int | float)
    return isinstance(stat, str) and isinstance(value, str)


def _rewritten(spark: SparkSession, table: DeltaTable, change: RowChange, paths: set[str],
               schema: T.StructType) -> DataFrame:
    """Second pass: the rows of the touched files as they are after the change, in the table's column order."""
    view = _view_name("touched")
    snapshot_frame(spark, table, change.ref, only=paths).createOrReplaceTempView(view)
    alias = f"`{change.alias}`"
    matches = f"coalesce(({change.condition}), false)" if change.condition else "true"
    try:
        if change.operation == "DELETE":
            columns = ", ".join(f"{alias}.`{f.name}`" for f in schema.fields)
            frame = spark.sql(f"SELECT {columns} FROM `{view}` AS {alias} WHERE NOT {matches}")
        else:
            assigned = {c.lower(): e for c, e in change.assignments}
            columns = ", ".join(
                f"CASE WHEN {matches} THEN CAST(({assigned[f.name.lower()]}) AS {f.dataType.simpleString()}) "
                f"ELSE {alias}.`{f.name}` END AS `{f.name}`" if f.name.lower() in assigned
                else f"{alias}.`{f.name}`" for f in schema.fields)
            frame = spark.sql(f"SELECT {columns} FROM `{view}` AS {alias}")
        # NOT NULL columns fail the write on a null, as Delta asks; types as the table's.
        return align(frame, schema, ref=change.ref, by_name=True)
    except DeltaConnectorError:
        raise
    except Exception as exc:  # noqa: BLE001
        raise _condition_error(change, exc) from exc
    finally:
        # The analysed plan inlines the view: dropping it leaves the frame intact.
        spark.catalog.dropTempView(view)


def _condition_error(change: RowChange, exc: BaseException) -> DeltaConnectorError:
    return DeltaConnectorError(f"{change.operation} on Delta table {change.ref}: {spark_message(exc)}")


def _view_name(what: str) -> str:
    return f"__lp_dml_{what}_{uuid.uuid4().hex[:12]}"
