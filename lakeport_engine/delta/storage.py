"""File operations on a warehouse: plain `os` calls for local paths, Spark's Hadoop file systems otherwise."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from typing import Any, Protocol

from lakeport_engine.delta.catalog import spark_path


@dataclass(frozen=True)
class FileInfo:
    """A file below some root: its path relative to that root, size in bytes, modification time in ms."""

    relative_path: str
    size: int
    modification_time: int


class Storage(Protocol):
    """The few file-system operations the connector needs besides delta-rs."""

    def exists(self, uri: str) -> bool:
        """True if a file or directory exists at `uri`."""
        ...

    def list_dirs(self, uri: str) -> list[str]:
        """Names of the sub-directories of `uri` (empty when `uri` does not exist)."""
        ...

    def mkdirs(self, uri: str) -> None:
        """Create `uri` and its parents."""
        ...

    def delete(self, uri: str) -> None:
        """Delete a file or a directory tree; a missing path is not an error."""
        ...

    def rename(self, src: str, dst: str) -> None:
        """Move a file to `dst`, creating the parent directory."""
        ...

    def list_files(self, uri: str) -> list[FileInfo]:
        """Every file below `uri`, recursively."""
        ...


class LocalStorage:
    """A warehouse directory on this machine."""

    def exists(self, uri: str) -> bool:
        return os.path.exists(uri)

    def list_dirs(self, uri: str) -> list[str]:
        try:
            with os.scandir(uri) as entries:
                return sorted(e.name for e in entries if e.is_dir())
        except FileNotFoundError:
            return []

    def mkdirs(self, uri: str) -> None:
        os.makedirs(uri, exist_ok=True)

    def delete(self, uri: str) -> None:
        if os.path.isdir(uri) and not os.path.islink(uri):
            shutil.rmtree(uri, ignore_errors=True)
        elif os.path.lexists(uri):
            os.remove(uri)

    def rename(self, src: str, dst: str) -> None:
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        os.rename(src, dst)

    def list_files(self, uri: str) -> list[FileInfo]:
        found: list[FileInfo] = []
        for dirpath, _dirs, files in os.walk(uri):
            for name in files:
                full = os.path.join(dirpath, name)
                stat = os.stat(full)
                found.append(FileInfo(os.path.relpath(full, uri), stat.st_size, int(stat.st_mtime * 1000)))
        return found


class HadoopStorage:
    """A remote warehouse (s3a://, abfss://, gs://) through the Spark driver's Hadoop file systems."""

    def __init__(self, spark: Any) -> None:
        self._jvm = spark.sparkContext._jvm
        self._conf = spark.sparkContext._jsc.hadoopConfiguration()

    def _fs(self, uri: str) -> tuple[Any, Any]:
        path = self._jvm.org.apache.hadoop.fs.Path(spark_path(uri))
        return path.getFileSystem(self._conf), path

    def exists(self, uri: str) -> bool:
        fs, path = self._fs(uri)
        return bool(fs.exists(path))

    def list_dirs(self, uri: str) -> list[str]:
        fs, path = self._fs(uri)
        if not fs.exists(path):
            return []
        return sorted(s.getPath().getName() for s in fs.listStatus(path) if s.isDirectory())

    def mkdirs(self, uri: str) -> None:
        fs, path = self._fs(uri)
        fs.mkdirs(path)

    def delete(self, uri: str) -> None:
        fs, path = self._fs(uri)
        fs.delete(path, True)

    def rename(self, src: str, dst: str) -> None:
        fs, source = self._fs(src)
        target = self._jvm.org.apache.hadoop.fs.Path(spark_path(dst))
        fs.mkdirs(target.getParent())
        if not fs.rename(source, target):
            raise OSError(f"could not move {src} to {dst}")

    def list_files(self, uri: str) -> list[FileInfo]:
        fs, path = self._fs(uri)
        root = spark_path(uri).rstrip("/") + "/"
        found: list[FileInfo] = []
        iterator = fs.listFiles(path, True)
        while iterator.hasNext():
            status = iterator.next()
            full = status.getPath().toString()
            relative = full[len(root):] if full.startswith(root) else status.getPath().getName()
            found.append(FileInfo(relative, int(status.getLen()), int(status.getModificationTime())))
        return found


def storage_for(*, is_local: bool, spark: Any) -> Storage:
    """The file operations matching a warehouse."""
    return LocalStorage() if is_local else HadoopStorage(spark)
