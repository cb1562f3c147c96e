"""The OS user of each team's engine: one per team, created on demand, owning only that team's directories.

`LAKEPORT_ENGINE_USER` names it. A template with `{team_id}` (the default, `lakeport-t{team_id}`) gives every team
its own user, so one team's engine cannot read another's memory (`/proc/<pid>/mem`, `environ`), scratch, checkpoints
or data: the kernel refuses those across uids to a process without capabilities. A plain name runs every team's
engine as that one user (the wall between teams is then only the process boundary and the guard); empty runs
engines as the worker's own user, as does any worker that is not root (it cannot switch users).

A missing user is created with `useradd --system` (no home, no login shell, its own group), under a file lock shared
by every worker of the machine, and created again only if it is still missing after the lock: two workers starting
the same team's first engine at once both end with the one user. `LAKEPORT_ENGINE_UID_BASE` > 0 gives team `n`
the fixed uid base + n instead (the same uid on every machine, for shared storage).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pwd
import re
import stat
import subprocess
import threading
import time
from collections.abc import Collection, Iterator
from pathlib import Path

from django.conf import settings

from teams.models import Team

# What useradd accepts as a name on every distribution (shadow's default NAME_REGEX), and its length limit.
USER_NAME_RE = re.compile(r"^[a-z_][a-z0-9_-]{0,31}$")
USERADD_ATTEMPTS = 20  # useradd fails at once when another process holds /etc/passwd's lock: try again
_local_lock = threading.Lock()


class EngineUserError(RuntimeError):
    """The engine user could not be named or created (a clear message, no secret in it)."""


def engine_user_name(*, template: str, team_id: int) -> str:
    """The user name for team `team_id` from `template` (pure); EngineUserError if it is not a valid user name."""
    name = template.replace("{team_id}", str(team_id))
    if not USER_NAME_RE.match(name):
        raise EngineUserError(f"LAKEPORT_ENGINE_USER gives '{name}', which is not a valid OS user name "
                              "(lowercase letters, digits, '_' and '-', at most 32 characters).")
    return name


def engine_user(team: str) -> str | None:
    """The OS user team `team`'s engines run as, created if missing; None when engines run as this process's user."""
    template = str(settings.LAKEPORT_ENGINE_USER or "")
    if not template or os.geteuid() != 0:
        return None
    if "{team_id}" not in template:
        return ensure_os_user(template).pw_name
    team_id = Team.objects.filter(name=team).values_list("id", flat=True).first()
    if team_id is None:
        raise EngineUserError(f"There is no team '{team}' to run an engine for.")
    base = int(settings.LAKEPORT_ENGINE_UID_BASE)
    name = engine_user_name(template=template, team_id=team_id)
    return ensure_os_user(name, uid=base + team_id if base > 0 else None,
                          comment=f"Lakeport engine of team {team}").pw_name


def ensure_os_user(name: str, *, uid: int | None = None, comment: str = "Lakeport engine",
                   lock_path: Path | None = None) -> pwd.struct_passwd:
    """The system user `name`, created (no home, no shell, own group) if it does not exist yet; idempotent.

    Race-safe: creation runs under an exclusive lock on `lock_path` (every worker of the machine), rechecks after
    taking it, and retries while another process (an operator's useradd) holds the password file's own lock.
    """
    with contextlib.suppress(KeyError):
        return pwd.getpwnam(name)
    lock = lock_path or Path(settings.LAKEPORT_ENGINE_SCRATCH_DIR) / ".engine-users.lock"
    command = ["useradd", "--system", "--user-group", "--no-create-home", "--no-log-init", "--home-dir", "/nonexistent",
               "--shell", "/usr/sbin/nologin", "--comment", comment, *(["--uid", str(uid)] if uid else []), name]
    error = ""
    with _exclusive(lock):
        for _ in range(USERADD_ATTEMPTS):
            with contextlib.suppress(KeyError):
                return pwd.getpwnam(name)
            done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=60)
            if done.returncode == 0:
                return pwd.getpwnam(name)
            error = ((done.stderr or done.stdout).strip().splitlines() or [""])[-1]
            time.sleep(0.2)
    with contextlib.suppress(KeyError):
        return pwd.getpwnam(name)  # created by a process that did not take our lock
    raise EngineUserError(f"The engine user '{name}' could not be created: {error or 'useradd failed'}")


@contextlib.contextmanager
def _exclusive(path: Path) -> Iterator[None]:
    """An exclusive lock on `path` across threads and processes (flock), created 0600 if missing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with _local_lock:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)


def own_tree(path: Path, pw: pwd.struct_passwd) -> None:
    """Give `path` and everything below it to `pw` if `path` is not already theirs (a team moving to its own user).

    Walked through directory descriptors, symbolic links changed themselves and never followed: an engine swapping
    a directory for a link while this runs cannot point it at the platform's files.
    """
    try:
        top = path.lstat()
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(top.st_mode) or (top.st_uid, top.st_gid) == (pw.pw_uid, pw.pw_gid):
        return
    for _root, dirs, files, dir_fd in os.fwalk(path, follow_symlinks=False):
        os.fchown(dir_fd, pw.pw_uid, pw.pw_gid)
        for name in [*dirs, *files]:
            with contextlib.suppress(FileNotFoundError):
                os.chown(name, pw.pw_uid, pw.pw_gid, dir_fd=dir_fd, follow_symlinks=False)


# Entries of the data dir that engines must pass through (their data roots, stream checkpoints) or that a web
# server of another user may serve (collected static files); every other entry is the platform's own.
DATA_DIR_SHARED = ("teams", "checkpoints", "static")


def close_platform_files(data_dir: Path, env_file: Path, *, keep: Collection[Path] = ()) -> None:
    """Close the platform's own files to engine users: the data dir may be passed through, never listed; its
    entries (keys, the SQLite database, the broker's files) and the repository's `.env` are the owner's only.

    Entries named in DATA_DIR_SHARED, and those holding a path of `keep` (an operator's scratch or checkpoint
    directory placed under the data dir), are left as they are.
    """
    shared = set(DATA_DIR_SHARED)
    for path in keep:
        with contextlib.suppress(ValueError):
            shared.add(Path(path).resolve().relative_to(data_dir.resolve()).parts[0])
    with contextlib.suppress(FileNotFoundError):
        mode = data_dir.stat().st_mode
        data_dir.chmod((mode | stat.S_IXOTH) & ~(stat.S_IRGRP | stat.S_IWGRP | stat.S_IROTH | stat.S_IWOTH))
        for entry in data_dir.iterdir():
            if entry.name not in shared and not entry.is_symlink():
                entry.chmod(entry.stat().st_mode & ~0o077)
    with contextlib.suppress(FileNotFoundError):
        if not env_file.is_symlink():
            env_file.chmod(env_file.stat().st_mode & ~0o077)
