"""Access-change hooks: how an app above `grants` (catalogs: the catalog history) hears of every grant and revoke
without grants importing it (docs/architecture.md, "Run hooks, not imports").

`grant_create` / `grant_delete` call `access_changed(...)` inside their transaction, so the history entry commits
with the change or not at all.
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


_lock = threading.Lock()
_hooks: list[AccessHook] = []


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
