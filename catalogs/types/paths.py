"""Local paths in catalog configurations must stay inside the roots an operator allowed."""

from __future__ import annotations

import os
from pathlib import Path


def allowed_roots() -> list[Path]:
    """Roots from settings (LAKEPORT_ALLOWED_LOCAL_ROOTS); read lazily so tests can override them."""
    from django.conf import settings

    return [Path(os.path.realpath(r)) for r in settings.LAKEPORT_ALLOWED_LOCAL_ROOTS]


def check_local_path(value: str) -> str:
    """Return the normalised absolute path, or raise ValueError if it is relative or escapes the allowed roots."""
    if not value.startswith("/"):
        raise ValueError("must be an absolute path.")
    if "\x00" in value:
        raise ValueError("must not contain NUL.")
    resolved = Path(os.path.realpath(value))
    roots = allowed_roots()
    if not any(resolved == root or root in resolved.parents for root in roots):
        shown = ", ".join(str(r) for r in roots) or "(none configured)"
        raise ValueError(f"must be inside an allowed root: {shown}.")
    return str(resolved)
