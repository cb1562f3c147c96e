"""Reading Spark SQL scripts: a tokenizer, the statement splitter and the catalog references of a statement.

A hand-written tokenizer rather than a full SQL grammar: the resolver only needs statement boundaries and
identifier chains (`cat.db.table`), and Spark's own parser reports syntax errors. The tokenizer knows
Spark's lexical rules that matter for that: `--` and nested `/* */` comments, '…' and "…" strings with
backslash escapes and doubled quotes, raw strings (r'…'), and backtick identifiers with doubled backticks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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


def tokenize(text: str) -> list[Token]:
    """Split `text` into tokens; raise SqlTextError for an unterminated string, comment or identifier."""
    tokens: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        start = i
        if ch.isspace():
            while i < n and text[i].isspace():
                i += 1
            tokens.append(Token(SPACE, text[start:i], start))
        elif text.startswith("--", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
            tokens.append(Token(COMMENT, text[start:i], start))
        elif text.startswith("/*", i):
            depth, i = 1, i + 2  # Spark allows nested bracketed comments
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
            if depth:
                raise SqlTextError("Unterminated /* comment", **_kw(text, start))
            tokens.append(Token(COMMENT, text[start:i], start))
        elif ch in "'\"":
            raw = bool(tokens) and tokens[-1].kind == WORD and tokens[-1].lower == "r" and tokens[-1].end == start
            i = _string_end(text, i, raw=raw)
            if raw:  # r'…' is one string token
                tokens.pop()
                start -= 1
            tokens.append(Token(STRING, text[start:i], start))
        elif ch == "`":
            i += 1
            while True:
                end = text.find("`", i)
                if end < 0:
                    raise SqlTextError("Unterminated `quoted identifier`", **_kw(text, start))
                if text.startswith("``", end):
                    i = end + 2
                    continue
                i = end + 1
                break
            tokens.append(Token(QUOTED, text[start:i], start))
        elif ch.isalnum() or ch == "_" or ch == "$":
            while i < n and (text[i].isalnum() or text[i] in "_$"):
                i += 1
            tokens.append(Token(WORD, text[start:i], start))
        else:
            tokens.append(Token(PUNCT, ch, start))
            i += 1
    return tokens


def _kw(text: str, offset: int) -> dict[str, int]:
    line, column = _line_col(text, offset)
    return {"line": line, "column": column, "offset": offset}


def _string_end(text: str, i: int, *, raw: bool) -> int:
    quote, start, i, n = text[i], i, i + 1, len(text)
    while i < n:
        ch = text[i]
        if ch == "\\" and not raw:
            i += 2
            continue
        if ch == quote:
            if i + 1 < n and text[i + 1] == quote:  # doubled quote inside the literal
                i += 2
                continue
            return i + 1
        i += 1
    raise SqlTextError("Unterminated string literal", **_kw(text, start))


# ---- statements ---------------------------------------------------------------------------------------
@dataclass
class Statement:
    """One statement of a script: 0-based `index`, its text, and where it starts (1-based line/column)."""

    index: int
    sql: str
    line: int
    column: int
    tokens: list[Token] = field(default_factory=list, repr=False, compare=False)

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

    def flush() -> None:
        body = [t for t in current]
        while body and body[0].kind in (SPACE, COMMENT):
            body.pop(0)
        while body and body[-1].kind in (SPACE, COMMENT):
            body.pop()
        if body:
            first = body[0].start
            line, column = _line_col(script, first)
            sql = script[first:body[-1].end]
            rebased = [Token(t.kind, t.text, t.start - first) for t in body]
            statements.append(Statement(len(statements), sql, line, column, rebased))
        current.clear()

    for token in tokens:
        if token.kind == PUNCT and token.text == ";":
            flush()
        else:
            current.append(token)
    flush()
    return statements


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
