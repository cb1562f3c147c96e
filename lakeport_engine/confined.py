"""Reading below a files catalog's root without ever following a symbolic link (issue 28).

A landing directory is written by whoever the team lets drop files there; a symlink in it (to another team's data,
to the platform's keys) must not be read by the platform's web process, which browses, describes and samples files
catalogs as the platform's user. Every path is opened one component at a time from `/` with `O_NOFOLLOW` relative
to the directory opened before it (`openat`), so there is no window between a check and the open: a symlink at any
level (the root itself, a database or table directory, a file) is refused with ConfinedPathError.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import BinaryIO

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK  # O_NONBLOCK: a FIFO must not hang us


class ConfinedPathError(OSError):
    """A path below a catalog root is a symbolic link, leaves the root, or is not what it should be."""


@dataclass(frozen=True)
class Entry:
    """One regular file or directory of a listing (symlinks and other kinds are not listed)."""

    name: str
    is_dir: bool
    mtime_ns: int
    size: int


def _check_component(name: str) -> None:
    if name in ("", ".", "..") or "/" in name or "\x00" in name:
        raise ConfinedPathError(f"'{name}' is not a plain name below the catalog's root.")


def _open_step(parent_fd: int, name: str, shown: str, flags: int) -> int:
    try:
        return os.open(name, flags, dir_fd=parent_fd)
    except OSError as exc:
        try:
            st = os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
        except OSError:
            raise exc from None
        if stat.S_ISLNK(st.st_mode):
            raise ConfinedPathError(f"{shown} is a symbolic link; files catalogs never follow symbolic links "
                                    "(rule: no-symlinks).") from None
        raise


@contextmanager
def open_dir(root: str, *parts: str) -> Iterator[int]:
    """A file descriptor of `root/parts…` opened component by component from `/`, no component a symlink.

    NotADirectoryError/FileNotFoundError when it does not exist as a directory; ConfinedPathError on a symlink.
    """
    if not root.startswith("/"):
        raise ConfinedPathError("a catalog root is an absolute path.")
    for part in parts:
        _check_component(part)
    steps = [(n, "the catalog's root") for n in root.split("/") if n]
    steps += [(p, "/".join(parts[: i + 1])) for i, p in enumerate(parts)]
    fd = os.open("/", _DIR_FLAGS)
    try:
        for name, shown in steps:
            nxt = _open_step(fd, name, shown, _DIR_FLAGS)
            os.close(fd)
            fd = nxt
        yield fd
    finally:
        os.close(fd)


def is_dir(root: str, *parts: str) -> bool:
    """True when `root/parts…` is a directory reached without a symlink; ConfinedPathError on a symlink."""
    try:
        with open_dir(root, *parts):
            return True
    except ConfinedPathError:
        raise
    except (FileNotFoundError, NotADirectoryError):
        return False


def entries(root: str, *parts: str) -> list[Entry]:
    """Regular files and directories of `root/parts…` (symlinks are skipped, never followed)."""
    with open_dir(root, *parts) as fd:
        found = []
        for name in os.listdir(fd):
            try:
                st = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                continue
            if stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode):
                found.append(Entry(name, stat.S_ISDIR(st.st_mode), st.st_mtime_ns, st.st_size))
        return found


def symlinks(root: str, *parts: str) -> list[str]:
    """Names of the symbolic links directly in `root/parts…` (to refuse a landing directory that holds one)."""
    with open_dir(root, *parts) as fd:
        return sorted(n for n in os.listdir(fd) if stat.S_ISLNK(os.stat(n, dir_fd=fd, follow_symlinks=False).st_mode))


@contextmanager
def open_file(root: str, *parts: str) -> Iterator[BinaryIO]:
    """The regular file `root/parts…` opened for reading with no symlink on the way; ConfinedPathError otherwise."""
    *dirs, name = parts
    _check_component(name)
    with open_dir(root, *dirs) as fd:
        file_fd = _open_step(fd, name, "/".join(parts), _FILE_FLAGS)
    if not stat.S_ISREG(os.fstat(file_fd).st_mode):
        os.close(file_fd)
        raise ConfinedPathError(f"{'/'.join(parts)} is not a regular file.")
    os.set_blocking(file_fd, True)
    with os.fdopen(file_fd, "rb") as handle:
        yield handle
