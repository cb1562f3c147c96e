"""Reading Spark SQL scripts: tokens, the statement splitter and the catalog references of a statement.

Literals come from sqlglot's Spark tokenizer (the project's one SQL lexer): it decides where '…' and "…"
strings (backslash escapes, raw r'…'), and backtick identifiers (doubled backticks) begin and end, and which
are unterminated. Around them this module only splits words, punctuation, whitespace and `--` / nested `/* */`
comments, keeping every token's offset so statements, positions and rewrites are exact. No SQL grammar: the
resolver needs statement boundaries and identifier chains (`cat.db.table`); Spark's parser reports syntax errors.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

from sqlglot import TokenType
from sqlglot.dialects.spark import Spark
from sqlglot.errors import TokenError

WORD, QUOTED, STRING, PUNCT, SPACE, COMMENT = "word", "quoted", "string", "punct", "space", "comment"

# Keywords after which an identifier chain names a table (so a 3-part chain there names a catalog).
TABLE_KEYWORDS = frozenset({
    "from", "join", "into", "table", "update", "exists", "describe", "desc", "view", "overwrite", "using",
    "merge", "tables", "like", "cache", "refresh", "analyze", "truncate",
})
# Keywords after which a 2-part chain `cat.db` names a namespace of a catalog.
NAMESPACE_KEYWORDS = frozenset({"use", "in", "database", "schema", "namespace", "databases", "schemas", "namespaces"})


class SqlTextError(ValueError):
    """The script cannot be tokenized (an unterminated string, comment or quoted identifier)."""

    def __init__(self, message: str, *, line: int, column: int, offset: int) -> None:
        super().__init__(f"{message} (line {line}, column {column})")
        self.line = line
        self.column = column
        self.offset = offset


@dataclass(frozen=True)
class Token:
    """One lexical token: `kind`, its source `text`, and its offset in the text it came from."""

    kind: str
    text: str
    start: int

    @property
    def end(self) -> int:
        return self.start + len(self.text)

    @property
    def lower(self) -> str:
        return self.text.lower()

    @property
    def name(self) -> str:
        """The identifier a WORD or QUOTED token stands for (backticks removed)."""
        if self.kind == QUOTED:
            return self.text[1:-1].replace("``", "`")
        return self.text


def _line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


_QUOTES = "'\"`"


class _SparkLexer(Spark.Tokenizer):
    # X'…' is a string after a word here, as before: whether its digits are hex is Spark's parser's to say.
    HEX_STRINGS: ClassVar[list[str | tuple[str, str]]] = []
    # SHOW/EXECUTE/… are lexed like any statement (sqlglot would keep the rest of one as a single opaque token).
    COMMANDS: ClassVar[set[TokenType]] = set()


def _sqlglot_literals(text: str) -> dict[int, tuple[int, str]]:
    """Offset of each literal's opening quote → (end offset, STRING or QUOTED), as sqlglot's Spark tokenizer reads them.

    A prefix before the quote (x'…', n'…') stays outside the span: it is a word, as Spark's lexer sees it.
    Raises `_Unterminated` with the offset where sqlglot found an unterminated literal or comment.
    """
    tokenizer = _SparkLexer()
    try:
        tokens = tokenizer.tokenize(text)
    except TokenError:
        raise _Unterminated(tokenizer._core._start) from None  # where the unterminated token began
    spans: dict[int, tuple[int, str]] = {}
    for tok in tokens:
        source = text[tok.start:tok.end + 1]
        quote = next((k for k, ch in enumerate(source) if ch in _QUOTES), -1)
        if quote < 0 or not source.endswith(source[quote]) or len(source) - quote < 2:
            continue  # not a quoted literal (a number like 0x1F, a keyword, punctuation)
        if tok.token_type == TokenType.IDENTIFIER or source[quote] == "`":
            spans[tok.start + quote] = (tok.end + 1, QUOTED)
        elif source[:quote].isalnum() or not source[:quote]:
            spans[tok.start + quote] = (tok.end + 1, STRING)
    return spans


class _Unterminated(Exception):
    def __init__(self, offset: int) -> None:
        self.offset = offset


def _blank(text: str, start: int, end: int) -> str:
    return text[:start] + "".join(c if c == "\n" else " " for c in text[start:end]) + text[end:]


def _comment_end(text: str, start: int) -> int:
    """End of the `/* */` comment at `start` (nested comments count; an overlapping `*/*` closes and reopens none)."""
    depth, i, n = 1, start + 2, len(text)
    while i < n and depth:
        if text.startswith("/*", i):
            depth, i = depth + 1, i + 2
        elif text.startswith("*/", i):
            depth, i = depth - 1, i + 2
        else:
            i += 1
    if depth:
        raise SqlTextError("Unterminated /* comment", **_kw(text, start))
    return i


def _scan(text: str, literals: dict[int, tuple[int, str]]) -> list[Token]:
    """Tokens of `text` around the given literals; `_Misread` when a comment and the literals disagree."""
    tokens: list[Token] = []
    starts = sorted(literals)  # bisected per comment: scanning every literal per comment was quadratic
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        start = i
        if i in literals:
            i, kind = literals[i]
            prev = tokens[-1] if tokens else None
            if kind == STRING and prev is not None and prev.end == start and (
                    (prev.kind == WORD and prev.lower == "r") or (prev.kind == STRING and prev.text[-1] == ch)):
                tokens.pop()  # r'…' is one string token, and so is 'it''s (sqlglot reads two literals)
                start = prev.start
            tokens.append(Token(kind, text[start:i], start))
        elif ch.isspace():
            while i < n and text[i].isspace():
                i += 1
            tokens.append(Token(SPACE, text[start:i], start))
        elif text.startswith("--", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
            tokens.append(Token(COMMENT, text[start:i], start))
        elif text.startswith("/*", i):
            i = _comment_end(text, start)
            inside = bisect_right(starts, start)
            if inside < len(starts) and starts[inside] < i:
                raise _Misread(start, i)  # sqlglot closed this comment early (`/*/`): a "literal" inside it
            tokens.append(Token(COMMENT, text[start:i], start))
        elif ch in _QUOTES:
            # sqlglot saw no literal here: it read the comment before as longer (`*/*/`). Re-read without it.
            comment = next((t for t in reversed(tokens) if t.kind == COMMENT and t.text.startswith("/*")), None)
            if comment is None:
                raise _Unterminated(i)
            raise _Misread(comment.start, comment.end, quote=i)
        elif ch.isalnum() or ch == "_" or ch == "$":
            while i < n and (text[i].isalnum() or text[i] in "_$") and i not in literals:
                i += 1
            tokens.append(Token(WORD, text[start:i], start))
        else:
            tokens.append(Token(PUNCT, ch, start))
            i += 1
    return tokens


class _Misread(Exception):
    def __init__(self, start: int, end: int, *, quote: int | None = None) -> None:
        self.start, self.end, self.quote = start, end, quote


def tokenize(text: str) -> list[Token]:
    """Split `text` into tokens; raise SqlTextError for an unterminated string, comment or identifier.

    sqlglot reads the literals; a `/* */` comment it misreads (its scanner lets `*/` and `/*` overlap) is
    blanked out of what sqlglot reads and the text read again, so comments nest as in Spark's own lexer.
    """
    seen = text
    while True:
        try:
            return _scan(text, _sqlglot_literals(seen))
        except _Unterminated as exc:
            comment = _open_comment_before(text, exc.offset)
            if comment is None and seen.startswith("/*", exc.offset):
                comment = exc.offset
            if comment is None:
                raise _unterminated(text, exc.offset) from None
            seen = _blank(seen, comment, _comment_end(text, comment))
        except _Misread as exc:
            blanked = _blank(seen, exc.start, exc.end)
            if blanked == seen:  # nothing left to re-read: the quote sqlglot skipped opens no literal
                raise _unterminated(text, exc.quote if exc.quote is not None else exc.start) from None
            seen = blanked


def _open_comment_before(text: str, offset: int) -> int | None:
    """Where a `/*` comment still open at `offset` starts (sqlglot, misreading it, saw a literal there)."""
    try:
        tokenize(text[:offset])
    except SqlTextError as exc:
        if str(exc).startswith("Unterminated /* comment"):
            return exc.offset
    return None


def _unterminated(text: str, offset: int) -> SqlTextError:
    while offset < len(text) and text[offset] not in _QUOTES:
        offset += 1  # past a prefix (r'…', x'…'): the position is the quote's
    if offset < len(text) and text[offset] == "`":
        return SqlTextError("Unterminated `quoted identifier`", **_kw(text, offset))
    # sqlglot reads 'it''s as 'it' then an open 's: the literal the user left open starts at the first quote.
    quote = text[offset] if offset < len(text) else "'"
    while offset > 0 and text[offset - 1] == quote:
        before = {end: begin for begin, (end, kind) in _literal_spans_of(text[:offset]).items() if kind == STRING}
        if offset not in before:
            break
        offset = before[offset] + (1 if text[before[offset]] not in _QUOTES else 0)  # r'…': at the quote
    return SqlTextError("Unterminated string literal", **_kw(text, offset))


def _literal_spans_of(text: str) -> dict[int, tuple[int, str]]:
    """The literals `tokenize` would use for `text` (which has none unterminated)."""
    return {t.start: (t.end, t.kind) for t in tokenize(text) if t.kind in (STRING, QUOTED)}


def _kw(text: str, offset: int) -> dict[str, int]:
    line, column = _line_col(text, offset)
    return {"line": line, "column": column, "offset": offset}


# ---- statements ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class StatementSpan:
    """Where a statement is in its script: [start, end) character offsets (no `;`), its 1-based first line/column."""

    start: int
    end: int
    line: int
    column: int


@dataclass
class Statement:
    """One statement of a script: 0-based `index`, its text, where it starts (1-based line/column, offset `start`)."""

    index: int
    sql: str
    line: int
    column: int
    tokens: list[Token] = field(default_factory=list, repr=False, compare=False)
    start: int = 0

    @property
    def span(self) -> StatementSpan:
        """The statement's place in its script (its text runs from its first token to its last)."""
        return StatementSpan(self.start, self.start + len(self.sql), self.line, self.column)

    def position(self, line: int, pos: int) -> tuple[int, int]:
        """Script-absolute (line, column) of a (1-based line, 0-based pos) inside this statement's text."""
        if line <= 1:
            return self.line, self.column + pos
        return self.line + line - 1, pos + 1


def split_statements(script: str) -> list[Statement]:
    """Split a script at top-level `;` into statements (comments and empty statements dropped at the edges).

    Semicolons inside strings, comments and quoted identifiers do not split. Each statement's text runs
    from its first token to its last token, keeping comments in between.
    """
    tokens = tokenize(script)
    statements: list[Statement] = []
    current: list[Token] = []
    # lines counted from the previous statement on: counting from the top for each one was quadratic
    counted = [0, 1]  # offset, line there

    def flush() -> None:
        body = [t for t in current]
        while body and body[0].kind in (SPACE, COMMENT):
            body.pop(0)
        while body and body[-1].kind in (SPACE, COMMENT):
            body.pop()
        if body:
            first = body[0].start
            counted[1] += script.count("\n", counted[0], first)
            counted[0] = first
            line, column = counted[1], first - script.rfind("\n", 0, first)
            sql = script[first:body[-1].end]
            rebased = [Token(t.kind, t.text, t.start - first) for t in body]
            statements.append(Statement(len(statements), sql, line, column, rebased, start=first))
        current.clear()

    for token in tokens:
        if token.kind == PUNCT and token.text == ";":
            flush()
        else:
            current.append(token)
    flush()
    return statements


def statement_spans(script: str) -> list[StatementSpan]:
    """Where each statement of `script` is, also for a script that does not tokenize: the statement holding the
    unterminated string or comment then runs to the end of the text (the statements before it are exact)."""
    try:
        return [st.span for st in split_statements(script)]
    except SqlTextError as exc:
        # the text before the error tokenizes; "x" stands for the open statement so the split places its start
        head = [st.span for st in split_statements(script[:exc.offset] + "x")]
        last = head[-1]
        return [*head[:-1], StatementSpan(last.start, len(script.rstrip()), last.line, last.column)]


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def utf16_offsets(text: str) -> Callable[[int], int]:
    """Maps a character offset of `text` to the same place counted in UTF-16 code units (a JavaScript string index).

    They differ after a character outside the Basic Multilingual Plane (an emoji, 𝔸), which is two units in UTF-16.
    """
    astral = [m.start() for m in _ASTRAL.finditer(text)]
    return lambda offset: offset + bisect_left(astral, offset)


def significant(tokens: list[Token]) -> list[Token]:
    """Tokens without whitespace and comments."""
    return [t for t in tokens if t.kind not in (SPACE, COMMENT)]


# ---- identifier chains and catalog references ----------------------------------------------------------
@dataclass(frozen=True)
class NameChain:
    """A dotted identifier `a.b.c`: its parts, its tokens (for rewriting), and the keyword before it."""

    parts: tuple[str, ...]
    tokens: tuple[Token, ...]
    after: str | None
    names_namespace: bool = False  # e.g. `CREATE DATABASE IF NOT EXISTS cat.db`

    @property
    def in_table_position(self) -> bool:
        return self.after in TABLE_KEYWORDS

    @property
    def in_namespace_position(self) -> bool:
        return self.after in NAMESPACE_KEYWORDS or self.names_namespace


def name_chains(tokens: list[Token]) -> list[NameChain]:
    """Every dotted identifier chain of two or more parts, with the keyword (if any) right before it."""
    sig = significant(tokens)
    chains: list[NameChain] = []
    # CREATE/DROP/ALTER/DESCRIBE DATABASE|SCHEMA|NAMESPACE [IF [NOT] EXISTS] x: the first chain is a namespace
    namespace_statement = len(sig) > 1 and sig[1].lower in ("database", "schema", "namespace")
    i = 0
    while i < len(sig):
        tok = sig[i]
        if tok.kind in (WORD, QUOTED) and not (tok.kind == WORD and tok.text[0].isdigit()):
            parts = [tok]
            j = i + 1
            while j + 1 < len(sig) and sig[j].kind == PUNCT and sig[j].text == "." and sig[j + 1].kind in (WORD, QUOTED):
                parts.append(sig[j + 1])
                j += 2
            prev = sig[i - 1] if i else None
            if len(parts) >= 2 and not (prev is not None and prev.kind == PUNCT and prev.text == "."):
                after = prev.lower if prev is not None and prev.kind == WORD else None
                chains.append(NameChain(tuple(p.name for p in parts), tuple(parts), after,
                                        namespace_statement and not chains))
            i = j
        else:
            i += 1
    return chains


@dataclass(frozen=True)
class UseCatalog:
    """`USE CATALOG x` (Flink) or `SET CATALOG x` (Spark)."""

    catalog: str
    token: Token


def use_catalog(tokens: list[Token]) -> UseCatalog | None:
    """The catalog a `USE CATALOG x` / `SET CATALOG x` statement switches to, else None."""
    sig = significant(tokens)
    if len(sig) == 3 and sig[0].lower in ("use", "set") and sig[1].lower == "catalog" and sig[2].kind in (WORD, QUOTED, STRING):
        name = sig[2].text[1:-1] if sig[2].kind == STRING else sig[2].name
        return UseCatalog(name, sig[2])
    return None


def use_namespace(tokens: list[Token]) -> tuple[str, ...] | None:
    """The namespace parts of `USE [DATABASE|SCHEMA|NAMESPACE] a[.b]`, else None."""
    sig = significant(tokens)
    if not sig or sig[0].lower != "use":
        return None
    rest = sig[1:]
    if rest and rest[0].lower in ("database", "schema", "namespace") and len(rest) > 1:
        rest = rest[1:]
    parts: list[str] = []
    for k, tok in enumerate(rest):
        if k % 2 == 0 and tok.kind in (WORD, QUOTED):
            parts.append(tok.name)
        elif k % 2 == 1 and tok.kind == PUNCT and tok.text == ".":
            continue
        else:
            return None
    return tuple(parts) if parts and len(rest) % 2 == 1 else None


def first_keyword(tokens: list[Token]) -> str:
    """The statement's first significant word, lowercased ('' if none)."""
    for tok in tokens:
        if tok.kind in (SPACE, COMMENT) or (tok.kind == PUNCT and tok.text == "("):
            continue
        return tok.lower if tok.kind == WORD else ""
    return ""


def is_query(tokens: list[Token]) -> bool:
    """True for a SELECT / WITH / VALUES / TABLE / FROM query (lazy in Spark: analysis does not run it)."""
    return first_keyword(tokens) in ("select", "with", "values", "table", "from")


def created_names(tokens: list[Token]) -> set[str]:
    """Lowercased last parts of tables/views a CREATE statement makes (so a later query may use them)."""
    sig = significant(tokens)
    if not sig or sig[0].lower != "create":
        return set()
    for k, tok in enumerate(sig):
        if tok.lower in ("table", "view"):
            rest = sig[k + 1:]
            if len(rest) >= 3 and [t.lower for t in rest[:3]] == ["if", "not", "exists"]:
                rest = rest[3:]
            names = [t for t in rest if t.kind in (WORD, QUOTED)]
            chain = []
            for idx, t in enumerate(rest):
                if t.kind in (WORD, QUOTED) and (idx == 0 or (rest[idx - 1].kind == PUNCT and rest[idx - 1].text == ".")):
                    chain.append(t.name.lower())
                elif not (t.kind == PUNCT and t.text == "."):
                    break
            return {chain[-1]} if chain else ({names[0].name.lower()} if names else set())
    return set()


def rewrite(sql: str, replacements: dict[int, str], tokens: list[Token]) -> str:
    """`sql` with the tokens starting at the given offsets replaced by new text."""
    if not replacements:
        return sql
    out: list[str] = []
    pos = 0
    for tok in tokens:
        if tok.start in replacements:
            out.append(sql[pos:tok.start])
            out.append(replacements[tok.start])
            pos = tok.end
    out.append(sql[pos:])
    return "".join(out)
