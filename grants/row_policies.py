"""Writes of row filters and column masks (docs/access.md, "Row filters and column masks").

Team admins and holders of MANAGE on the table attach, change and remove them. An expression is checked on save:
its shape by `lakeport_engine.row_policy.expression_problems` (one expression, no subquery, `is_member('g')` with a
plain string), then by Spark's own parser (the parse server, through `grants/hooks.py`). Every change reaches the
catalog history in the same transaction, without the expression.
"""

from __future__ import annotations

import re

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from core.errors import Conflict, InvalidInput, Unavailable
from grants.hooks import expression_parser, policy_changed
from grants.models import ColumnMask, RowFilter
from grants.services import may_manage
from lakeport_engine.access import securable_parts
from lakeport_engine.row_policy import expression_problems
from teams.models import Team

COLUMN_RE = re.compile(r"^[a-z_][a-z0-9_]{0,127}$")
MAX_EXPRESSION = 4000
_WHAT = "Changing row filters and column masks"


def policy_table(text: str) -> tuple[str, str, str]:
    """`cat.db.t` as its three parts (lower case), or InvalidInput naming `table`."""
    try:
        parts = securable_parts(text)
    except ValueError as exc:
        raise InvalidInput.of({"table": [str(exc)]}) from None
    if len(parts) != 3 or "*" in parts:
        raise InvalidInput.of({"table": [f"'{text}' is not a table: write catalog.schema.table."]})
    return parts[0], parts[1], parts[2]


def policy_column(text: str) -> str:
    """A column name as stored (lower case, unquoted), or InvalidInput naming `column`."""
    column = text.strip().strip("`").lower()
    if not COLUMN_RE.match(column):
        raise InvalidInput.of({"column": [f"'{text}' is not a column name (letters, digits and '_')."]})
    return column


def check_expression(text: str, *, kind: str) -> str:
    """`text` stripped, or InvalidInput naming `expression`: its shape, then Spark's parser. `kind` is "filter"
    (a boolean, parsed as a WHERE condition) or "mask" (a scalar, parsed as a select item)."""
    text = text.strip()
    if not text or len(text) > MAX_EXPRESSION:
        raise InvalidInput.of({"expression": [f"Write an expression of 1 to {MAX_EXPRESSION} characters."]})
    problems = expression_problems(text)
    if problems:
        raise InvalidInput.of({"expression": problems})
    parser = expression_parser()
    if parser is None:
        raise Unavailable("Spark's parser is not available to check the expression; try again in a moment.")
    sql = (f"SELECT * FROM __lakeport_table WHERE ({text})" if kind == "filter"
           else f"SELECT ({text}) AS __lakeport_mask FROM __lakeport_table")
    error = parser(sql)
    if error is not None:
        # Spark's message points into the wrapped statement: the user is told what it says, not where
        message = re.sub(r"\s*\(line \d+, (?:column|pos) \d+\)", "", error.split("\n")[0])
        message = message.replace("Syntax error in statement 1: ", "")
        raise InvalidInput.of({"expression": [f"Spark cannot parse it: {message}"]})
    return text


def row_filter_create(*, team: Team, actor: User | None, table: str, expression: str, description: str = "",
                      operator: str | None = None) -> RowFilter:
    """Attach a row filter to `table` (one per table: Conflict when it has one), as `actor` or, with no user, the
    shell's `operator` (`cli:<OS user>`, recorded by that name)."""
    parts = policy_table(table)
    may_manage(team=team, actor=actor, securable=parts, what=_WHAT, operator=operator)
    text = check_expression(expression, kind="filter")
    name = ".".join(parts)
    try:
        with transaction.atomic():
            found = RowFilter.objects.create(team=team, table=name, catalog=parts[0], expression=text,
                                             description=description, created_by=actor, updated_by=actor)
            policy_changed(team_id=team.pk, table=name, column=None, change="added", actor=actor, actor_name=operator)
    except IntegrityError:
        raise Conflict(f"Table '{name}' already has a row filter; change it instead.") from None
    return found


def row_filter_update(*, row_filter: RowFilter, actor: User | None, expression: str | None = None,
                      description: str | None = None, operator: str | None = None) -> RowFilter:
    """Change a row filter's expression or description."""
    may_manage(team=row_filter.team, actor=actor, securable=policy_table(row_filter.table), what=_WHAT,
                operator=operator)
    with transaction.atomic():
        if expression is not None:
            row_filter.expression = check_expression(expression, kind="filter")
        if description is not None:
            row_filter.description = description
        row_filter.updated_by, row_filter.updated_at = actor, timezone.now()
        row_filter.save()
        policy_changed(team_id=row_filter.team_id, table=row_filter.table, column=None, change="changed",
                       actor=actor, actor_name=operator)
    return row_filter


def row_filter_delete(*, row_filter: RowFilter, actor: User | None, operator: str | None = None) -> None:
    """Remove a row filter."""
    may_manage(team=row_filter.team, actor=actor, securable=policy_table(row_filter.table), what=_WHAT,
                operator=operator)
    with transaction.atomic():
        policy_changed(team_id=row_filter.team_id, table=row_filter.table, column=None, change="removed",
                       actor=actor, actor_name=operator)
        row_filter.delete()


def column_mask_create(*, team: Team, actor: User | None, table: str, column: str, expression: str,
                       description: str = "", operator: str | None = None) -> ColumnMask:
    """Attach a mask to `column` of `table` (one per column: Conflict when it has one); `operator` as for filters."""
    parts = policy_table(table)
    name, col = ".".join(parts), policy_column(column)
    may_manage(team=team, actor=actor, securable=parts, what=_WHAT, operator=operator)
    text = check_expression(expression, kind="mask")
    try:
        with transaction.atomic():
            mask = ColumnMask.objects.create(team=team, table=name, catalog=parts[0], column=col, expression=text,
                                             description=description, created_by=actor, updated_by=actor)
            policy_changed(team_id=team.pk, table=name, column=col, change="added", actor=actor, actor_name=operator)
    except IntegrityError:
        raise Conflict(f"Column '{col}' of table '{name}' already has a mask; change it instead.") from None
    return mask


def column_mask_update(*, mask: ColumnMask, actor: User | None, expression: str | None = None,
                       description: str | None = None, operator: str | None = None) -> ColumnMask:
    """Change a column mask's expression or description."""
    may_manage(team=mask.team, actor=actor, securable=policy_table(mask.table), what=_WHAT,
                operator=operator)
    with transaction.atomic():
        if expression is not None:
            mask.expression = check_expression(expression, kind="mask")
        if description is not None:
            mask.description = description
        mask.updated_by, mask.updated_at = actor, timezone.now()
        mask.save()
        policy_changed(team_id=mask.team_id, table=mask.table, column=mask.column, change="changed", actor=actor,
                       actor_name=operator)
    return mask


def column_mask_delete(*, mask: ColumnMask, actor: User | None, operator: str | None = None) -> None:
    """Remove a column mask."""
    may_manage(team=mask.team, actor=actor, securable=policy_table(mask.table), what=_WHAT,
                operator=operator)
    with transaction.atomic():
        policy_changed(team_id=mask.team_id, table=mask.table, column=mask.column, change="removed", actor=actor,
                       actor_name=operator)
        mask.delete()
