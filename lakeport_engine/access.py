"""Fine-grained access: does the caller hold a privilege on a catalog, schema or table (docs/access.md).

The platform computes the caller's effective privileges once per run or editor call (grants/selectors.py) and sends
them with the request as the protocol's `AccessDocument`; `AccessPolicy` answers the guard's questions from it with
no further lookup. Securables are `cat`, `cat.*`, `cat.db`, `cat.db.*` and `cat.db.table`; a privilege on one holds
on everything below it (`*` stands for every schema / table below its level, not the level itself). `MANAGE` implies
every other privilege, and any privilege implies `BROWSE` on its securable and on the levels above it (a table one
may read is in a schema and a catalog one may see). Catalogs no grant names are not governed: the team's role
defaults decide there, so a team that grants nothing sees no change.

Imports no Django: the engine's guard uses it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lakeport_engine.protocol import PRIVILEGES, AccessDocument

BROWSE, SELECT, MODIFY, CREATE, MANAGE = PRIVILEGES
LEVELS = {1: "catalog", 2: "schema", 3: "table"}


def securable_parts(text: str) -> tuple[str, ...]:
    """`cat.db.t` as lowercased parts; ValueError for an empty part or more than three parts (a `*` only last)."""
    parts = tuple(p.strip().strip("`").lower() for p in text.strip().split("."))
    if not parts or len(parts) > 3 or any(not p for p in parts):
        raise ValueError(f"'{text}' is not a securable: write catalog, catalog.schema or catalog.schema.table "
                         "(with * for every schema or table below a level).")
    if "*" in parts[:-1] or parts[0] == "*":
        raise ValueError(f"'{text}' is not a securable: * stands only for the last part, below a catalog or schema.")
    return parts


def covers(securable: tuple[str, ...], target: tuple[str, ...]) -> bool:
    """True when a grant on `securable` holds on `target` (inherited downward; `*` is every name below a level)."""
    if len(securable) > len(target):
        return False
    # `cat.*` names the schemas of cat (and below), not cat itself: already ensured by the length check
    return all(mine in ("*", theirs) for mine, theirs in zip(securable, target, strict=False))


def implies(held: str, wanted: str) -> bool:
    """True when holding `held` gives `wanted` on the same securable (MANAGE gives all; everything gives BROWSE)."""
    return held in (wanted, MANAGE) or wanted == BROWSE


def describe(target: tuple[str, ...]) -> str:
    """`table 'cat.db.t'`: the securable as a refusal names it."""
    return f"{LEVELS.get(len(target), 'securable')} '{'.'.join(target)}'"


# what a refusal by rule `access` ends with: `(SELECT on table 'cat.db.t') (rule: access)` (GuardRefusal + describe)
_REFUSAL = re.compile(r"\((" + "|".join(PRIVILEGES) + r") on (catalog|schema|table) '([^'\s]+)'\) \(rule: access\)")


def refused_securables(message: str) -> list[tuple[str, str, str]]:
    """The (privilege, level, securable) each `access` refusal in `message` names — the platform's reading of the
    guard's own wording (`describe`), so the audit records names only, never the statement's text."""
    return [(m.group(1), m.group(2), m.group(3)) for m in _REFUSAL.finditer(message or "")]


@dataclass(frozen=True)
class AccessPolicy:
    """The caller's effective privileges (one request's `AccessDocument`, read once)."""

    user: str
    admin: bool
    governed: frozenset[str]
    grants: tuple[tuple[tuple[str, ...], str], ...]

    @classmethod
    def from_document(cls, doc: AccessDocument | None) -> AccessPolicy | None:
        """The policy of a request's document (None: no document, the role defaults apply)."""
        if doc is None:
            return None
        grants: list[tuple[tuple[str, ...], str]] = []
        for grant in doc["grants"]:
            try:
                grants.append((securable_parts(grant["securable"]), grant["privilege"]))
            except ValueError:
                continue  # the platform validates securables; a bad one grants nothing
        return cls(user=doc["user"], admin=bool(doc["admin"]), governed=frozenset(c.lower() for c in doc["governed"]),
                   grants=tuple(grants))

    @property
    def unrestricted(self) -> bool:
        """True when nothing is checked: a team admin, or no catalog of the team is governed."""
        return self.admin or not self.governed

    def is_governed(self, catalog: str) -> bool:
        """True when grants decide on `catalog` (else the role defaults)."""
        return not self.admin and catalog.lower() in self.governed

    def allows(self, privilege: str, target: tuple[str, ...]) -> bool:
        """True when the caller holds `privilege` on `target` (`(cat,)`, `(cat, db)` or `(cat, db, table)`)."""
        target = tuple(p.lower() for p in target)
        if not target or not self.is_governed(target[0]):
            return True
        for securable, held in self.grants:
            if covers(securable, target) and implies(held, privilege):
                return True
            # any privilege below a securable lets the caller see that the securable exists
            if privilege == BROWSE and len(securable) > len(target) and covers(target, securable[:len(target)]):
                return True
        return False


__all__ = ["AccessPolicy", "BROWSE", "CREATE", "MANAGE", "MODIFY", "SELECT", "covers", "describe", "implies",
           "securable_parts"]
