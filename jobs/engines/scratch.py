"""A team's scratch directory, and what its engines leave in it.

    $LAKEPORT_ENGINE_SCRATCH_DIR/<team>/                   0700, the team's engine user: HOME and working directory
    $LAKEPORT_ENGINE_SCRATCH_DIR/<team>/tmp/<instance>/    one engine's TMPDIR and java.io.tmpdir
    $LAKEPORT_ENGINE_SCRATCH_DIR/<team>/spark-local/<instance>/   its spark.local.dir (blockmgr-*, spark-*)
    $LAKEPORT_ENGINE_SCRATCH_DIR/.locks/<team>/<instance>.lock    the worker's: held (flock) by the live engine

Several engines of one team may live at once (the warm one, isolated runs, streams, other workers of the machine),
so each gets its own instance directories. The worker creates an instance's lock file and locks it before its
directories exist and hands the locked descriptor to the engine, which holds it until it dies; the kernel drops the
lock however the engine ends (SIGKILL, OOM, its worker killed). An instance directory whose lock is free (or was
never taken: what engines left before this layout) belongs to a dead engine, and is removed when the team's next
engine starts and when an engine is stopped. Directories are opened without following symbolic links: an engine
that swaps one for a link cannot make the worker change or delete anything outside the team's scratch directory.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import pwd
import shutil
import stat
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from jobs.engines.users import own_tree

SUBDIRS = ("tmp", "spark-local")
LOCKS = ".locks"
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW


@dataclass(frozen=True)
class EngineScratch:
    """One engine's share of its team's scratch directory; `lock_fd` goes to the engine, which keeps it open."""

    team_dir: Path
    instance: str
    lock_fd: int

    @property
    def tmp(self) -> Path:
        return self.team_dir / "tmp" / self.instance

    @property
    def local(self) -> Path:
        return self.team_dir / "spark-local" / self.instance


def scratch_root() -> Path:
    """Where every team's scratch directory lives (outside the platform's `var/`, which holds keys)."""
    return Path(settings.LAKEPORT_ENGINE_SCRATCH_DIR)


def scratch_dir(team: str) -> Path:
    """The team's private working directory (temp files, Spark local dirs)."""
    return scratch_root() / team


def claim_scratch(team: str, pw: pwd.struct_passwd | None) -> EngineScratch:
    """Prepare the scratch directory for a new engine of `team` run as `pw` (None: this process's user).

    Takes the instance's lock, removes what dead engines of the team left, and creates the instance's directories
    owned by the engine user with mode 0700. The caller passes `lock_fd` to the engine and then closes its copy.
    """
    root = scratch_root()
    root.mkdir(parents=True, exist_ok=True)
    if pw is not None:
        root.chmod(0o711)  # engines may pass through the scratch root, not list it
    instance = uuid.uuid4().hex[:16]
    with open_dir(root) as root_fd, owned_subdir(root_fd, LOCKS, None) as locks_fd, \
            owned_subdir(locks_fd, team, None) as team_locks:
        lock_fd = os.open(f"{instance}.lock", os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600,
                          dir_fd=team_locks)
        fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # a new file: nobody else holds it
    try:
        if pw is not None:
            own_tree(root / team, pw)  # a team that had a shared engine user gets its directory back
        sweep_scratch(team)
        with open_dir(root) as root_fd, owned_subdir(root_fd, team, pw) as team_fd:
            for sub in SUBDIRS:
                with owned_subdir(team_fd, sub, pw) as sub_fd, owned_subdir(sub_fd, instance, pw):
                    pass
    except BaseException:
        os.close(lock_fd)
        raise
    return EngineScratch(team_dir=root / team, instance=instance, lock_fd=lock_fd)


def sweep_scratch(team: str) -> list[str]:
    """Remove the instance directories of `team`'s dead engines (and their locks); the instances removed."""
    removed: list[str] = []
    try:
        with open_dir(scratch_root()) as root_fd, _existing(root_fd, team) as team_fd, \
                _existing(root_fd, LOCKS) as locks_fd, _existing(locks_fd, team) as team_locks:
            names = {name for sub in SUBDIRS for name in _listing(team_fd, sub)}
            names |= {n.removesuffix(".lock") for n in os.listdir(team_locks) if n.endswith(".lock")}
            for name in sorted(names):
                if _remove_if_dead(team_fd, team_locks, name):
                    removed.append(name)
    except FileNotFoundError:
        pass  # no scratch directory yet: nothing to sweep
    return removed


def _remove_if_dead(team_fd: int, team_locks: int, name: str) -> bool:
    """Remove instance `name`'s directories if no live engine holds its lock; True if it was dead."""
    try:
        lock = os.open(f"{name}.lock", os.O_RDWR | os.O_NOFOLLOW, dir_fd=team_locks)
    except FileNotFoundError:
        lock = -1  # never locked: left by an engine of the old layout, or already swept
    except OSError:
        return False
    try:
        if lock >= 0:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False  # a live engine holds it
        for sub in SUBDIRS:
            with contextlib.suppress(OSError), _existing(team_fd, sub) as sub_fd:
                remove_entry(sub_fd, name)
        if lock >= 0:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{name}.lock", dir_fd=team_locks)  # still held: nobody can take this instance now
        return True
    finally:
        if lock >= 0:
            os.close(lock)


def remove_entry(parent_fd: int, name: str) -> None:
    """Delete entry `name` of the directory `parent_fd`: a directory tree, or a file or link itself."""
    try:
        info = os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(info.st_mode):
        shutil.rmtree(name, dir_fd=parent_fd, ignore_errors=True)  # fd-based: never follows a swapped-in link
    else:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name, dir_fd=parent_fd)


def _listing(parent_fd: int, sub: str) -> list[str]:
    try:
        with _existing(parent_fd, sub) as fd:
            return os.listdir(fd)
    except (FileNotFoundError, NotADirectoryError):
        return []


@contextlib.contextmanager
def open_dir(path: Path) -> Iterator[int]:
    """A descriptor of directory `path` (its last component must not be a link)."""
    fd = os.open(path, _DIR_FLAGS)
    try:
        yield fd
    finally:
        os.close(fd)


@contextlib.contextmanager
def _existing(parent_fd: int, name: str) -> Iterator[int]:
    """Open directory `name` below `parent_fd` without following a link (FileNotFoundError if it is none)."""
    try:
        fd = os.open(name, _DIR_FLAGS, dir_fd=parent_fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise FileNotFoundError(name) from exc
        raise
    try:
        yield fd
    finally:
        os.close(fd)


@contextlib.contextmanager
def owned_subdir(parent_fd: int, name: str, pw: pwd.struct_passwd | None) -> Iterator[int]:
    """Directory `name` below `parent_fd`, created if missing, replaced if something else (a link) stands there,
    owned by `pw` (or left to this process's user) and closed to everyone else (0700)."""
    with contextlib.suppress(FileExistsError):
        os.mkdir(name, 0o700, dir_fd=parent_fd)
    try:
        fd = os.open(name, _DIR_FLAGS, dir_fd=parent_fd)
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
            raise
        remove_entry(parent_fd, name)
        os.mkdir(name, 0o700, dir_fd=parent_fd)
        fd = os.open(name, _DIR_FLAGS, dir_fd=parent_fd)
    try:
        if pw is not None:
            os.fchown(fd, pw.pw_uid, pw.pw_gid)
        os.fchmod(fd, 0o700)
        yield fd
    finally:
        os.close(fd)
