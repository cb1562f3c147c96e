"""ALTER TABLE on Iceberg tables: schema evolution through pyiceberg's `update_schema()` and table properties, one
metadata-only commit each (no data file is rewritten: reads match columns by field id, so renamed and dropped columns
read correctly from files written before, and promoted types are widened by the reader).

    ADD COLUMN[S] (name[.nested] type [COMMENT '…'] [FIRST | AFTER col], …)
    RENAME COLUMN a[.b] TO c        DROP COLUMN[S] [IF EXISTS] (a, …)
    ALTER COLUMN c TYPE t           only Iceberg's promotions: int → bigint, float → double, decimal(p, s) → decimal(p', s), p' ≥ p
    ALTER COLUMN c COMMENT '…' | DROP NOT NULL | FIRST | AFTER x
    SET TBLPROPERTIES (…) | UNSET TBLPROPERTIES [IF EXISTS] (…)

Every change is checked against the table as loaded for the attempt, and rebuilt on the refreshed table when a
concurrent commit wins the race (`commit_with_retries`): a change still valid there lands, one that is not (the other
commit added the same column, dropped the renamed one) fails naming it. Rules, named in refusals:
`iceberg-type-promotion`, `iceberg-partition-source` (a column a partition spec, the sort order or the identifier
fields use cannot be dropped, as Iceberg refuses).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pyspark.sql import types as T

from lakeport_engine.delta.table_sql import TablePlan
from lakeport_engine.iceberg.catalog import IcebergError, type_text
from lakeport_engine.iceberg.write import iceberg_type
from lakeport_engine.sqltext import PUNCT, QUOTED, STRING, WORD, SqlTextError, Token, significant, tokenize

if TYPE_CHECKING:
    from pyiceberg.schema import Schema
    from pyiceberg.table import Table, Transaction
    from pyiceberg.table.update.schema import UpdateSchema
    from pyiceberg.types import IcebergType, NestedField

PROMOTION_RULE = "iceberg-type-promotion"
PARTITION_SOURCE_RULE = "iceberg-partition-source"
_ITEM_END = ("comment", "first", "after", "not", "default")


@dataclass(frozen=True)
class NewColumn:
    """One column of ADD COLUMNS: its path (nested fields by their struct's path), Spark type, comment, position."""

    path: tuple[str, ...]
    kind: T.DataType
    doc: str | None = None
    first: bool = False
    after: str | None = None


def new_columns(ddl: str, *, what: str, parse_type: Callable[[str], T.DataType]) -> list[NewColumn]:
    """The columns of `ADD COLUMNS (…)` as written: `name[.nested] type [COMMENT '…'] [FIRST | AFTER col]`."""
    try:
        tokens = significant(tokenize(ddl))
    except SqlTextError as exc:
        raise IcebergError(f"{what}: {exc}") from None
    items: list[list[Token]] = [[]]
    depth = 0
    for tok in tokens:
        if tok.kind == PUNCT and tok.text in ("(", "<"):
            depth += 1
        elif tok.kind == PUNCT and tok.text in (")", ">"):
            depth -= 1
        if tok.kind == PUNCT and tok.text == "," and depth == 0:
            items.append([])
        else:
            items[-1].append(tok)
    return [_new_column(ddl, item, what=what, parse_type=parse_type) for item in items]


def _new_column(ddl: str, item: list[Token], *, what: str, parse_type: Callable[[str], T.DataType]) -> NewColumn:
    path: list[str] = []
    k = 0
    while k < len(item) and item[k].kind in (WORD, QUOTED):
        path.append(item[k].name)
        k += 1
        if k < len(item) and item[k].kind == PUNCT and item[k].text == ".":
            k += 1
            continue
        break
    end = k
    while end < len(item) and not (item[end].kind == WORD and item[end].lower in _ITEM_END):
        end += 1
    if not path or end == k:
        raise IcebergError(f"{what}: '{' '.join(t.text for t in item)}' is not 'name type [COMMENT …]'.")
    type_sql = ddl[item[k].start:item[end - 1].end]
    try:
        kind = parse_type(type_sql)
    except Exception:  # noqa: BLE001 - Spark's parse error: the statement and the type are named instead
        raise IcebergError(f"{what}: '{type_sql}' is not a type.") from None
    doc, first, after = None, False, None
    rest = item[end:]
    while rest:
        word = rest[0].lower if rest[0].kind == WORD else ""
        if word == "comment" and len(rest) > 1 and rest[1].kind == STRING:
            doc, rest = _string(rest[1]), rest[2:]
        elif word == "first":
            first, rest = True, rest[1:]
        elif word == "after" and len(rest) > 1 and rest[1].kind in (WORD, QUOTED):
            after, rest = rest[1].name, rest[2:]
        elif word == "not":
            raise IcebergError(f"{what}: column '{'.'.join(path)}' cannot be added NOT NULL (rows already written "
                               "have no value for it; Iceberg adds required columns only with a default); add it "
                               "nullable.")
        elif word == "default":
            raise IcebergError(f"{what}: column defaults are not written by the embedded Iceberg connector.")
        else:
            raise IcebergError(f"{what}: unexpected '{rest[0].text}' after column '{'.'.join(path)}'.")
    return NewColumn(tuple(path), kind, doc, first, after)


def _string(tok: Token) -> str:
    quote = tok.text[0]
    return tok.text[1:-1].replace(quote * 2, quote).replace("\\" + quote, quote)


def schema_change(plan: TablePlan, *, name: str, parse_type: Callable[[str], T.DataType],
                  properties: Callable[[Mapping[str, str]], dict[str, str]]) -> Callable[[Table], None]:
    """What the ALTER TABLE `plan` does to a table, as one transaction committed on the table given (checked
    against it first: IcebergError naming the statement and the rule)."""
    what = f"ALTER TABLE {name}"

    def apply(table: Table) -> None:
        if plan.action in ("set_properties", "unset_properties"):
            _change_properties(table, plan, what=what, properties=properties)
            return
        schema = table.schema()
        with table.transaction() as tx:
            update = tx.update_schema()
            _stage(update, plan, schema, table, what=what, parse_type=parse_type)
            update.commit()

    return apply


def _stage(update: UpdateSchema, plan: TablePlan, schema: Schema, table: Table, *, what: str,
           parse_type: Callable[[str], T.DataType]) -> None:
    """Stage the schema change of `plan` on `update` (pyiceberg), after checking it against `schema`."""
    try:
        if plan.action == "add_columns":
            for column in new_columns(plan.columns_ddl or "", what=f"{what} ADD COLUMNS", parse_type=parse_type):
                _add(update, column, schema, what=what)
        elif plan.action == "rename_column":
            old = _field(schema, plan.column or "", what=f"{what} RENAME COLUMN")
            new = plan.new_name or ""
            if "." in new:
                raise IcebergError(f"{what} RENAME COLUMN {plan.column} TO {new}: the new name is one name (a nested "
                                   "field keeps its struct).")
            parent = (plan.column or "").rsplit(".", 1)[0] + "." if "." in (plan.column or "") else ""
            if _has(schema, parent + new) and new.lower() != (plan.column or "").rsplit(".", 1)[-1].lower():
                raise IcebergError(f"{what} RENAME COLUMN: column '{parent}{new}' already exists.")
            update.rename_column(schema.find_column_name(old.field_id) or "", new)
        elif plan.action == "drop_columns":
            drops = [c for c in plan.keys if not plan.if_exists or _has(schema, c)]
            fields = [_field(schema, c, what=f"{what} DROP COLUMNS") for c in drops]
            _check_droppable(table, schema, fields, what=what)
            for found in fields:
                update.delete_column(schema.find_column_name(found.field_id) or "")
        elif plan.action == "column_type":
            found = _field(schema, plan.column or "", what=f"{what} ALTER COLUMN")
            wanted = iceberg_type(_parse(parse_type, plan.new_type or "", what), what)
            if wanted != found.field_type:
                _check_promotion(found, wanted, plan.column or "", what=what)
                update.update_column(schema.find_column_name(found.field_id) or "", field_type=wanted)
        elif plan.action == "column_comment":
            found = _field(schema, plan.column or "", what=f"{what} ALTER COLUMN")
            update.update_column(schema.find_column_name(found.field_id) or "", doc=plan.comment or "")
        elif plan.action == "column_optional":
            found = _field(schema, plan.column or "", what=f"{what} ALTER COLUMN")
            update.update_column(schema.find_column_name(found.field_id) or "", required=False)
        elif plan.action == "column_position":
            found = _field(schema, plan.column or "", what=f"{what} ALTER COLUMN")
            path = schema.find_column_name(found.field_id) or ""
            if plan.position == "first":
                update.move_first(path)
            else:
                after = _field(schema, _sibling(plan.column or "", plan.after or ""), what=f"{what} ALTER COLUMN")
                update.move_after(path, schema.find_column_name(after.field_id) or "")
        else:
            raise IcebergError(f"{what}: this form of ALTER TABLE is not supported by the embedded Iceberg connector.")
    except ValueError as exc:  # pyiceberg's own checks (a move across structs, …)
        raise IcebergError(f"{what}: {exc}") from None


def _add(update: UpdateSchema, column: NewColumn, schema: Schema, *, what: str) -> None:
    dotted = ".".join(column.path)
    if _has(schema, dotted):
        raise IcebergError(f"{what} ADD COLUMNS: column '{dotted}' already exists.")
    if len(column.path) > 1:
        parent = _field(schema, ".".join(column.path[:-1]), what=f"{what} ADD COLUMNS")
        if not parent.field_type.is_struct:
            raise IcebergError(f"{what} ADD COLUMNS: '{parent.name}' is not a struct, so '{dotted}' cannot be added.")
        column_path: str | tuple[str, ...] = (*(schema.find_column_name(parent.field_id) or "").split("."),
                                              column.path[-1])
    else:
        column_path = column.path[0]
    update.add_column(column_path, iceberg_type(column.kind, what), doc=column.doc)
    if column.first:
        update.move_first(column_path)
    elif column.after:
        after = _field(schema, _sibling(dotted, column.after), what=f"{what} ADD COLUMNS")
        update.move_after(column_path, schema.find_column_name(after.field_id) or "")


def _check_promotion(found: NestedField, wanted: IcebergType, column: str, *, what: str) -> None:
    """Iceberg's allowed type promotions only (rule iceberg-type-promotion)."""
    from pyiceberg import types as it

    old = found.field_type
    allowed = (isinstance(old, it.IntegerType) and isinstance(wanted, it.LongType)) or (
        isinstance(old, it.FloatType) and isinstance(wanted, it.DoubleType)) or (
        isinstance(old, it.DecimalType) and isinstance(wanted, it.DecimalType) and wanted.scale == old.scale
        and wanted.precision >= old.precision)
    if not allowed:
        raise IcebergError(f"{what} ALTER COLUMN {column} TYPE {type_text(wanted)}: Iceberg does not promote "
                           f"{type_text(old)} to {type_text(wanted)}; it allows only int → bigint, float → double "
                           f"and a decimal's precision widened at the same scale (rule {PROMOTION_RULE}).")


def _check_droppable(table: Table, schema: Schema, fields: list[NestedField], *, what: str) -> None:
    """A column a partition spec, the sort order or the identifier fields use is not dropped (Iceberg refuses)."""
    used: dict[int, str] = {}
    for spec in table.specs().values():
        for part in spec.fields:
            used.setdefault(part.source_id, f"partition field '{part.name}'")
    for sort in table.sort_orders().values():
        for sorted_field in sort.fields:
            used.setdefault(sorted_field.source_id, "the sort order")
    for identifier in schema.identifier_field_ids:
        used.setdefault(identifier, "the identifier fields")
    for found in fields:
        ids = {found.field_id} | ({f.field_id for f in _nested_fields(found.field_type)}
                                  if found.field_type.is_struct else set())
        hit = next((i for i in sorted(ids) if i in used), None)
        if hit is not None:
            raise IcebergError(f"{what} DROP COLUMNS: '{schema.find_column_name(found.field_id)}' is the source of "
                               f"{used[hit]}, so Iceberg cannot drop it (rule {PARTITION_SOURCE_RULE}).")
    top = {f.field_id for f in schema.fields}
    if top and top <= {f.field_id for f in fields}:
        raise IcebergError(f"{what} DROP COLUMNS: a table keeps at least one column.")


def _nested_fields(kind: IcebergType) -> list[NestedField]:
    from pyiceberg import types as it

    out: list[NestedField] = []
    if isinstance(kind, it.StructType):
        for child in kind.fields:
            out.append(child)
            out.extend(_nested_fields(child.field_type))
    return out


def _change_properties(table: Table, plan: TablePlan, *, what: str,
                       properties: Callable[[Mapping[str, str]], dict[str, str]]) -> None:
    with table.transaction() as tx:
        if plan.action == "set_properties":
            try:
                wanted = properties(plan.properties)  # path properties and unknown keys refused by name
            except IcebergError as exc:
                raise IcebergError(f"{what} SET TBLPROPERTIES: {exc}") from None
            version = wanted.pop("format-version", None)
            if version is not None:
                _upgrade(tx, version, what=what)
            if wanted:
                tx.set_properties(wanted)
            return
        current = {k.lower(): k for k in table.properties}
        missing = [k for k in plan.keys if k.lower() not in current]
        if missing and not plan.if_exists:
            raise IcebergError(f"{what} UNSET TBLPROPERTIES: {', '.join(missing)} is not set on the table (use UNSET "
                               "TBLPROPERTIES IF EXISTS).")
        present = [current[k.lower()] for k in plan.keys if k.lower() in current]
        if present:
            tx.remove_properties(*present)


def _upgrade(tx: Transaction, version: str, *, what: str) -> None:
    if version not in ("1", "2"):
        raise IcebergError(f"{what} SET TBLPROPERTIES: 'format-version' must be 1 or 2.")
    try:
        tx.upgrade_table_version(int(version))  # type: ignore[arg-type]  # pyiceberg types it as a Literal
    except ValueError as exc:
        raise IcebergError(f"{what} SET TBLPROPERTIES ('format-version' = '{version}'): {exc}") from None


def _parse(parse_type: Callable[[str], T.DataType], text: str, what: str) -> T.DataType:
    try:
        return parse_type(text)
    except Exception:  # noqa: BLE001 - Spark's parse error: the statement and the type are named instead
        raise IcebergError(f"{what}: '{text}' is not a type.") from None


def _sibling(column: str, name: str) -> str:
    """`name` in the struct `column` lives in (AFTER names a sibling)."""
    return column.rsplit(".", 1)[0] + "." + name if "." in column and "." not in name else name


def _has(schema: Schema, column: str) -> bool:
    try:
        schema.find_field(column, case_sensitive=False)
    except ValueError:
        return False
    return True


def _field(schema: Schema, column: str, *, what: str) -> NestedField:
    """The field `column` (dotted for nested fields, any case); IcebergError naming the columns otherwise."""
    try:
        return schema.find_field(column, case_sensitive=False)
    except ValueError:
        raise IcebergError(f"{what}: '{column}' is not a column of the table (columns: "
                           f"{', '.join(f.name for f in schema.fields)}).") from None


__all__ = ["PARTITION_SOURCE_RULE", "PROMOTION_RULE", "NewColumn", "new_columns", "schema_change"]
