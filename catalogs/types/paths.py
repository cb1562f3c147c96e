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


# ---- team data roots (the SQL guard's catalog side) ------------------------------------------------------
# Configuration keys (by alias) that hold local data paths, per catalog type.
LOCAL_PATH_FIELDS: dict[str, tuple[str, ...]] = {
    "delta": ("warehouse",), "hive": ("hive-conf-dir", "hadoop-conf-dir", "warehouse"), "files": ("root",),
}


def team_roots(team: str) -> list[Path]:
    """The local roots team `team` may put data paths under (LAKEPORT_TEAM_DATA_ROOTS, `{team}` filled in)."""
    from django.conf import settings

    return [Path(os.path.realpath(t.replace("{team}", team))) for t in settings.LAKEPORT_TEAM_DATA_ROOTS]


def local_paths(catalog_type: str, plain: dict[str, object]) -> dict[str, Path]:
    """The local data paths of a configuration, resolved (symlinks, `..`), keyed by field."""
    paths: dict[str, Path] = {}
    for key in LOCAL_PATH_FIELDS.get(catalog_type, ()):
        value = plain.get(key)
        if isinstance(value, str) and value:
            if "://" in value and not value.startswith("file://"):
                continue  # an object store URI: not a path on this machine
            paths[key] = Path(os.path.realpath(value.removeprefix("file://")))
    return paths


def _within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def overlaps(a: Path, b: Path) -> bool:
    """True when one path is the other or lies inside it."""
    return _within(a, b) or _within(b, a)


def check_team_path(path: Path, team: str) -> None:
    """Raise ValueError unless `path` lies under one of the team's roots and holds none of the platform's state.

    The message names no root: a team admin learns nothing about the server's layout from it.
    """
    from django.conf import settings

    data_dir = Path(os.path.realpath(settings.DATA_DIR))
    own_dir = data_dir / "teams" / team  # inside the data dir only the team's own directory is data
    if _within(data_dir, path) or (_within(path, data_dir) and not _within(path, own_dir)):
        raise ValueError("must not be (or contain) the platform's own data directory.")
    if not any(_within(path, root) for root in team_roots(team)):
        raise ValueError("must be inside one of this team's data directories (ask an operator which).")
