"""The one streaming statement shape, read with sqlglot's Spark tokenizer:

    INSERT INTO <catalog>.<db>.<table> [(col, …)]
    SELECT … FROM STREAM(<catalog>.<db>.<stream>) [WATERMARK col DELAY OF INTERVAL …] … [EMIT …]

`parse_streaming` finds the target, every `STREAM(…)` source (their spans, to put the platform's stream views
in their place) and the EMIT clause; Spark's own parser and the SQL guard judge the rest once the sources are
views. Names are resolved against the resolver's current catalog and database like batch statements.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sqlglot.tokenizer_core import Token, TokenType  # where sqlglot defines them (sqlglot.tokens re-exports)

from lakeport_engine.streaming.emit import NO_EMIT, Emit, split_emit, tokenize
from lakeport_engine.streaming.errors import StreamingStatementError

SHAPE = "INSERT INTO <catalog>.<db>.<table> SELECT … FROM STREAM(<catalog>.<db>.<stream>) … [EMIT …]"
_PLAIN_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*$")
_QUERY_STARTS = (TokenType.SELECT, TokenType.WITH, TokenType.FROM)
# Words that may follow an interval's number or string in `DELAY OF INTERVAL …` (Spark's interval units).
_INTERVAL_WORDS = frozenset({
    "YEAR", "YEARS", "MONTH", "MONTHS", "WEEK", "WEEKS", "DAY", "DAYS", "HOUR", "HOURS", "MINUTE", "MINUTES",
    "SECOND", "SECONDS", "MILLISECOND", "MILLISECONDS", "MICROSECOND", "MICROSECONDS", "TO",
})


@dataclass(frozen=True)
class StreamRef:
    """A `STREAM(name)` source: its name parts as written and the span of `STREAM(…)` in the statement."""

    parts: tuple[str, ...]
    start: int
    end: int  # exclusive

    @property
    def name(self) -> str:
        return ".".join(self.parts)


@dataclass(frozen=True)
class StreamingStatement:
    """A parsed streaming INSERT: `sql` is the statement without EMIT; offsets index into it."""

    sql: str
    target: tuple[str, ...]
    columns: tuple[str, ...]
    query_start: int
    sources: tuple[StreamRef, ...]
    emit: Emit = NO_EMIT
    watermark: bool = False
    spans: tuple[tuple[int, int], ...] = field(default=(), repr=False)

    def with_views(self, views: list[str]) -> str:
        """The statement (without EMIT) with each `STREAM(…)` replaced by the view over that source, in order."""
        out, pos = [], 0
        for ref, view in zip(self.sources, views, strict=True):
            out += [self.sql[pos:ref.start], view]
            pos = ref.end
        out.append(self.sql[pos:])
        return "".join(out)

    def query_with_views(self, views: list[str]) -> str:
        """Only the query part (SELECT …) of `with_views()`."""
        shift = 0
        for ref, view in zip(self.sources, views, strict=True):
            if ref.start < self.query_start:
                shift += len(view) - (ref.end - ref.start)
        return self.with_views(views)[self.query_start + shift:]


def is_streaming(sql: str) -> bool:
    """True when the statement reads `STREAM(…)` or ends with an EMIT clause (comments and strings ignored)."""
    try:
        body, emit = split_emit(sql)
    except StreamingStatementError:
        return True  # a broken EMIT is still a streaming statement: its parser says what is wrong
    return emit is not NO_EMIT or bool(_stream_refs(tokenize(body)))


def parse_streaming(sql: str) -> StreamingStatement:
    """Read a streaming statement; raises StreamingStatementError naming what does not fit the shape."""
    body, emit = split_emit(sql)
    tokens = tokenize(body)
    if len(tokens) < 3 or tokens[0].token_type != TokenType.INSERT or tokens[1].token_type != TokenType.INTO:
        raise StreamingStatementError(f"A streaming statement is an INSERT INTO a table: {SHAPE}.")
    target, i = _name(tokens, 2)
    if not target:
        raise StreamingStatementError(f"INSERT INTO needs a table name: {SHAPE}.")
    columns: tuple[str, ...] = ()
    if i < len(tokens) and tokens[i].token_type == TokenType.L_PAREN and i + 1 < len(tokens) and \
            tokens[i + 1].token_type not in _QUERY_STARTS:
        columns, i = _column_list(tokens, i)
    if i >= len(tokens) or tokens[i].token_type not in _QUERY_STARTS:
        raise StreamingStatementError(f"INSERT INTO {'.'.join(target)} must be followed by a query: {SHAPE}.")
    refs = _stream_refs(tokens)
    if not refs:
        raise StreamingStatementError(f"The query reads no stream: name its source as FROM STREAM(<catalog>.<db>.<stream>) "
                                      f"({SHAPE}).")
    watermark = any(_word(t) == "WATERMARK" for t in tokens)
    return StreamingStatement(body, target, columns, tokens[i].start, tuple(refs), emit, watermark)


def watermark_spans(sql: str) -> list[tuple[int, int]]:
    """Spans `(start, end)` (end exclusive) of the `WATERMARK <column> DELAY OF INTERVAL …` clauses of `sql`."""
    tokens = tokenize(sql)
    spans: list[tuple[int, int]] = []
    k = 0
    while k < len(tokens):
        end = _watermark_end(tokens, k)
        if end is None:
            k += 1
            continue
        spans.append((tokens[k].start, tokens[end].end + 1))
        k = end + 1
    return spans


def _watermark_end(tokens: list[Token], k: int) -> int | None:
    """The index of the last token of the WATERMARK clause starting at `tokens[k]`, or None when none starts there."""
    if _word(tokens[k]) != "WATERMARK":
        return None
    j = k + 1
    while j + 1 < len(tokens) and tokens[j + 1].token_type == TokenType.DOT:
        j += 2  # a qualified column: c.ts
    if [_word(t) for t in tokens[j + 1:j + 4]] != ["DELAY", "OF", "INTERVAL"]:
        return None
    j += 3
    # INTERVAL '10' SECONDS | INTERVAL 10 SECONDS | INTERVAL '10 seconds' | INTERVAL '1' MINUTE 30 SECONDS
    while j + 1 < len(tokens) and (tokens[j + 1].token_type in (TokenType.NUMBER, TokenType.STRING)
                                   or _word(tokens[j + 1]) in _INTERVAL_WORDS):
        j += 1
    return j


def _stream_refs(tokens: list[Token]) -> list[StreamRef]:
    refs: list[StreamRef] = []
    for k, tok in enumerate(tokens):
        if _word(tok) != "STREAM" or k + 1 >= len(tokens) or tokens[k + 1].token_type != TokenType.L_PAREN:
            continue
        if k == 0 or tokens[k - 1].token_type not in (TokenType.FROM, TokenType.JOIN, TokenType.COMMA):
            continue
        parts, j = _name(tokens, k + 2)
        if not parts or j >= len(tokens) or tokens[j].token_type != TokenType.R_PAREN:
            raise StreamingStatementError(f"STREAM(…) takes one stream name, e.g. STREAM(<catalog>.<db>.<stream>) "
                                          f"(at offset {tok.start}).")
        refs.append(StreamRef(parts, tok.start, tokens[j].end + 1))
    return refs


def _name(tokens: list[Token], i: int) -> tuple[tuple[str, ...], int]:
    """A dotted name starting at tokens[i] and the index after it (empty when there is none)."""
    parts: list[str] = []
    while i < len(tokens):
        tok = tokens[i]
        if tok.token_type == TokenType.IDENTIFIER or (tok.token_type != TokenType.STRING and _PLAIN_NAME.match(tok.text)):
            parts.append(tok.text)
        else:
            break
        if i + 1 < len(tokens) and tokens[i + 1].token_type == TokenType.DOT:
            i += 2
            continue
        i += 1
        break
    return tuple(parts), i


def _column_list(tokens: list[Token], i: int) -> tuple[tuple[str, ...], int]:
    names: list[str] = []
    i += 1
    while i < len(tokens):
        parts, i = _name(tokens, i)
        if len(parts) != 1:
            break
        names.append(parts[0])
        if i < len(tokens) and tokens[i].token_type == TokenType.COMMA:
            i += 1
            continue
        if i < len(tokens) and tokens[i].token_type == TokenType.R_PAREN:
            return tuple(names), i + 1
        break
    raise StreamingStatementError(f"INSERT INTO's column list must be plain column names: {SHAPE}.")


def _word(tok: Token) -> str:
    return tok.text.upper() if tok.token_type not in (TokenType.STRING, TokenType.IDENTIFIER) else ""


__all__ = ["SHAPE", "StreamRef", "StreamingStatement", "is_streaming", "parse_streaming", "watermark_spans"]
