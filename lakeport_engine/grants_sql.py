"""`GRANT`, `REVOKE` and `SHOW GRANTS` as SQL statements (docs/access.md). Spark has no grammar for them: they are
recognised from their tokens here, and the engine asks the platform to carry them out over its channel (the platform
decides who may: team admins and MANAGE holders, as in the API).

    GRANT <privilege>[, …] ON [CATALOG | SCHEMA | TABLE] <securable> TO [USER | GROUP] <principal>
    REVOKE <privilege>[, …] ON [CATALOG | SCHEMA | TABLE] <securable> FROM [USER | GROUP] <principal>
    SHOW GRANTS [ON [CATALOG | SCHEMA | TABLE] <securable>]

The securable is written in full from its catalog (`lake`, `lake.sales`, `lake.sales.*`, `lake.sales.orders`);
without USER or GROUP the platform takes a group of that name if the team has one, else a member.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lakeport_engine.protocol import PRIVILEGES
from lakeport_engine.sqltext import PUNCT, QUOTED, WORD, SqlTextError, Token, significant, tokenize

LEVEL_WORDS = frozenset({"catalog", "schema", "database", "table", "view"})


class AccessStatementError(ValueError):
    """A GRANT/REVOKE/SHOW GRANTS statement that does not say what it grants (the message says what is missing)."""


@dataclass(frozen=True)
class AccessStatement:
    """One statement: `verb` grant | revoke | show, and what it names."""

    verb: str
    privileges: list[str] = field(default_factory=list)
    securable: str | None = None
    principal_type: str | None = None  # user | group | None (the platform decides)
    principal: str | None = None


def is_access_statement(sql: str) -> bool:
    """True when `sql` starts with GRANT, REVOKE or SHOW GRANTS."""
    try:
        words = [t.lower for t in significant(tokenize(sql))[:2] if t.kind == WORD]
    except SqlTextError:
        return False
    return words[:1] in (["grant"], ["revoke"]) or words == ["show", "grants"]


def access_statement(sql: str) -> AccessStatement | None:
    """The statement `sql` is, or None when it is no access statement; AccessStatementError when it is malformed."""
    if not is_access_statement(sql):
        return None
    tokens = [t for t in significant(tokenize(sql)) if t.text != ";"]
    words = [t.lower if t.kind == WORD else t.text for t in tokens]
    if words[0] == "show":
        if len(words) == 2:
            return AccessStatement("show")
        if words[2] != "on":
            raise AccessStatementError("Write SHOW GRANTS or SHOW GRANTS ON <catalog>[.<schema>[.<table>]].")
        return AccessStatement("show", securable=_securable(tokens[3:]))
    verb = words[0]
    joiner = "to" if verb == "grant" else "from"
    try:
        on = words.index("on")
        end = words.index(joiner, on)
    except ValueError:
        raise AccessStatementError(f"Write {verb.upper()} <privilege> ON <securable> {joiner.upper()} "
                                   "[USER | GROUP] <name>.") from None
    privileges = [w.upper() for w in words[1:on] if w != ","]
    unknown = [p for p in privileges if p not in PRIVILEGES]
    if not privileges or unknown:
        raise AccessStatementError(f"Unknown privilege {', '.join(unknown) or '(none)'}: use "
                                   f"{', '.join(PRIVILEGES)}.")
    rest = tokens[end + 1:]
    principal_type = None
    if rest and rest[0].kind == WORD and rest[0].lower in ("user", "group") and len(rest) > 1:
        principal_type, rest = rest[0].lower, rest[1:]
    if len(rest) != 1 or rest[0].kind not in (WORD, QUOTED):
        raise AccessStatementError(f"Name one member or group after {joiner.upper()}.")
    return AccessStatement(verb, privileges, _securable(tokens[on + 1:end]), principal_type, rest[0].name)


def _securable(tokens: list[Token]) -> str:
    """`cat.db.t` (or with `*`) from the tokens after ON, an optional CATALOG/SCHEMA/TABLE word first."""
    parts = list(tokens)
    if len(parts) > 1 and parts[0].kind == WORD and parts[0].lower in LEVEL_WORDS:
        parts = parts[1:]
    text = ""
    for token in parts:
        if token.kind in (WORD, QUOTED) or (token.kind == PUNCT and token.text in (".", "*")):
            text += token.name
        else:
            raise AccessStatementError(f"'{token.text}' cannot be part of a securable's name.")
    if not text:
        raise AccessStatementError("Name the securable: <catalog>[.<schema>[.<table>]].")
    return text


__all__ = ["AccessStatement", "AccessStatementError", "access_statement", "is_access_statement"]
