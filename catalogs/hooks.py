"""Materialized-view hooks: how an app above `catalogs` (schedules) follows a view's definition without catalogs
importing it (docs/architecture.md, "Run hooks, not imports").

An app registers a `ViewHook` in its `AppConfig.ready()`; `DjangoViewStore.save_view` calls `view_saved(view)`
inside the transaction that saves the definition, so a hook that raises `ViewStoreError` refuses the save (the
statement fails with its message and nothing is kept). `view_details(view)` adds fields to the API's body of a
view (the schedule's next refresh).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from catalogs.models import MaterializedView


class ViewHook(Protocol):
    """Follows materialized view definitions (see the module docstring)."""

    def view_saved(self, *, view: MaterializedView) -> None: ...

    def view_details(self, *, view: MaterializedView) -> dict[str, object]: ...


_lock = threading.Lock()
_view_hooks: list[ViewHook] = []


def register_view_hook(hook: ViewHook) -> None:
    """Call `hook` for every view saved from now on (idempotent per hook type: ready() may run twice in tests)."""
    with _lock:
        if all(type(h) is not type(hook) for h in _view_hooks):
            _view_hooks.append(hook)


def view_hooks() -> list[ViewHook]:
    """The registered view hooks, in registration order."""
    with _lock:
        return list(_view_hooks)


def view_saved(*, view: MaterializedView) -> None:
    """Tell every hook a view's definition was saved (in the saving transaction; a hook's error refuses it)."""
    for hook in view_hooks():
        hook.view_saved(view=view)


def view_details(*, view: MaterializedView) -> dict[str, object]:
    """What the hooks add to a view's API body."""
    details: dict[str, object] = {}
    for hook in view_hooks():
        details.update(hook.view_details(view=view))
    return details
