"""How a row filter or column mask expression is bound to its caller (`lakeport_engine/row_policy.py`), what shapes
are refused before Spark's parser sees them, and how the protocol checks the document's `rows`. No Spark here."""

from __future__ import annotations

import pytest

from lakeport_engine.protocol import ProtocolError, decode
from lakeport_engine.row_policy import ExpressionError, RowPolicy, bind_caller, expression_problems


@pytest.mark.parametrize(("text", "bound"), [
    ("current_user() = owner", "'ana' = owner"),
    ("CURRENT_USER = owner OR session_user() = 'x'", "'ana' = owner OR 'ana' = 'x'"),
    ("user() = owner", "'ana' = owner"),
    ("user = 'ana'", "user = 'ana'"),  # a bare `user` is a column name here
    ("is_member('Finance') OR is_member(\"hr\")", "TRUE OR FALSE"),
    ("t.current_user = 1", "t.current_user = 1"),  # a column after a qualifier, not the function
    ("note = 'current_user()' -- current_user()", "note = 'current_user()' -- current_user()"),  # strings, comments
    ("region = 'EU'", "region = 'EU'"),
])
def test_the_caller_is_bound_as_literals(text: str, bound: str) -> None:
    assert bind_caller(text, user="ana", groups=["finance"]) == bound


def test_a_name_with_a_quote_stays_one_literal() -> None:
    assert bind_caller("owner = current_user()", user="o'neil\\", groups=[]) == "owner = 'o\\'neil\\\\'"


@pytest.mark.parametrize(("text", "problem"), [
    ("", "Write an expression"),
    ("a = 1; DROP TABLE t", "no ';'"),
    ("id IN (SELECT id FROM other)", "Subqueries"),
    ("1) OR (1", "closes nothing"),
    ("(a = 1", "not closed"),
    ("is_member(region)", "is_member()"),
    ("is_member('a' || 'b')", "is_member()"),
    ("is_member('it''s')", "is_member()"),
    ("note = 'unterminated", "string"),
])
def test_shapes_refused_before_the_parser(text: str, problem: str) -> None:
    problems = expression_problems(text)
    assert problems and any(problem.lower() in p.lower() for p in problems), problems
    with pytest.raises(ExpressionError):
        bind_caller(text, user="ana", groups=[])


def _run(access: object) -> None:
    decode({"op": "run", "id": "r1", "request": {"mode": "preview", "script": "SELECT 1", "access": access}})


def test_the_protocol_checks_the_rows() -> None:
    doc = {"user": "ana", "admin": False, "governed": [], "grants": [],
           "rows": [{"table": "lake.db.t", "filter": "TRUE", "masks": {"email": "'***'"}, "visible": False}]}
    _run(doc)
    policy = RowPolicy.from_document(doc)  # type: ignore[arg-type]
    assert policy.get(("LAKE", "db", "T")) is not None and policy.hidden
    for bad in ({"table": "lake.db.t", "filter": 1, "masks": {}, "visible": False},
                {"table": "lake.db.t", "filter": None, "masks": {"email": 3}, "visible": False},
                {"table": "lake.db.t", "filter": None, "masks": {}}):
        with pytest.raises(ProtocolError):
            _run({**doc, "rows": [bad]})
