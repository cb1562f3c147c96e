"""Local paths in catalog configurations must stay inside the roots an operator allowed, and inside the team's
data roots. Which configuration fields hold local paths is each type's definition's (`local_path_fields`)."""

from __future__ import annotations

import os
from pathlib import Path

from lakeport_engine.catalog_types import DEFINITIONS
from lakeport_engine.catalog_types.base import check_local_path

__all__ = ["allowed_roots", "check_local_path", "check_team_path", "local_path_types", "local_paths", "overlaps",
           "team_roots"]


def allowed_roots() -> list[Path]:
    """Roots from settings (LAKEPORT_ALLOWED_LOCAL_ROOTS); read lazily so tests can override them."""
    from django.conf import settings

    return [Path(os.path.realpath(r)) for r in settings.LAKEPORT_ALLOWED_LOCAL_ROOTS]


# ---- team data roots (the SQL guard's catalog side) ------------------------------------------------------
def local_path_types() -> list[str]:
    """The catalog types with local data paths in their configuration (each definition's `local_path_fields`)."""
    return [key for key, d in DEFINITIONS.items() if d.local_path_fields]


def team_roots(team: str) -> list[Path]:
    """The local roots team `team` may put data paths under (LAKEPORT_TEAM_DATA_ROOTS, `{team}` filled in)."""
    from django.conf import settings

    return [Path(os.path.realpath(t.replace("{team}", team))) for t in settings.LAKEPORT_TEAM_DATA_ROOTS]


def local_paths(catalog_type: str, plain: dict[str, object]) -> dict[str, Path]:
    """The local data paths of a configuration, resolved (symlinks, `..`), keyed by field."""
    definition = DEFINITIONS.get(catalog_type)
    return definition.local_paths(plain) if definition is not None else {}


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
