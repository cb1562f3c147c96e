"""Reading Spark SQL scripts: tokens, the statement splitter and the catalog references of a statement.

The guard decides on Spark's own parse of each statement; this module only needs where statements begin and end,
and identifier chains (`cat.db.table`) for the resolver. Its lexer follows Spark 4.3's `SqlBaseLexer.g4` rule for
rule where a boundary could differ, and tests/security/test_sqltext_differential.py checks it against Spark's own
lexer (driven over py4j) on generated edge cases:

- `--` comments end before CR or LF (Spark's SIMPLE_COMMENT); a backslash right before LF continues them;
- `/* */` comments nest, except `/*+`, which opens a hint (its body is lexed as code, `;` included) and does not
  nest inside a comment;
- '…' and "…" strings take backslash escapes and doubled quotes; r'…' / r"…" (an `r` that starts a token) are
  raw; `$tag$ … $tag$` (tag: ASCII letters, maybe none) is a string up to the same tag; backtick identifiers double
  their backticks; every literal may span lines.
No SQL grammar: Spark's parser reports syntax errors. Unterminated literals and comments are SqlTextError here
(Spark's lexer would read them as unrecognized characters that its parser refuses).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass, field

WORD, QUOTED, STRING, PUNCT, SPACE, COMMENT = "word", "quoted", "string", "punct", "space", "comment"
HINT_START = "/*+"

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


def _kw(text: str, offset: int) -> dict[str, int]:
    line, column = _line_col(text, offset)
    return {"line": line, "column": column, "offset": offset}


# One regex per literal rule of SqlBaseLexer.g4 (STRING_LITERAL, DOUBLEQUOTED_STRING, BACKQUOTED_IDENTIFIER).
_LITERAL = {
    "'": re.compile(r"'(?:[^'\\]|\\.|'')*'", re.DOTALL),
    '"': re.compile(r'"(?:[^"\\]|\\.|"")*"', re.DOTALL),
    "`": re.compile(r"`(?:[^`]|``)*`", re.DOTALL),
}
_RAW = {"'": re.compile(r"'[^']*'"), '"': re.compile(r'"[^"]*"')}
# BEGIN_DOLLAR_QUOTED_STRING: `$tag$` (ASCII letters, maybe none); the body runs to the same `$tag$`, exactly.
_DOLLAR_TAG = re.compile(r"\$[A-Za-z]*\$")
# SIMPLE_COMMENT's body: `'\\\n' | ~[\r\n]`, repeated (it ends before CR or LF, kept as whitespace here).
_LINE_COMMENT = re.compile(r"--(?:\\\n|[^\r\n])*")


def _word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"  # `$` is no identifier character in Spark (its lexer rejects it)


def _comment_end(text: str, start: int) -> int:
    """End of the `/* */` comment at `start`: `/*` nests (not `/*+`), the first `*/` at each depth closes."""
    depth, i, n = 1, start + 2, len(text)
    while i < n and depth:
        if text.startswith("*/", i):
            depth, i = depth - 1, i + 2
        elif text.startswith("/*", i) and not text.startswith(HINT_START, i):
            depth, i = depth + 1, i + 2
        else:
            i += 1
    if depth:
        raise SqlTextError("Unterminated /* comment", **_kw(text, start))
    return i


def _literal_end(text: str, start: int, *, raw: bool) -> int:
    quote = text[start]
    match = (_RAW if raw else _LITERAL)[quote].match(text, start)
    if match is None:
        what = "`quoted identifier`" if quote == "`" else "string literal"
        raise SqlTextError(f"Unterminated {what}", **_kw(text, start))
    return match.end()


def tokenize(text: str) -> list[Token]:
    """Split `text` into tokens; raise SqlTextError for an unterminated string, comment or identifier.

    A hint's `/*+` and every `*/` outside a comment are one PUNCT token each and a hint's body ordinary tokens, as
    in Spark's lexer.
    """
    tokens: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        start = i
        if ch in _LITERAL:
            i = _literal_end(text, i, raw=False)
            tokens.append(Token(QUOTED if ch == "`" else STRING, text[start:i], start))
        elif ch in "rR" and i + 1 < n and text[i + 1] in _RAW and not (i and _word_char(text[i - 1])):
            i = _literal_end(text, i + 1, raw=True)  # r'…' / r"…": a raw string, no escapes
            tokens.append(Token(STRING, text[start:i], start))
        elif ch == "$" and (tag := _DOLLAR_TAG.match(text, i)) is not None:
            close = text.find(tag.group(), tag.end())
            if close < 0:
                raise SqlTextError("Unterminated $$ string", **_kw(text, start))
            i = close + len(tag.group())
            tokens.append(Token(STRING, text[start:i], start))
        elif ch.isspace():
            while i < n and text[i].isspace():
                i += 1
            tokens.append(Token(SPACE, text[start:i], start))
        elif text.startswith("--", i):
            i = _LINE_COMMENT.match(text, i).end()  # type: ignore[union-attr]  # always matches at `--`
            tokens.append(Token(COMMENT, text[start:i], start))
        elif text.startswith(HINT_START, i):
            i += len(HINT_START)
            tokens.append(Token(PUNCT, HINT_START, start))
        elif text.startswith("/*", i):
            i = _comment_end(text, start)
            tokens.append(Token(COMMENT, text[start:i], start))
        elif text.startswith("*/", i):
            i += 2  # one token (Spark's HENT_END) wherever it is: `*/*` never opens a comment
            tokens.append(Token(PUNCT, "*/", start))
        elif _word_char(ch):
            while i < n and _word_char(text[i]):
                i += 1
            tokens.append(Token(WORD, text[start:i], start))
        else:
            tokens.append(Token(PUNCT, ch, start))
            i += 1
    return tokens


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


# ---- Delta's SQL commands ------------------------------------------------------------------------------
DELTA_COMMANDS = ("optimize", "vacuum", "restore", "describe detail")


def delta_command(sql: str) -> str | None:
    """`optimize` / `vacuum` / `restore` / `describe detail` when `sql` is one of Delta's own SQL commands, which
    Spark's parser has no grammar for (the embedded Delta connector reads them); None for any other statement."""
    try:
        words = [t.lower for t in significant(tokenize(sql))[:2] if t.kind == WORD]
    except SqlTextError:
        return None
    if not words:
        return None
    if words[0] in ("optimize", "vacuum", "restore"):
        return words[0]
    if words[0] in ("desc", "describe") and words[1:2] == ["detail"]:
        return "describe detail"
    return None
