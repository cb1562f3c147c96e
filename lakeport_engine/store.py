"""Where the Spark runtime finds a team's catalogs by name (after Flink FLIP-295's CatalogStore).

Three stores: the platform database (`t_spark_catalog`, read with psycopg, secrets decrypted in this
process), a JSON file for plain `spark-submit` outside the platform, and an in-memory list for tests and
embedding. Every lookup goes to the store, so a catalog created or changed after the session started is
seen by the next statement that needs it.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable
from urllib.parse import urlsplit

from lakeport_engine.catalog_types import DEFINITIONS
from lakeport_kernel.redaction import register_secret


class CatalogStoreError(RuntimeError):
    """The store cannot be read (unreachable database, unreadable or malformed file)."""


def catalog_fingerprint(catalog_type: str, version: int, configuration: dict[str, Any]) -> str:
    """The one change check of a catalog, whatever store it came from: type, version and plain configuration.

    The plain configuration, not the sealed one: re-sealing under a new key (rotation) changes no binding.
    """
    blob = json.dumps([catalog_type, version, configuration], sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class CatalogEntry:
    """One catalog as the runtime needs it: plain (decrypted) configuration and a version for change detection.

    Stores pass no `fingerprint`: the entry derives it with `catalog_fingerprint`. Only an entry relayed from
    another process (the engine channel) carries the fingerprint its store derived.
    """

    name: str
    type: str
    configuration: dict[str, Any]
    version: int = 1
    fingerprint: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not self.fingerprint:
            object.__setattr__(self, "fingerprint", catalog_fingerprint(self.type, self.version, self.configuration))
        register_secrets(self.type, self.configuration)


def register_secrets(catalog_type: str, configuration: dict[str, Any]) -> None:
    """Register the secret values of a plain configuration for redaction: the fields its type's model marks
    secret (the same list the catalog API keeps write-only); an unknown type has none this runtime knows."""
    definition = DEFINITIONS.get(catalog_type)
    for value in definition.secret_values(configuration) if definition is not None else []:
        register_secret(value)


@runtime_checkable
class CatalogStore(Protocol):
    """Catalogs of one team, by name."""

    team: str

    def get_catalog(self, name: str) -> CatalogEntry | None:
        """The catalog called `name` (current configuration and version), or None if the team has none."""
        ...

    def list_catalogs(self) -> list[str]:
        """Names of all the team's catalogs, sorted."""
        ...

    def contains(self, name: str) -> bool:
        """True if the team has a catalog called `name`."""
        ...


def _entry_from_body(body: Any, where: str) -> CatalogEntry:
    if not isinstance(body, dict):
        raise CatalogStoreError(f"{where}: each catalog must be an object.")
    name, kind, config = body.get("catalog_name"), body.get("catalog_type"), body.get("configuration")
    if not isinstance(name, str) or not name:
        raise CatalogStoreError(f"{where}: 'catalog_name' is required.")
    if not isinstance(kind, str) or kind not in DEFINITIONS:
        raise CatalogStoreError(f"{where}: catalog '{name}' has catalog_type {kind!r}; use one of {', '.join(DEFINITIONS)}.")
    if not isinstance(config, dict):
        raise CatalogStoreError(f"{where}: catalog '{name}' needs a 'configuration' object.")
    version = body.get("version", 1)
    return CatalogEntry(name=name.lower(), type=kind, configuration=config, version=int(version) if isinstance(version, int) else 1)


class InMemoryCatalogStore:
    """Catalogs held in a dict; `put`/`remove` change them while sessions use the store (tests, embedding)."""

    def __init__(self, entries: list[CatalogEntry] | list[dict[str, Any]] | None = None, *, team: str = "default") -> None:
        self.team = team
        self._lock = threading.Lock()
        self._entries: dict[str, CatalogEntry] = {}
        for entry in entries or []:
            self.put(entry)

    def put(self, entry: CatalogEntry | dict[str, Any]) -> CatalogEntry:
        """Add or replace a catalog (an entry or an API-shaped body); a replaced catalog gets a higher version."""
        if isinstance(entry, dict):
            entry = _entry_from_body(entry, "memory store")
        with self._lock:
            old = self._entries.get(entry.name)
            if old is not None and entry.version <= old.version and entry.fingerprint != old.fingerprint:
                entry = CatalogEntry(entry.name, entry.type, entry.configuration, old.version + 1)
            self._entries[entry.name] = entry
        return entry

    def remove(self, name: str) -> None:
        """Delete a catalog if present."""
        with self._lock:
            self._entries.pop(name.lower(), None)

    def get_catalog(self, name: str) -> CatalogEntry | None:
        """The catalog called `name`, or None."""
        return self._entries.get(name.lower())

    def list_catalogs(self) -> list[str]:
        """Sorted catalog names."""
        return sorted(self._entries)

    def contains(self, name: str) -> bool:
        """True if the catalog exists."""
        return name.lower() in self._entries


class FileCatalogStore:
    """A JSON file: a list of `{"catalog_name", "catalog_type", "configuration"}` objects, secrets in plain text.

    The operator protects the file (it holds passwords). It is re-read when its modification time or size
    changes, so edits are seen by the next statement that needs the catalog.
    """

    def __init__(self, path: str | os.PathLike[str], *, team: str = "default") -> None:
        self.path = Path(path)
        self.team = team
        self._lock = threading.Lock()
        self._stamp: tuple[int, int] | None = None
        self._entries: dict[str, CatalogEntry] = {}
        self._load()

    def _load(self) -> dict[str, CatalogEntry]:
        try:
            st = self.path.stat()
        except OSError as exc:
            raise CatalogStoreError(f"Catalog file {self.path} cannot be read: {exc.strerror}.") from None
        stamp = (st.st_mtime_ns, st.st_size)
        with self._lock:
            if stamp == self._stamp:
                return self._entries
            try:
                data = json.loads(self.path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                # the message names the file and the position only, never the content
                where = f" at line {exc.lineno}" if isinstance(exc, json.JSONDecodeError) else ""
                raise CatalogStoreError(f"Catalog file {self.path} is not valid JSON{where}.") from None
            if isinstance(data, dict) and isinstance(data.get("catalogs"), list):
                data = data["catalogs"]
            if not isinstance(data, list):
                raise CatalogStoreError(f"Catalog file {self.path} must hold a JSON list of catalogs.")
            entries: dict[str, CatalogEntry] = {}
            for k, body in enumerate(data):
                entry = _entry_from_body(body, f"{self.path} item {k}")
                entries[entry.name] = entry
            self._entries, self._stamp = entries, stamp
            return entries

    def get_catalog(self, name: str) -> CatalogEntry | None:
        """The catalog called `name` as the file says now, or None."""
        return self._load().get(name.lower())

    def list_catalogs(self) -> list[str]:
        """Sorted catalog names in the file."""
        return sorted(self._load())

    def contains(self, name: str) -> bool:
        """True if the file has the catalog."""
        return name.lower() in self._load()


class DatabaseCatalogStore:
    """The platform's `t_spark_catalog` rows of one team, read with psycopg; sealed secrets decrypted here.

    `dsn` is a libpq URL or key/value string. Keep the password out of it when it travels on a command
    line: libpq reads PGPASSWORD, ~/.pgpass (PGPASSFILE) and service files (PGSERVICE) by itself.
    Decryption keys come from LAKEPORT_SECRET_KEYS in the environment.
    """

    _QUERY = (
        "SELECT c.catalog_name, c.catalog_type, c.configuration, c.version "
        "FROM t_spark_catalog c JOIN teams_team t ON t.id = c.team_id WHERE t.name = %s"
    )

    def __init__(self, dsn: str, team: str, *, connect_timeout: int = 10) -> None:
        self.dsn = dsn
        self.team = team
        self._connect_timeout = connect_timeout
        self._lock = threading.Lock()
        self._conn: Any = None
        self._box: Any = None

    def _connection(self) -> Any:
        import psycopg

        if self._conn is None or self._conn.closed:
            try:
                self._conn = psycopg.connect(self.dsn, autocommit=True, connect_timeout=self._connect_timeout)
            except psycopg.Error as exc:
                raise CatalogStoreError(f"Catalog database {redact_dsn(self.dsn)} is unreachable: {_first_line(exc)}") from None
        return self._conn

    def _rows(self, name: str | None) -> list[tuple[Any, ...]]:
        import psycopg

        query = self._QUERY + (" AND c.catalog_name = %s" if name is not None else "") + " ORDER BY c.catalog_name"
        params = (self.team, name) if name is not None else (self.team,)
        with self._lock:
            for attempt in (1, 2):  # one reconnect: a long-lived driver outlives idle connections
                try:
                    rows: list[tuple[Any, ...]] = self._connection().execute(query, params).fetchall()
                    return rows
                except psycopg.OperationalError as exc:
                    self._conn = None
                    if attempt == 2:
                        raise CatalogStoreError(f"Catalog database {redact_dsn(self.dsn)} failed: {_first_line(exc)}") from None
        return []

    def _entry(self, row: tuple[Any, ...]) -> CatalogEntry:
        from lakeport_kernel.secretbox import SecretBox

        name, kind, configuration, version = row
        if self._box is None:
            self._box = SecretBox.from_env()
        stored = json.loads(configuration) if isinstance(configuration, str) else configuration
        plain = self._box.open_config(stored)
        # no fingerprint of our own: the worker's ORM store and this one detect a change the same way
        return CatalogEntry(name=name, type=kind, configuration=plain, version=int(version))

    def get_catalog(self, name: str) -> CatalogEntry | None:
        """The team's catalog called `name` with secrets decrypted, or None (another team's catalog is None too)."""
        rows = self._rows(name.lower())
        return self._entry(rows[0]) if rows else None

    def list_catalogs(self) -> list[str]:
        """Sorted names of the team's catalogs."""
        return [row[0] for row in self._rows(None)]

    def contains(self, name: str) -> bool:
        """True if the team has the catalog."""
        return bool(self._rows(name.lower()))

    def close(self) -> None:
        """Close the database connection."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def _first_line(exc: BaseException) -> str:
    from lakeport_kernel.redaction import redact

    return redact(str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__)


def dsn_has_password(dsn: str) -> bool:
    """True if a libpq DSN (URL or key/value form) carries a password."""
    if "://" in dsn:
        parts = urlsplit(dsn)
        return parts.password is not None or "password=" in (parts.query or "").lower()
    return any(item.strip().lower().startswith("password") for item in dsn.split())


def redact_dsn(dsn: str) -> str:
    """The DSN without a password, for messages."""
    if "://" in dsn:
        parts = urlsplit(dsn)
        netloc = parts.hostname or ""
        if parts.port:
            netloc += f":{parts.port}"
        if parts.username:
            netloc = f"{parts.username}@{netloc}"
        return f"{parts.scheme}://{netloc}{parts.path}"
    return " ".join(i for i in dsn.split() if not i.lower().startswith("password"))


def open_store(spec: str, team: str) -> CatalogStore:
    """A store from a spec: ``file:/path.json``, ``postgresql://user@host:port/db`` or ``memory:`` (empty)."""
    if spec.startswith("file:"):
        return FileCatalogStore(spec.removeprefix("file:").removeprefix("//"), team=team)
    if spec.startswith(("postgresql://", "postgres://")):
        return DatabaseCatalogStore(spec, team)
    if spec == "memory:":
        return InMemoryCatalogStore([], team=team)
    raise ValueError("store must be file:/path.json, postgresql://user@host:port/db or memory:")
