"""Lakeport's statement splitter against Spark's own lexer (issue 28: the guard and Spark disagreed on where a `--`
comment ends, so `--x<CR>WITH (…)` hid relation options from the guard).

The oracle is Spark 4.3's `SqlBaseLexer`, driven over py4j on the suite's JVM exactly as Spark's parser drives it
(through `UpperCaseCharStream`). For generated texts full of edge cases — CR, CRLF, lone CR, U+2028/U+2029, nested
and hint comments, `--` at the end of the text, backslash escapes and line continuations, `$tag$` strings, quotes inside comments,
comments inside strings, `;` inside all of these — Lakeport's tokenizer must find the same comments, the same string
literals and quoted identifiers, and the same top-level `;` (so the same statement boundaries). Where Lakeport
refuses a text as unterminated, Spark's lexer must have found it broken too (an unrecognized character or an
unclosed comment, which its parser refuses).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from py4j.java_gateway import get_field  # type: ignore[import-untyped]

from lakeport_engine.sqltext import COMMENT, PUNCT, QUOTED, STRING, SqlTextError, split_statements, tokenize

pytestmark = pytest.mark.spark

COMMENT_TYPES = frozenset({"SIMPLE_COMMENT", "BRACKETED_COMMENT"})
LITERAL_TYPES = frozenset({"STRING_LITERAL", "DOUBLEQUOTED_STRING", "BACKQUOTED_IDENTIFIER"})


@dataclass(frozen=True)
class LexView:
    """What decides statement boundaries: comment spans, literal spans and the offsets of top-level `;`."""

    comments: tuple[tuple[int, int], ...]
    literals: tuple[tuple[int, int], ...]
    semicolons: tuple[int, ...]


def _comment_span(text: str, start: int, end: int) -> tuple[int, int]:
    # Spark's SIMPLE_COMMENT swallows the CR/LF that ends it; Lakeport leaves it as whitespace: compare without it
    while end > start and text[end - 1] in "\r\n":
        end -= 1
    return start, end


class SparkLexer:
    """Spark's SqlBaseLexer over py4j (token type names looked up once)."""

    def __init__(self, spark: Any) -> None:
        self.jvm = spark.sparkContext._jvm
        self.names: dict[int, str] = {}

    def view(self, text: str) -> tuple[LexView, bool]:
        """Spark's view of `text` and whether its lexer found it broken (unrecognized input, unclosed comment)."""
        parser = self.jvm.org.apache.spark.sql.catalyst.parser
        lexer = parser.SqlBaseLexer(parser.UpperCaseCharStream(self.jvm.org.antlr.v4.runtime.CharStreams.fromString(text)))
        comments, literals, semicolons, broken = [], [], [], False
        dollar = -1  # where an open $tag$ string began
        for token in lexer.getAllTokens():
            kind = token.getType()
            if kind not in self.names:
                self.names[kind] = str(lexer.getVocabulary().getSymbolicName(kind))
            name = self.names[kind]
            start, end = token.getStartIndex(), token.getStopIndex() + 1
            if name in COMMENT_TYPES:
                comments.append(_comment_span(text, start, end))
            elif name in LITERAL_TYPES:
                literals.append((start, end))
            elif name == "BEGIN_DOLLAR_QUOTED_STRING":
                dollar = start
            elif name == "END_DOLLAR_QUOTED_STRING":
                literals.append((dollar, end))
                dollar = -1
            elif name == "SEMICOLON":
                semicolons.append(start)
            elif name == "UNRECOGNIZED":
                broken = True
        broken |= dollar >= 0  # a $tag$ string left open: its body runs to the end, the parser refuses it
        broken |= bool(get_field(lexer, "has_unclosed_bracketed_comment"))  # Spark's parser refuses that too
        return LexView(tuple(comments), tuple(literals), tuple(semicolons)), broken


def lakeport_view(text: str) -> LexView:
    """Lakeport's view of `text` (raises SqlTextError for an unterminated literal or comment)."""
    tokens = tokenize(text)
    return LexView(
        tuple(_comment_span(text, t.start, t.end) for t in tokens if t.kind == COMMENT),
        tuple((t.start, t.end) for t in tokens if t.kind in (STRING, QUOTED)),
        tuple(t.start for t in tokens if t.kind == PUNCT and t.text == ";"),
    )


@pytest.fixture(scope="module")
def spark_lexer(spark: Any) -> SparkLexer:
    return SparkLexer(spark)


def assert_agree(spark_lexer: SparkLexer, text: str) -> None:
    spark_view, broken = spark_lexer.view(text)
    try:
        ours = lakeport_view(text)
    except SqlTextError as exc:
        assert broken, f"Lakeport refused {text!r} ({exc}) but Spark lexes it: {spark_view}"
        return
    assert ours == spark_view, f"{text!r}: Lakeport {ours} != Spark {spark_view}"


# Pieces that make boundaries hard: every comment opener/closer, quote, escape, line end and odd whitespace.
PIECES = [
    "--", "-", "/*", "*/", "/*+", "/", "*", "+", "'", '"', "`", "\\", ";", "\r", "\n", "\r\n", "\u2028", "\u2029",
    "\x85", "\x0b", "\x0c", "\x1c", "\u00a0", " ", "\t", "r", "R", "x", "X", "e", "é", "²", "_", "1", "$", "{", "}",
    "''", '""', "``", "$$", "$a$", "$A$", "$_$", "\\\n", "\\\r\n", "\\'", '\\"', "SELECT", "WITH (", "'url'", "=", "(", ")", ".", ",",
]
texts = st.lists(st.one_of(st.sampled_from(PIECES), st.text(alphabet="ab;'\"`-/*\r\n\\ ", max_size=3)),
                 max_size=40).map("".join)


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(text=texts)
@example(text="SELECT * FROM pg.public.orders --x\rWITH ('url'='jdbc:x', 'dbtable'='y')\nWHERE 1=1")
@example(text="SELECT 1 --x\r\n; SELECT 2 -- y\\\n; still comment\n;")
@example(text="/* a /* b */ ; */ ; /* c /*+ d */ ; e */ ;")
@example(text="SELECT /*+ REPARTITION(2); */ 1; 'it''s; \\'' ; \"a\"\"b;\" ; `x``;` ; r'\\' ; R\"\\\";\" --")
@example(text="SELECT 1 --\u2028; SELECT 2\u2029; -- at the end")
@example(text="'-- not a comment;' ; \"/* nor this; \" ; -- 'quote; in comment\n; /* \"q; */ ;")
def test_lakeport_splits_where_sparks_lexer_does(spark_lexer: SparkLexer, text: str) -> None:
    assert_agree(spark_lexer, text)


def test_the_exploit_of_issue_28_is_visible_code_and_one_statement(spark_lexer: SparkLexer) -> None:
    """The CR ends the comment for both: `WITH (…)` is code (the guard then refuses it from Spark's plan)."""
    text = "SELECT * FROM pg.public.orders --x\rWITH ('url'='jdbc:postgresql://127.0.0.1/lakeport')\nWHERE 1=1"
    assert_agree(spark_lexer, text)
    statements = split_statements(text)
    assert len(statements) == 1
    assert [t.text for t in statements[0].tokens if t.kind == COMMENT] == ["--x"]
