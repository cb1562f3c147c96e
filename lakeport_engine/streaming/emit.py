"""The EMIT clause of a streaming statement ("One SQL to rule them all", seed 003) on Spark's output modes.

    EMIT AFTER WATERMARK                     → append: each window once, when the watermark closes it
    EMIT STREAM | EMIT CHANGES               → update: a changed result row as soon as its batch ends
    EMIT AFTER DELAY INTERVAL '10' SECONDS   → a processing-time trigger of 10 s (rows materialised every 10 s)
    EMIT STREAM AFTER DELAY INTERVAL …       → update, every d
    EMIT AFTER DELAY INTERVAL … AND AFTER WATERMARK → append, checked every d

EMIT is not Spark syntax: `split_emit` finds the clause with sqlglot's Spark tokenizer (so a comment or a string
that says EMIT is left alone) and returns the statement without it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlglot.dialects.spark import Spark
from sqlglot.tokenizer_core import Token, TokenType  # where sqlglot defines them (sqlglot.tokens re-exports)

from lakeport_engine.streaming.errors import StreamingStatementError

APPEND, UPDATE = "append", "update"
EMIT_RULE = "emit"  # the rule a refusal of an EMIT clause names, at save and at start alike
_UNITS = {
    "millisecond": 0.001, "milliseconds": 0.001, "ms": 0.001,
    "second": 1.0, "seconds": 1.0, "sec": 1.0, "secs": 1.0, "s": 1.0,
    "minute": 60.0, "minutes": 60.0, "min": 60.0, "mins": 60.0,
    "hour": 3600.0, "hours": 3600.0,
}
_AMOUNT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]+)?\s*$")
EMIT_FORMS = ("EMIT AFTER WATERMARK", "EMIT STREAM", "EMIT CHANGES", "EMIT AFTER DELAY INTERVAL '<n>' SECONDS",
              "EMIT STREAM AFTER DELAY INTERVAL '<n>' SECONDS",
              "EMIT AFTER DELAY INTERVAL '<n>' SECONDS AND AFTER WATERMARK")


@dataclass(frozen=True)
class Emit:
    """What an EMIT clause asks for. `mode` None: no EMIT mode given (append without aggregation, else update)."""

    mode: str | None
    delay_seconds: float | None
    text: str

    def output_mode(self, *, aggregates: bool) -> str:
        """Spark's output mode for a query (`aggregates`: it has a streaming aggregation)."""
        if self.mode is not None:
            return self.mode
        return UPDATE if aggregates else APPEND

    @property
    def trigger(self) -> dict[str, str]:
        """`DataStreamWriter.trigger()` keyword arguments (empty: next batch as soon as the last one ends)."""
        if self.delay_seconds is None:
            return {}
        return {"processingTime": f"{int(round(self.delay_seconds * 1000))} milliseconds"}


NO_EMIT = Emit(None, None, "")


def tokenize(sql: str) -> list[Token]:
    """sqlglot's Spark tokens of `sql` (comments are attached to tokens, never tokens themselves)."""
    try:
        return list(Spark().tokenize(sql))
    except Exception as exc:  # noqa: BLE001 - sqlglot raises TokenError for unterminated strings
        raise StreamingStatementError(f"The statement cannot be read: {exc}") from None


def split_emit(sql: str) -> tuple[str, Emit]:
    """`sql` without its trailing EMIT clause, and the clause (NO_EMIT when there is none)."""
    tokens = tokenize(sql)
    depth = 0
    for k, tok in enumerate(tokens):
        if tok.token_type == TokenType.L_PAREN:
            depth += 1
        elif tok.token_type == TokenType.R_PAREN:
            depth -= 1
        elif depth == 0 and _word(tok) == "EMIT" and k + 1 < len(tokens) and _word(tokens[k + 1]) in (
                "STREAM", "CHANGES", "AFTER"):
            text = sql[tok.start:].strip()
            return sql[:tok.start].rstrip(), parse_emit(tokens[k + 1:], text)
    return sql, NO_EMIT


def parse_emit(tokens: list[Token], text: str) -> Emit:
    """Read the tokens after EMIT (`text` is the whole clause, for messages)."""
    words = tokens
    mode: str | None = None
    delay: float | None = None
    watermark = False
    i = 0
    if i < len(words) and _word(words[i]) in ("STREAM", "CHANGES"):
        mode = UPDATE
        i += 1
    first = True
    while i < len(words):
        if not first:
            if _word(words[i]) != "AND":
                raise _bad(text, words[i])
            i += 1
        first = False
        if i >= len(words) or _word(words[i]) != "AFTER":
            raise _bad(text, words[i] if i < len(words) else None)
        i += 1
        what = _word(words[i]) if i < len(words) else ""
        if what == "WATERMARK" and not watermark:
            watermark, i = True, i + 1
        elif what == "DELAY" and delay is None:
            delay, i = _interval(words, i + 1, text)
        else:
            raise _bad(text, words[i] if i < len(words) else None)
    if watermark:
        mode = APPEND  # only final rows: a STREAM of final rows is an append stream
    if mode is None and delay is None:
        raise _bad(text, None)
    return Emit(mode, delay, text)


def _interval(tokens: list[Token], i: int, text: str) -> tuple[float, int]:
    """Seconds of `INTERVAL '10' SECONDS` / `INTERVAL 10 SECONDS` / `INTERVAL '10 seconds'` at tokens[i]."""
    if i >= len(tokens) or tokens[i].token_type != TokenType.INTERVAL:
        raise StreamingStatementError(f"{text}: AFTER DELAY needs an interval, e.g. INTERVAL '10' SECONDS.")
    i += 1
    if i >= len(tokens) or tokens[i].token_type not in (TokenType.STRING, TokenType.NUMBER):
        raise StreamingStatementError(f"{text}: AFTER DELAY needs an interval, e.g. INTERVAL '10' SECONDS.")
    match = _AMOUNT.match(tokens[i].text)
    i += 1
    unit = match.group(2) if match else None
    if match and unit is None and i < len(tokens) and tokens[i].text.lower() in _UNITS:
        unit, i = tokens[i].text, i + 1
    if match is None or unit is None or unit.lower() not in _UNITS:
        raise StreamingStatementError(
            f"{text}: the delay must be a number of milliseconds, seconds, minutes or hours, e.g. INTERVAL '10' SECONDS."
        )
    seconds = float(match.group(1)) * _UNITS[unit.lower()]
    if seconds <= 0:
        raise StreamingStatementError(f"{text}: the delay must be more than zero.")
    return seconds, i


def _word(tok: Token) -> str:
    return tok.text.upper() if tok.token_type not in (TokenType.STRING, TokenType.IDENTIFIER) else ""


def _bad(text: str, tok: Token | None) -> StreamingStatementError:
    where = f" at '{tok.text}'" if tok is not None else ""
    return StreamingStatementError(
        f"'{text}' is not an EMIT clause this runtime knows{where}; use one of: " + "; ".join(EMIT_FORMS) + "."
    )


__all__ = ["APPEND", "EMIT_FORMS", "NO_EMIT", "UPDATE", "Emit", "parse_emit", "split_emit", "tokenize"]
