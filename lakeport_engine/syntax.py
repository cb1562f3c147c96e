"""Spark's own syntax check of a script, with nothing but a parser: no session, no catalog, no data.

The team engine's validation (`ScriptRunner.validate`) starts with this step, and the worker's parse server
(`lakeport_engine/parse_server.py`) answers with it alone while a team's engine is still starting, so the editor
never waits for an engine start to learn that a statement does not parse (issue 31). Parsing is pure: ANTLR and
Spark's AST builder read the text and build an unresolved plan; nothing is looked up or run.
"""

from __future__ import annotations

import re
from typing import Any, TypedDict

from lakeport_engine.grants_sql import is_access_statement
from lakeport_engine.matviews import view_statement_text
from lakeport_engine.sqltext import SqlTextError, Statement, delta_command, split_statements, use_catalog
from lakeport_kernel.redaction import redact

_POSITION = re.compile(r"\(line (\d+), pos (\d+)\)")


class SyntaxProblem(TypedDict):
    """One error of a script, as validation reports it (0-based statement, 1-based script line and column)."""

    statement: int
    line: int
    column: int
    message: str


def parse_error(parser: Any, stmt: Statement) -> tuple[int, int, str] | None:
    """Spark's parser message for the statement, at a script-absolute (line, column); None if it parses.

    `parser` is a JVM `ParserInterface` (a session's `sqlParser()` or a bare `SparkSqlParser`).
    """
    if use_catalog(stmt.tokens) is not None:
        return None  # USE CATALOG is ours; Spark's parser does not know it
    sql = stmt.sql
    if delta_command(sql) is not None:
        return None  # Delta's OPTIMIZE/VACUUM/RESTORE/DESCRIBE DETAIL: the Delta connector reads them
    if is_access_statement(sql):
        return None  # GRANT/REVOKE/SHOW GRANTS: ours (lakeport_engine/grants_sql.py), checked by the guard
    view = view_statement_text(sql)  # Spark has no grammar for materialized view statements: their query only
    if view is not None:
        if view.query is None:
            return None  # the Delta connector reads REFRESH/DROP/SHOW/… and says what is wrong
        sql = "".join(c if c == "\n" else " " for c in sql[:view.query_offset]) + sql[view.query_offset:]
    try:
        parser.parsePlan(sql)
    except Exception as exc:  # noqa: BLE001 - py4j raises Py4JJavaError carrying the ParseException
        java = getattr(exc, "java_exception", None)
        message = str(java.getMessage()) if java is not None else str(exc)
        if java is not None and "ParseException" not in java.getClass().getName():
            raise
        return translate_position(stmt, message)
    return None


def translate_position(stmt: Statement, message: str) -> tuple[int, int, str]:
    """Replace Spark's statement-relative `(line L, pos P)` with the script-absolute line and column."""
    match = _POSITION.search(message)
    if match is None:
        return stmt.line, stmt.column, message.strip()
    line, column = stmt.position(int(match.group(1)), int(match.group(2)))
    text = _POSITION.sub(f"(line {line}, column {column})", message, count=1).strip()
    return line, column, text


def statement_at(script: str, offset: int) -> int:
    """0-based index of the statement that contains `offset` (the text before it tokenizes)."""
    return max(0, len(split_statements(script[:offset] + "x")) - 1)


def split_problem(script: str, exc: SqlTextError) -> SyntaxProblem:
    """The error of a script that cannot even be split into statements (an unclosed string or comment)."""
    return {"statement": statement_at(script, exc.offset), "line": exc.line, "column": exc.column,
            "message": str(exc)}


def syntax_message(stmt: Statement, message: str) -> str:
    """How validation words a parse error of statement `stmt`."""
    return redact(f"Syntax error in statement {stmt.index + 1}: {message}")


def syntax_problems(parser: Any, script: str) -> list[SyntaxProblem]:
    """Every syntax error of `script` (splitting, then Spark's parser per statement), in statement order."""
    try:
        statements = split_statements(script)
    except SqlTextError as exc:
        return [split_problem(script, exc)]
    problems: list[SyntaxProblem] = []
    for stmt in statements:
        found = parse_error(parser, stmt)
        if found is not None:
            line, column, message = found
            problems.append({"statement": stmt.index, "line": line, "column": column,
                             "message": syntax_message(stmt, message)})
    return problems
