"""Reading the table-change and maintenance statements of an embedded Delta catalog.

    ALTER TABLE t ADD COLUMN[S] (c type [COMMENT '…'], …)
    ALTER TABLE t SET TBLPROPERTIES ('k' = 'v', …) | UNSET TBLPROPERTIES [IF EXISTS] ('k', …)
    ALTER TABLE t ALTER|CHANGE [COLUMN] c COMMENT '…'
    ALTER TABLE t RENAME COLUMN a TO b | DROP COLUMN[S] [IF EXISTS] (a, …)   (column-mapped tables)
    RESTORE [TABLE] t [TO] VERSION|TIMESTAMP AS OF <n | expr>
    DESC[RIBE] DETAIL t
    OPTIMIZE t [WHERE <partition predicate>] [ZORDER BY (c, …)]
    VACUUM t [RETAIN n HOURS] [DRY RUN]

sqlglot has no grammar for the last four (Delta's SQL extensions), and reads ALTER TABLE only partly; the project's
tokens are enough for these fixed shapes. Other ALTER TABLE forms on a Delta table are refused by name.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lakeport_engine.delta.errors import DeltaConnectorError
from lakeport_engine.delta.statements import Plan, StatementReader, _Cursor
from lakeport_engine.sqltext import PUNCT, QUOTED, STRING, WORD
from lakeport_engine.sqltext import Token as TextToken

TABLE_KINDS = ("alter_table", "restore", "describe_detail", "optimize", "vacuum")


@dataclass
class TablePlan(Plan):
    """A table-change or maintenance statement; `target` is the table."""

    action: str = ""  # ALTER TABLE: add_columns | set_properties | unset_properties | column_comment | rename_column
    #                   | drop_columns; Iceberg catalogs also column_type | column_position | column_optional
    column: str | None = None  # ALTER COLUMN c COMMENT, RENAME COLUMN c TO …
    new_name: str | None = None  # RENAME COLUMN … TO new_name
    keys: list[str] = field(default_factory=list)  # UNSET TBLPROPERTIES, DROP COLUMNS
    new_type: str | None = None  # ALTER COLUMN c TYPE <type>, as written (Iceberg catalogs)
    position: str | None = None  # ALTER COLUMN c FIRST | AFTER <after> (Iceberg catalogs)
    after: str | None = None
    restore_version: int | None = None
    restore_timestamp_sql: str | None = None
    where: str | None = None  # OPTIMIZE … WHERE, as written
    zorder: list[str] = field(default_factory=list)
    retain_hours: float | None = None
    dry_run: bool = False


def read_table_statement(reader: StatementReader, sql: str) -> TablePlan | Plan | None:
    """The plan of an ALTER TABLE / RESTORE / DESCRIBE DETAIL / OPTIMIZE / VACUUM on a Delta table, else None."""
    text = sql.strip().rstrip(";").strip()
    cursor = _Cursor.of(text)
    if cursor is None:
        return None
    verb = cursor.word("alter", "restore", "desc", "describe", "optimize", "vacuum")
    if verb is None:
        return None
    if verb == "alter":
        if not cursor.word("table"):
            return None
        return _alter(reader, text, cursor)
    if verb in ("desc", "describe"):
        if not cursor.word("detail"):
            return None
        plan = _targeted(reader, text, cursor, "describe_detail", "DESCRIBE DETAIL")
        if plan is not None and not cursor.done():
            raise DeltaConnectorError(f"DESCRIBE DETAIL {plan.target} takes only a table name.")
        return plan
    if verb == "restore":
        cursor.word("table")
        plan = _targeted(reader, text, cursor, "restore", "RESTORE TABLE")
        if plan is None:
            return None
        cursor.word("to")
        kind = cursor.word("version", "timestamp")
        if kind is None or not (cursor.word("as") and cursor.word("of")) or cursor.done():
            raise DeltaConnectorError(f"RESTORE TABLE {plan.target} needs TO VERSION AS OF <n> or TO TIMESTAMP AS OF "
                                      "<timestamp>.")
        rest = text[cursor.tokens[cursor.position].start:].strip()
        if kind == "version":
            if not rest.isdigit():
                raise DeltaConnectorError(f"RESTORE TABLE {plan.target}: VERSION AS OF needs a version number, "
                                          f"not '{rest}'.")
            plan.restore_version = int(rest)
        else:
            plan.restore_timestamp_sql = rest
        return plan
    if verb == "optimize":
        plan = _targeted(reader, text, cursor, "optimize", "OPTIMIZE")
        if plan is None:
            return None
        if cursor.word("where"):
            start = cursor.position
            while not cursor.done() and not _at(cursor, "zorder"):
                cursor.position += 1
            if cursor.position == start:
                raise DeltaConnectorError(f"OPTIMIZE {plan.target} WHERE needs a partition predicate.")
            end = cursor.tokens[cursor.position - 1].end
            plan.where = text[cursor.tokens[start].start:end].strip()
        if cursor.word("zorder"):
            if not cursor.word("by"):
                raise DeltaConnectorError(f"OPTIMIZE {plan.target}: ZORDER needs BY (column, …).")
            plan.zorder = _name_list(cursor, f"OPTIMIZE {plan.target} ZORDER BY")
            if not plan.zorder:
                raise DeltaConnectorError(f"OPTIMIZE {plan.target}: ZORDER BY needs at least one column.")
        if not cursor.done():
            raise DeltaConnectorError(f"OPTIMIZE {plan.target}: unexpected '{cursor.tokens[cursor.position].text}' "
                                      "(OPTIMIZE t [WHERE <partition predicate>] [ZORDER BY (c, …)]).")
        return plan
    plan = _targeted(reader, text, cursor, "vacuum", "VACUUM")
    if plan is None:
        return None
    if cursor.word("retain"):
        tok = cursor._peek()
        try:
            hours = float(tok.text) if tok is not None and tok.kind == WORD else None
        except ValueError:
            hours = None
        if hours is None or hours < 0:
            raise DeltaConnectorError(f"VACUUM {plan.target}: RETAIN needs a number of hours (RETAIN 168 HOURS).")
        cursor.position += 1
        if not cursor.word("hours"):
            raise DeltaConnectorError(f"VACUUM {plan.target}: RETAIN takes hours (RETAIN {tok.text if tok else ''} "
                                      "HOURS).")
        plan.retain_hours = hours
    if cursor.word("dry"):
        if not cursor.word("run"):
            raise DeltaConnectorError(f"VACUUM {plan.target}: DRY must be followed by RUN.")
        plan.dry_run = True
    if not cursor.done():
        raise DeltaConnectorError(f"VACUUM {plan.target}: unexpected '{cursor.tokens[cursor.position].text}' "
                                  "(VACUUM t [RETAIN n HOURS] [DRY RUN]).")
    return plan


def _targeted(reader: StatementReader, text: str, cursor: _Cursor, kind: str, verb: str) -> TablePlan | None:
    """The plan for `kind` on the Delta table named at the cursor; None when the name is no Delta table."""
    name = cursor.name()
    if not name:
        return None
    ref = reader.table(name)
    if ref is None or (len(name) == 1 and reader.is_temp_view(name[0])):
        return None
    return TablePlan(kind, text, target=ref, reason=verb)


def _alter(reader: StatementReader, text: str, cursor: _Cursor) -> TablePlan | Plan | None:
    plan = _targeted(reader, text, cursor, "alter_table", "ALTER TABLE")
    if plan is None:
        return None
    ref = plan.target
    verb = cursor.word("add", "set", "unset", "alter", "change", "rename", "drop", "replace")
    if verb == "add" and cursor.word("columns", "column"):
        tok = cursor._peek()
        if tok is not None and tok.kind == PUNCT and tok.text == "(":
            close = _closing(cursor)
            plan.columns_ddl = text[tok.end:cursor.tokens[close].start].strip()
            cursor.position = close + 1
        elif tok is not None:
            plan.columns_ddl = text[tok.start:].strip()
            cursor.position = len(cursor.tokens)
        if not plan.columns_ddl or not cursor.done():
            raise DeltaConnectorError(f"ALTER TABLE {ref} ADD COLUMNS needs (name type [COMMENT '…'], …).")
        plan.action = "add_columns"
        return plan
    if verb == "set" and cursor.word("tblproperties"):
        for key, value in _properties(cursor, f"ALTER TABLE {ref} SET TBLPROPERTIES", values=True):
            plan.properties[key] = value or ""
        plan.action = "set_properties"
        return plan
    if verb == "unset" and cursor.word("tblproperties"):
        plan.if_exists = bool(cursor.word("if") and cursor.word("exists"))
        plan.keys = [k for k, _ in _properties(cursor, f"ALTER TABLE {ref} UNSET TBLPROPERTIES", values=False)]
        plan.action = "unset_properties"
        return plan
    if verb in ("alter", "change"):
        cursor.word("column")
        column = cursor.name()
        if not column:
            raise DeltaConnectorError(f"ALTER TABLE {ref} ALTER COLUMN needs a column name.")
        if cursor.word("comment"):
            tok = cursor._peek()
            if tok is None or tok.kind != STRING or cursor.position + 1 != len(cursor.tokens):
                raise DeltaConnectorError(f"ALTER TABLE {ref} ALTER COLUMN {'.'.join(column)} COMMENT needs one "
                                          "string literal.")
            plan.column, plan.comment, plan.action = ".".join(column), _string(tok), "column_comment"
            return plan
        what = cursor.word("type", "set", "drop", "first", "after")
        if reader.table_format == "iceberg":
            return _iceberg_column_change(plan, text, cursor, ".".join(column), what)
        if what == "type":
            return Plan("unsupported", text, reason="ALTER TABLE … ALTER COLUMN … TYPE (type widening is not written by "
                                                    "the embedded Delta connector yet)")
        return Plan("unsupported", text, reason="this ALTER TABLE … ALTER COLUMN form (only COMMENT '…' is)")
    if verb == "rename" and cursor.word("column"):
        old = cursor.name()
        if not old or not cursor.word("to"):
            raise DeltaConnectorError(f"ALTER TABLE {ref} RENAME COLUMN needs 'old TO new'.")
        new = cursor.name()
        if not new or not cursor.done():
            raise DeltaConnectorError(f"ALTER TABLE {ref} RENAME COLUMN needs 'old TO new'.")
        plan.column, plan.new_name, plan.action = ".".join(old), ".".join(new), "rename_column"
        return plan
    if verb == "drop" and cursor.word("column", "columns"):
        plan.if_exists = bool(cursor.word("if") and cursor.word("exists"))
        plan.keys = _name_list(cursor, f"ALTER TABLE {ref} DROP COLUMNS")
        if not cursor.done():
            raise DeltaConnectorError(f"ALTER TABLE {ref} DROP COLUMNS: unexpected "
                                      f"'{cursor.tokens[cursor.position].text}'.")
        plan.action = "drop_columns"
        return plan
    return Plan("unsupported", text, reason="this form of ALTER TABLE (ADD COLUMNS, SET/UNSET TBLPROPERTIES, "
                                            "ALTER COLUMN … COMMENT, RENAME COLUMN and DROP COLUMNS are supported)")


def _iceberg_column_change(plan: TablePlan, text: str, cursor: _Cursor, column: str, what: str | None) -> TablePlan:
    """ALTER COLUMN c TYPE t | DROP NOT NULL | FIRST | AFTER x on an Iceberg table (the connector judges them)."""
    ref = plan.target
    plan.column = column
    if what == "type" and not cursor.done():
        plan.new_type, plan.action = text[cursor.tokens[cursor.position].start:].strip(), "column_type"
        return plan
    if what == "drop" and cursor.word("not") and cursor.word("null") and cursor.done():
        plan.action = "column_optional"
        return plan
    if what == "first" and cursor.done():
        plan.position, plan.action = "first", "column_position"
        return plan
    if what == "after":
        after = cursor.name()
        if after and cursor.done():
            plan.position, plan.after, plan.action = "after", ".".join(after), "column_position"
            return plan
    if what == "set" and cursor.word("not") and cursor.word("null"):
        raise DeltaConnectorError(f"ALTER TABLE {ref} ALTER COLUMN {column} SET NOT NULL: Iceberg does not make an "
                                  "optional column required (rows already written may hold NULL).")
    raise DeltaConnectorError(f"ALTER TABLE {ref} ALTER COLUMN {column}: write COMMENT '…', TYPE <type>, DROP NOT "
                              "NULL, FIRST or AFTER <column>.")


def _at(cursor: _Cursor, word: str) -> bool:
    tok = cursor._peek()
    return tok is not None and tok.kind == WORD and tok.lower == word


def _closing(cursor: _Cursor) -> int:
    """Index of the parenthesis closing the one at the cursor."""
    depth = 0
    for index in range(cursor.position, len(cursor.tokens)):
        tok = cursor.tokens[index]
        if tok.kind == PUNCT and tok.text == "(":
            depth += 1
        elif tok.kind == PUNCT and tok.text == ")":
            depth -= 1
            if depth == 0:
                return index
    raise DeltaConnectorError("unbalanced parentheses in the statement.")


def _string(tok: TextToken) -> str:
    quote = tok.text[0]
    return tok.text[1:-1].replace(quote * 2, quote).replace("\\" + quote, quote)


def _name_list(cursor: _Cursor, what: str) -> list[str]:
    """`(a, b)` or `a, b`: column names."""
    parens = _at_punct(cursor, "(")
    if parens:
        cursor.position += 1
    names: list[str] = []
    while True:
        name = cursor.name()
        if not name:
            raise DeltaConnectorError(f"{what} needs column names.")
        names.append(".".join(name))
        if not _at_punct(cursor, ","):
            break
        cursor.position += 1
    if parens:
        if not _at_punct(cursor, ")"):
            raise DeltaConnectorError(f"{what}: missing ')'.")
        cursor.position += 1
    return names


def _at_punct(cursor: _Cursor, text: str) -> bool:
    tok = cursor._peek()
    return tok is not None and tok.kind == PUNCT and tok.text == text


def _properties(cursor: _Cursor, what: str, *, values: bool) -> list[tuple[str, str | None]]:
    """`('k' = 'v', k.x = v, …)` (or keys only): the pairs as written, keys unquoted."""
    if not _at_punct(cursor, "("):
        raise DeltaConnectorError(f"{what} needs a parenthesised list.")
    close = _closing(cursor)
    items: list[list[TextToken]] = [[]]
    for tok in cursor.tokens[cursor.position + 1:close]:
        if tok.kind == PUNCT and tok.text == ",":
            items.append([])
        else:
            items[-1].append(tok)
    cursor.position = close + 1
    if not cursor.done():
        raise DeltaConnectorError(f"{what}: unexpected '{cursor.tokens[cursor.position].text}' after the list.")
    pairs: list[tuple[str, str | None]] = []
    for item in items:
        equals = next((i for i, t in enumerate(item) if t.kind == PUNCT and t.text == "="), None)
        key_tokens = item if equals is None else item[:equals]
        value_tokens = [] if equals is None else item[equals + 1:]
        key = "".join(_string(t) if t.kind == STRING else t.name if t.kind == QUOTED else t.text for t in key_tokens)
        if not key or (values and len(value_tokens) != 1) or (not values and equals is not None):
            raise DeltaConnectorError(f"{what}: '{' '.join(t.text for t in item)}' is not "
                                      f"{'key = value' if values else 'a property key'}.")
        value = None
        if value_tokens:
            tok = value_tokens[0]
            value = _string(tok) if tok.kind == STRING else tok.text
        pairs.append((key, value))
    return pairs
