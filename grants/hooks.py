"""Access-change hooks: how an app above `grants` (catalogs: the catalog history) hears of every grant and revoke,
and of every row filter and column mask change, without grants importing it (docs/architecture.md, "Run hooks, not
imports"); and how it asks an app above it (jobs: the parse server) whether Spark parses an expression.

`grant_create` / `grant_delete` call `access_changed(...)` and the filter and mask services `policy_changed(...)`
inside their transaction, so the history entry commits with the change or not at all.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from grants.models import Grant


class AccessHook(Protocol):
    """Hears grants and revokes (see the module docstring)."""

    def access_changed(self, *, grant: Grant, action: str, actor: User | None, actor_name: str | None = None) -> None:
        """Hear one grant (`action` "grant") or revoke; `actor_name` names an actor that is no user (the CLI)."""

    def policy_changed(self, *, team_id: int, table: str, column: str | None, change: str,
                       actor: User | None, actor_name: str | None = None) -> None:
        """Hear one row filter (`column` None) or column mask change; `actor_name` as for grants."""


class ExpressionParser(Protocol):
    """Spark's own parser, asked whether a statement parses (the worker's parse server)."""

    def __call__(self, sql: str) -> str | None:
        """Spark's parse error of `sql`, or None when it parses."""


_lock = threading.Lock()
_hooks: list[AccessHook] = []
_parsers: list[ExpressionParser] = []


def register_access_hook(hook: AccessHook) -> None:
    """Call `hook` for every grant and revoke from now on (idempotent per hook type)."""
    with _lock:
        if all(type(h) is not type(hook) for h in _hooks):
            _hooks.append(hook)


def access_changed(*, grant: Grant, action: str, actor: User | None, actor_name: str | None = None) -> None:
    """Tell every hook that `grant` was made (`action` "grant") or removed ("revoke"), by `actor` (or, with no
    user, the name `actor_name`: `cli:<OS user>`)."""
    with _lock:
        hooks = list(_hooks)
    for hook in hooks:
        hook.access_changed(grant=grant, action=action, actor=actor, actor_name=actor_name)


def policy_changed(*, team_id: int, table: str, column: str | None, change: str, actor: User | None,
                   actor_name: str | None = None) -> None:
    """Tell every hook that the row filter (`column` None) or a column mask of `table` was `change`d ("added",
    "changed", "removed"), by `actor` or, with no user, the name `actor_name` (`cli:<OS user>`)."""
    with _lock:
        hooks = list(_hooks)
    for hook in hooks:
        hook.policy_changed(team_id=team_id, table=table, column=column, change=change, actor=actor,
                            actor_name=actor_name)


def register_expression_parser(parser: ExpressionParser) -> None:
    """Use `parser` to check filter and mask expressions on save (the last one registered wins)."""
    with _lock:
        _parsers[:] = [parser]


def expression_parser() -> ExpressionParser | None:
    """The registered parser (None: none yet — the services then refuse to save, they never skip the check)."""
    with _lock:
        return _parsers[0] if _parsers else None
