"""Row filters and column masks in the engine (docs/access.md, "Row filters and column masks").

The platform sends every filter and mask of the team in the request's `AccessDocument` (`rows`), with the caller
already bound into each expression (`bind_caller`: `current_user()` → the caller's name, `is_member('g')` → a
literal). `RowPolicy.protect()` applies them to the DataFrame a connector makes of a table — a `Filter`, then a
`Project` of the masked columns cast to their own types — before the snapshot view is registered, so every view,
CTE, subquery, join or set operation the user writes reads the protected rows only. What cannot be protected that
way is refused by name (`RowPolicyRefusal`, rule `row-policy`), and a refusal never carries an expression.

Imports no Django: the engines use it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lakeport_engine.errors import SparkRuntimeError
from lakeport_engine.protocol import AccessDocument
from lakeport_engine.sqltext import PUNCT, STRING, WORD, SqlTextError, Token, significant, tokenize

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

RULE = "row-policy"
# Spark's functions for the session user: bound to the caller, since the engine's own user is an OS account.
USER_FUNCTIONS = frozenset({"current_user", "session_user", "user"})
# Functions and columns that read where a row came from: below a filter they still name every file of the table.
FILE_FUNCTIONS = frozenset({"input_file_name", "input_file_block_start", "input_file_block_length"})
METADATA_COLUMN = "_metadata"


class RowPolicyRefusal(SparkRuntimeError):
    """A statement that cannot be run with a table's row filter or column masks in force (names the table)."""

    def __init__(self, detail: str, *, statement: int | None = None) -> None:
        super().__init__(f"{detail}; the table has a row filter or column masks (rule: {RULE})", statement=statement)
        self.rule = RULE


class ExpressionError(ValueError):
    """A row filter or column mask expression of a shape the engine does not bind (the message says what)."""


def expression_problems(text: str) -> list[str]:
    """What keeps `text` from being one filter or mask expression (empty when its shape is fine): one expression,
    no `;`, no subquery, parentheses balanced, `is_member()` with one plain string. Spark's parser decides the rest."""
    try:
        tokens = significant(tokenize(text))
    except SqlTextError as exc:
        return [str(exc)]
    if not tokens:
        return ["Write an expression."]
    problems: list[str] = []
    depth = 0
    for k, tok in enumerate(tokens):
        if tok.kind == PUNCT and tok.text == ";":
            problems.append("An expression has no ';'.")
        elif tok.kind == WORD and tok.lower == "select":
            problems.append("Subqueries are not allowed in a row filter or column mask.")
        elif tok.kind == PUNCT and tok.text == "(":
            depth += 1
        elif tok.kind == PUNCT and tok.text == ")":
            depth -= 1
            if depth < 0:
                problems.append("A ')' closes nothing.")
                depth = 0
        elif tok.kind == WORD and tok.lower == "is_member" and _group_name(tokens, k) is None:
            problems.append("is_member() takes one group name as a plain string: is_member('analysts').")
    if depth:
        problems.append("A '(' is not closed.")
    return list(dict.fromkeys(problems))


def bind_caller(text: str, *, user: str, groups: Iterable[str]) -> str:
    """`text` with the caller bound: `current_user()` (and `session_user()`, `user()`, bare `current_user`) as the
    caller's name, `is_member('g')` as TRUE or FALSE. ExpressionError when its shape is wrong."""
    problems = expression_problems(text)
    if problems:
        raise ExpressionError(problems[0])
    tokens = significant(tokenize(text))
    member = {g.lower() for g in groups}
    pieces: list[str] = []
    at = 0
    k = 0
    while k < len(tokens):
        tok = tokens[k]
        after_dot = k > 0 and tokens[k - 1].text == "."
        call = _is_call(tokens, k)
        if tok.kind == WORD and tok.lower in USER_FUNCTIONS and not after_dot and (
                call or tok.lower in ("current_user", "session_user")):
            end = tokens[k + 2].end if call else tok.end
            pieces += [text[at:tok.start], _string_literal(user)]
            at, k = end, k + (3 if call else 1)
            continue
        if tok.kind == WORD and tok.lower == "is_member" and not after_dot:
            name = _group_name(tokens, k)
            assert name is not None  # expression_problems checked it
            pieces += [text[at:tok.start], "TRUE" if name.lower() in member else "FALSE"]
            at, k = tokens[k + 3].end, k + 4
            continue
        k += 1
    pieces.append(text[at:])
    return "".join(pieces)


def _is_call(tokens: list[Token], k: int) -> bool:
    return k + 2 < len(tokens) and tokens[k + 1].text == "(" and tokens[k + 2].text == ")"


def _group_name(tokens: list[Token], k: int) -> str | None:
    """The plain string of `is_member('g')` at token `k`, or None."""
    if k + 3 >= len(tokens) or tokens[k + 1].text != "(" or tokens[k + 3].text != ")":
        return None
    arg = tokens[k + 2]
    if arg.kind != STRING or arg.text[:1] not in ("'", '"'):
        return None
    inner = arg.text[1:-1]
    return None if ("\\" in inner or "'" in inner or '"' in inner) else inner


def _string_literal(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


@dataclass(frozen=True)
class TablePolicy:
    """The filter and masks of one table as they apply to the caller (expressions bound)."""

    table: tuple[str, str, str]
    row_filter: str | None = None
    masks: Mapping[str, str] = field(default_factory=dict)  # column (lower case) → expression
    visible: bool = False  # the caller may see the expressions (team admin, MANAGE on the table)

    @property
    def name(self) -> str:
        return ".".join(self.table)


class RowPolicy:
    """Every filtered or masked table of one request, by `(catalog, database, table)`."""

    def __init__(self, tables: Iterable[TablePolicy] = ()) -> None:
        self.tables = {t.table: t for t in tables}

    @classmethod
    def from_document(cls, doc: AccessDocument | None) -> RowPolicy:
        """The policy of a request's document (empty: nothing is filtered)."""
        entries: list[TablePolicy] = []
        for entry in (doc.get("rows") or []) if doc is not None else []:
            parts = tuple(p.strip().lower() for p in entry["table"].split("."))
            if len(parts) != 3:
                continue  # the platform validates names; a malformed one names no table
            entries.append(TablePolicy((parts[0], parts[1], parts[2]), entry["filter"],
                                       {c.lower(): e for c, e in entry["masks"].items()}, bool(entry["visible"])))
        return cls(entries)

    def __bool__(self) -> bool:
        return bool(self.tables)

    def get(self, target: Iterable[str]) -> TablePolicy | None:
        """The policy of table `(catalog, database, table)`, or None when it has neither filter nor mask."""
        parts = tuple(str(p).lower() for p in target)
        if len(parts) != 3:
            return None
        return self.tables.get((parts[0], parts[1], parts[2]))

    @property
    def hidden(self) -> bool:
        """True when some table's expressions are not the caller's to see (errors are then cut to their first line)."""
        return any(not t.visible for t in self.tables.values())

    def protect(self, frame: DataFrame, target: Iterable[str]) -> DataFrame:
        """`frame` (a read of table `target`) with its filter and masks applied; RowPolicyRefusal when they do not
        apply to it (a column they name is missing, a type does not fit)."""
        policy = self.get(target)
        if policy is None:
            return frame
        from pyspark.sql import functions as F  # noqa: N812 - PySpark's own convention

        try:
            if policy.row_filter:
                frame = frame.where(F.expr(f"({policy.row_filter})"))
            if policy.masks:
                fields = {f.name.lower(): f for f in frame.schema.fields}
                missing = sorted(set(policy.masks) - set(fields))
                if missing:
                    raise RowPolicyRefusal(f"the mask on column '{missing[0]}' of table '{policy.name}' names a "
                                           "column the table does not have; ask the table's manager")
                frame = frame.select([
                    F.expr(f"({policy.masks[f.name.lower()]})").cast(f.dataType).alias(f.name)
                    if f.name.lower() in policy.masks else F.col("`" + f.name.replace("`", "``") + "`")
                    for f in frame.schema.fields])
        except RowPolicyRefusal:
            raise
        except Exception:  # noqa: BLE001 - Spark's message would print the expression: the refusal names the table
            raise RowPolicyRefusal(f"the row filter or a column mask of table '{policy.name}' does not apply to it "
                                   "(a column it names is missing or of another type); ask the table's manager"
                                   ) from None
        return frame

    def refuse(self, target: Iterable[str], what: str) -> None:
        """Refuse `what` (e.g. "UPDATE") of table `target` when it has a filter or mask."""
        policy = self.get(target)
        if policy is not None:
            raise RowPolicyRefusal(f"{what} of table '{policy.name}' is not allowed")

    def refuse_hidden(self, target: Iterable[str], what: str) -> None:
        """Refuse `what` of table `target` when it has a filter or mask the caller may not see."""
        policy = self.get(target)
        if policy is not None and not policy.visible:
            raise RowPolicyRefusal(f"{what} of table '{policy.name}' is not allowed")


def session_row_policy(spark: object) -> RowPolicy:
    """The request's policy, set on its Spark session by the script runner (none set: nothing filtered)."""
    policy = getattr(spark, "_lakeport_row_policy", None)
    return policy if isinstance(policy, RowPolicy) else RowPolicy()


__all__ = ["FILE_FUNCTIONS", "METADATA_COLUMN", "RULE", "ExpressionError", "RowPolicy", "RowPolicyRefusal",
           "TablePolicy", "bind_caller", "expression_problems", "session_row_policy"]
