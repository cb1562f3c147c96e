"""The Iceberg REST catalog's operations on a team's `iceberg` catalog: namespaces, tables, commits.

Every call opens the catalog's warehouse with the same pyiceberg SQL catalog the Spark connector uses
(`lakeport_engine/iceberg/catalog.py`), so names, confinement and commits are shared: a commit is pyiceberg's
`commit_table` — requirements checked on the current metadata, updates applied by pyiceberg's table-metadata
update functions, then a compare-and-swap on the metadata location — so two writers (REST clients, Lakeport
runs) never lose each other's commits: the loser gets CommitFailed (409) and retries on the refreshed table.

No path a request names leaves the table's directory (rule iceberg-location): a create's `location`, a
`set-location` update, properties naming a path or location, a snapshot's manifest list, statistics files.
"""

from __future__ import annotations

import json
import logging
import shutil
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from django.contrib.auth.models import User
from pydantic import TypeAdapter, ValidationError

from catalogs.models import Catalog
from catalogs.secrets import open_configuration
from catalogs.services.paths import catalog_reach_errors
from grants.selectors import access_policy
from iceberg_rest.errors import (
    AlreadyExists,
    BadRequest,
    CommitFailed,
    NamespaceNotEmpty,
    NoSuchCatalog,
    NoSuchNamespace,
    NoSuchTable,
)
from lakeport_engine.access import AccessPolicy
from lakeport_engine.catalog_types.iceberg import IcebergConfig
from lakeport_engine.iceberg.catalog import (
    IcebergError,
    check_name,
    check_table_files,
    confined,
    local_path,
    open_catalog,
    table_location,
)
from teams.models import Team
from teams.selectors import team_role

if TYPE_CHECKING:
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.table import Table
    from pyiceberg.table.metadata import TableMetadata
    from pyiceberg.table.update import TableUpdate

logger = logging.getLogger("lakeport.iceberg_rest")

NAMESPACE_SEPARATOR = "\x1f"  # the spec's separator of a multi-level namespace in a path parameter
DEFAULT_PAGE_SIZE = 1000
# how pyiceberg's models and metadata updates fail on a body that does not fit them (a client's error, never a 500)
_BAD_INPUT: tuple[type[Exception], ...] = (ValueError, TypeError, KeyError, AttributeError, IndexError)
_BAD_COMMIT: tuple[type[Exception], ...] = (*_BAD_INPUT, IcebergError)
MAX_PAGE_SIZE = 1000


@dataclass(frozen=True)
class RestCatalogTarget:
    """The catalog a request addresses, and the caller's role in its team."""

    team: Team
    catalog: str
    warehouse: str
    role: str
    user: User
    policy: AccessPolicy  # the caller's grants in the team (iceberg_rest/access.py)


def rest_target(*, user: User, team_name: str, catalog_name: str) -> RestCatalogTarget:
    """The team's `iceberg` catalog named in the URL. A team the caller is not in, a missing catalog and a catalog
    of another type are all NoSuchCatalog (404), like the rest of the API: names of other teams do not leak."""
    team = Team.objects.filter(name=team_name).first()
    role = team_role(user=user, team=team) if team is not None else None
    if team is None or role is None:
        raise NoSuchCatalog("Team not found.")
    catalog = Catalog.objects.filter(team=team, catalog_name=catalog_name).first()
    if catalog is None or catalog.catalog_type != "iceberg":
        raise NoSuchCatalog(f"No Iceberg catalog named '{catalog_name}' in team '{team.name}'.")
    config = cast(IcebergConfig, open_configuration(catalog.catalog_type, catalog.configuration))
    # checked at every use, as everywhere: the data roots may have changed since the catalog was saved
    if catalog_reach_errors(team=team, catalog_type=catalog.catalog_type, plain=config.to_plain()):
        raise BadRequest(f"Iceberg catalog '{catalog_name}': its warehouse is outside the team's data roots now "
                         "(rule iceberg-location); an admin must fix the catalog.")
    return RestCatalogTarget(team=team, catalog=catalog.catalog_name, warehouse=config.warehouse, role=role,
                             user=user, policy=access_policy(team=team, user=user))


# ---- config ---------------------------------------------------------------------------------------------------
SERVED_ENDPOINTS = (
    "GET /v1/{prefix}/namespaces", "POST /v1/{prefix}/namespaces", "GET /v1/{prefix}/namespaces/{namespace}",
    "HEAD /v1/{prefix}/namespaces/{namespace}", "DELETE /v1/{prefix}/namespaces/{namespace}",
    "POST /v1/{prefix}/namespaces/{namespace}/properties", "GET /v1/{prefix}/namespaces/{namespace}/tables",
    "POST /v1/{prefix}/namespaces/{namespace}/tables", "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}", "POST /v1/{prefix}/tables/rename",
    "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics",
)


def catalog_config(target: RestCatalogTarget) -> dict[str, Any]:
    """`GET /v1/config`: no prefix (the catalog is named by the base path), the endpoints served, and the warehouse
    so that clients on the platform's hosts can read and write the files the metadata names."""
    return {"defaults": {}, "overrides": {"warehouse": Path(target.warehouse).as_uri()},
            "endpoints": list(SERVED_ENDPOINTS)}


# ---- namespaces -----------------------------------------------------------------------------------------------
def namespaces_list(target: RestCatalogTarget, *, parent: str | None, page_token: str | None,
                    page_size: str | None) -> dict[str, Any]:
    """The catalog's namespaces (one level: a `parent` has none below it), paged by `pageToken`/`pageSize`."""
    with _catalog(target) as catalog:
        if parent:
            _namespace_exists_or_raise(catalog, _namespace_name(parent))
            return {"namespaces": []}
        names = sorted(n[-1] for n in catalog.list_namespaces()) if catalog is not None else []
    page, token = _page(names, page_token, page_size)
    return {"namespaces": [[n] for n in page], **({"next-page-token": token} if token else {})}


def namespace_create(target: RestCatalogTarget, body: Mapping[str, Any]) -> dict[str, Any]:
    """Create a namespace (one level, a plain directory name); AlreadyExists when it does."""
    parts = body.get("namespace")
    properties = body.get("properties") or {}
    if not isinstance(parts, list) or not parts or not all(isinstance(p, str) for p in parts):
        raise BadRequest("'namespace' must be a non-empty list of strings.")
    if len(parts) != 1:
        raise BadRequest("Nested namespaces are not supported by Lakeport's Iceberg catalogs: use one level.")
    if not isinstance(properties, dict) or not all(isinstance(v, str) for v in properties.values()):
        raise BadRequest("'properties' must be an object of strings.")
    name = _checked(parts[0], "namespace")
    _refuse_location_properties(properties, what=f"namespace {name}")
    from pyiceberg.exceptions import NamespaceAlreadyExistsError

    with _catalog(target, create=True) as catalog:
        assert catalog is not None
        try:
            catalog.create_namespace(name, properties)
        except NamespaceAlreadyExistsError:
            raise AlreadyExists(f"Namespace already exists: {name}") from None
        loaded = catalog.load_namespace_properties(name)
    _audit(target, "namespace.create", name)
    return {"namespace": [name], "properties": dict(loaded)}


def namespace_load(target: RestCatalogTarget, namespace: str) -> dict[str, Any]:
    """A namespace and its properties; NoSuchNamespace (404) when it does not exist."""
    name = _namespace_name(namespace)
    with _catalog(target) as catalog:
        _namespace_exists_or_raise(catalog, name)
        assert catalog is not None
        return {"namespace": [name], "properties": dict(catalog.load_namespace_properties(name))}


def namespace_exists(target: RestCatalogTarget, namespace: str) -> None:
    """Nothing when the namespace exists; NoSuchNamespace otherwise."""
    with _catalog(target) as catalog:
        _namespace_exists_or_raise(catalog, _namespace_name(namespace))


def namespace_drop(target: RestCatalogTarget, namespace: str) -> None:
    """Drop an empty namespace; NamespaceNotEmpty (409) while it holds tables."""
    from pyiceberg.exceptions import NamespaceNotEmptyError, NoSuchNamespaceError

    name = _namespace_name(namespace)
    with _catalog(target) as catalog:
        _namespace_exists_or_raise(catalog, name)
        assert catalog is not None
        try:
            catalog.drop_namespace(name)
        except NamespaceNotEmptyError:
            raise NamespaceNotEmpty(f"Namespace {name} is not empty: drop its tables first.") from None
        except NoSuchNamespaceError:
            raise NoSuchNamespace(f"Namespace does not exist: {name}") from None
    _audit(target, "namespace.drop", name)


def namespace_properties_update(target: RestCatalogTarget, namespace: str, body: Mapping[str, Any]) -> dict[str, Any]:
    """Set and remove namespace properties (a key in both lists is a 422-style BadRequest)."""
    removals = body.get("removals") or []
    updates = body.get("updates") or {}
    if not isinstance(removals, list) or not all(isinstance(r, str) for r in removals):
        raise BadRequest("'removals' must be a list of strings.")
    if not isinstance(updates, dict) or not all(isinstance(v, str) for v in updates.values()):
        raise BadRequest("'updates' must be an object of strings.")
    if set(removals) & set(updates):
        raise BadRequest(f"Keys both removed and updated: {sorted(set(removals) & set(updates))}.")
    name = _namespace_name(namespace)
    _refuse_location_properties(updates, what=f"namespace {name}")
    with _catalog(target) as catalog:
        _namespace_exists_or_raise(catalog, name)
        assert catalog is not None
        summary = catalog.update_namespace_properties(name, set(removals), updates)
    _audit(target, "namespace.properties", name)
    return {"updated": sorted(summary.updated), "removed": sorted(summary.removed),
            "missing": sorted(summary.missing or [])}


# ---- tables ---------------------------------------------------------------------------------------------------
def tables_list(target: RestCatalogTarget, namespace: str, *, page_token: str | None,
                page_size: str | None) -> dict[str, Any]:
    """The namespace's tables, paged."""
    name = _namespace_name(namespace)
    with _catalog(target) as catalog:
        _namespace_exists_or_raise(catalog, name)
        assert catalog is not None
        tables = sorted(t[-1] for t in catalog.list_tables(name))
    page, token = _page(tables, page_token, page_size)
    return {"identifiers": [{"namespace": [name], "name": t} for t in page],
            **({"next-page-token": token} if token else {})}


def table_create(target: RestCatalogTarget, namespace: str, body: Mapping[str, Any]) -> dict[str, Any]:
    """Create a table at `<warehouse>/<namespace>/<table>` (a `location` elsewhere is refused), or with
    `stage-create` return its metadata uncommitted: the client commits it with an `assert-create` requirement."""
    from pyiceberg.catalog.rest import CreateTableRequest
    from pyiceberg.exceptions import TableAlreadyExistsError
    from pyiceberg.partitioning import UNPARTITIONED_PARTITION_SPEC
    from pyiceberg.table.sorting import UNSORTED_SORT_ORDER

    ns = _namespace_name(namespace)
    # the spec makes location, partition-spec and write-order optional; pyiceberg's model wants them present
    request = _parse(CreateTableRequest, {"location": None, "partition-spec": None, "write-order": None, **body},
                     "create table request")
    name = _checked(request.name, "table")
    location = table_location(target.warehouse, ns, name)
    if request.location is not None and local_path(request.location) != local_path(location):
        raise BadRequest(f"Table {ns}.{name}: location {request.location} is refused (rule iceberg-location): "
                         f"tables are created at {location}.")
    _refuse_location_properties(request.properties, what=f"table {ns}.{name}", inside=location)
    with _catalog(target) as catalog:
        _namespace_exists_or_raise(catalog, ns)
        assert catalog is not None
        if catalog.table_exists((ns, name)):
            raise AlreadyExists(f"Table already exists: {ns}.{name}")
        _directory_free(location, f"{ns}.{name}")
        kwargs: dict[str, Any] = {
            "schema": request.table_schema, "location": location, "properties": request.properties,
            "partition_spec": request.partition_spec or UNPARTITIONED_PARTITION_SPEC,
            "sort_order": request.write_order or UNSORTED_SORT_ORDER}
        try:
            if request.stage_create:
                staged = catalog._create_staged_table((ns, name), **kwargs)  # pyiceberg's own staging, not committed
                return _load_result(staged.metadata, None)
            table = catalog.create_table((ns, name), **kwargs)
        except TableAlreadyExistsError:
            raise AlreadyExists(f"Table already exists: {ns}.{name}") from None
        except _BAD_INPUT as exc:  # e.g. a partition field whose source column is not in the schema
            raise BadRequest(f"Table {ns}.{name} cannot be created: {_first_line(exc)}") from None
    _audit(target, "table.create", f"{ns}.{name}")
    return _load_result(table.metadata, table.metadata_location)


def table_load(target: RestCatalogTarget, namespace: str, table: str) -> dict[str, Any]:
    """A table's current metadata and metadata location (`snapshots=refs` is not honoured: all are returned)."""
    ns, name = _namespace_name(namespace), _table_name(table)
    with _catalog(target) as catalog:
        loaded = _load(catalog, target, ns, name)
    return _load_result(loaded.metadata, loaded.metadata_location)


def table_exists(target: RestCatalogTarget, namespace: str, table: str) -> None:
    """Nothing when the table exists; NoSuchTable otherwise."""
    ns, name = _namespace_name(namespace), _table_name(table)
    with _catalog(target) as catalog:
        if catalog is None or not catalog.table_exists((ns, name)):
            raise NoSuchTable(f"Table does not exist: {ns}.{name}")


def table_commit(target: RestCatalogTarget, namespace: str, table: str, body: Mapping[str, Any]) -> dict[str, Any]:
    """Apply a commit's requirements and updates atomically (pyiceberg's `commit_table`: compare-and-swap on the
    metadata location). A failed requirement or a lost race is CommitFailed (409), nothing committed; a table that
    does not exist is created only by a commit asserting `assert-create` (a staged create)."""
    from pyiceberg.exceptions import CommitFailedException, NoSuchTableError, TableAlreadyExistsError
    from pyiceberg.table.update import AssertCreate, TableRequirement, TableUpdate

    ns, name = _namespace_name(namespace), _table_name(table)
    identifier = body.get("identifier")
    if identifier is not None and (not isinstance(identifier, dict) or identifier.get("name") != name
                                   or identifier.get("namespace") != [ns]):
        raise BadRequest("The commit's identifier does not name the table of the URL.")
    requirements = _parse(TypeAdapter(tuple[TableRequirement, ...]), body.get("requirements", []), "requirements")
    updates = _parse(TypeAdapter(tuple[TableUpdate, ...]), body.get("updates", []), "updates")
    creating = any(isinstance(r, AssertCreate) for r in requirements)
    with _catalog(target) as catalog:
        _namespace_exists_or_raise(catalog, ns)
        assert catalog is not None
        try:
            current: Table | None = _load(catalog, target, ns, name)
        except NoSuchTable:
            if not creating:
                raise
            current = None
        location = current.location() if current is not None else table_location(target.warehouse, ns, name)
        if current is None:
            _directory_free(location, f"{ns}.{name}")
        _check_updates(updates, location=location, what=f"{ns}.{name}")
        try:
            # commit_table reads only the identifier of the table it is given (it reloads the current metadata)
            response = catalog.commit_table(cast("Table", _Named((ns, name))), requirements, updates)
        except CommitFailedException as exc:
            raise CommitFailed(f"Commit to {ns}.{name} failed, nothing was committed: {exc}. Refresh the table and "
                               "retry.") from None
        except TableAlreadyExistsError:
            raise CommitFailed(f"Table {ns}.{name} was created concurrently; nothing was committed.") from None
        except NoSuchTableError:
            raise NoSuchTable(f"Table does not exist: {ns}.{name}") from None
        except _BAD_COMMIT as exc:  # an update pyiceberg cannot apply to this metadata
            raise BadRequest(f"Commit to {ns}.{name} refused: {_first_line(exc)}") from None
    snapshot = response.metadata.current_snapshot_id
    _audit(target, "table.commit", f"{ns}.{name}", snapshot=snapshot,
           updates=[u.action for u in updates])
    return {"metadata-location": response.metadata_location, "metadata": _metadata_json(response.metadata)}


def table_rename(target: RestCatalogTarget, body: Mapping[str, Any]) -> None:
    """Rename a table (within or across namespaces of the catalog); its files stay where they are."""
    from pyiceberg.exceptions import NoSuchNamespaceError, NoSuchTableError, TableAlreadyExistsError

    source, destination = _identifier(body.get("source")), _identifier(body.get("destination"))
    with _catalog(target) as catalog:
        _load(catalog, target, *source)
        assert catalog is not None
        _namespace_exists_or_raise(catalog, destination[0])
        if catalog.table_exists(destination):
            raise AlreadyExists(f"Table already exists: {'.'.join(destination)}")
        try:
            catalog.rename_table(source, destination)
        except NoSuchTableError:
            raise NoSuchTable(f"Table does not exist: {'.'.join(source)}") from None
        except NoSuchNamespaceError:
            raise NoSuchNamespace(f"Namespace does not exist: {destination[0]}") from None
        except TableAlreadyExistsError:
            raise AlreadyExists(f"Table already exists: {'.'.join(destination)}") from None
    _audit(target, "table.rename", ".".join(source), to=".".join(destination))


def table_drop(target: RestCatalogTarget, namespace: str, table: str, *, purge: bool) -> None:
    """Drop a table from the catalog; with `purge`, delete its directory too (its files are confined to it)."""
    from pyiceberg.exceptions import NoSuchTableError

    ns, name = _namespace_name(namespace), _table_name(table)
    with _catalog(target) as catalog:
        loaded = _load(catalog, target, ns, name)
        assert catalog is not None
        try:
            catalog.drop_table((ns, name))
        except NoSuchTableError:
            raise NoSuchTable(f"Table does not exist: {ns}.{name}") from None
    if purge:
        directory = confined(loaded.location(), target.warehouse, what="location", table=f"{ns}.{name}")
        if directory != str(Path(target.warehouse).resolve()):
            shutil.rmtree(directory, ignore_errors=True)
    _audit(target, "table.drop", f"{ns}.{name}", purge=purge)


def rename_identifiers(body: Mapping[str, Any]) -> tuple[tuple[str, str], tuple[str, str]]:
    """A rename body's (source, destination) identifiers, checked (BadRequest when malformed)."""
    return _identifier(body.get("source")), _identifier(body.get("destination"))


def namespace_key(text: str) -> str:
    """A namespace path parameter as the grants name it (checked as every route checks it)."""
    return _namespace_name(text)


def table_key(text: str) -> str:
    """A table path parameter as the grants name it."""
    return _table_name(text)


# ---- helpers --------------------------------------------------------------------------------------------------
class _Named:
    """What `SqlCatalog.commit_table` reads of the table it is given: its identifier."""

    def __init__(self, identifier: tuple[str, str]) -> None:
        self._identifier = identifier

    def name(self) -> tuple[str, str]:
        return self._identifier


@contextmanager
def _catalog(target: RestCatalogTarget, *, create: bool = False) -> Iterator[SqlCatalog | None]:
    """The warehouse's SQL catalog (None while it has none and `create` is False); its engine closed after."""
    try:
        catalog = open_catalog(target.warehouse, create=create)
    except FileNotFoundError:
        if Path(target.warehouse).is_dir():
            yield None
            return
        raise BadRequest(f"The warehouse of Iceberg catalog '{target.catalog}' does not exist.") from None
    try:
        yield catalog
    finally:
        catalog.engine.dispose()


def _namespace_exists_or_raise(catalog: SqlCatalog | None, name: str) -> None:
    if catalog is None or not catalog.namespace_exists(name):
        raise NoSuchNamespace(f"Namespace does not exist: {name}")


def _load(catalog: SqlCatalog | None, target: RestCatalogTarget, ns: str, name: str) -> Table:
    from pyiceberg.exceptions import NoSuchTableError

    if catalog is None:
        raise NoSuchTable(f"Table does not exist: {ns}.{name}")
    try:
        loaded = catalog.load_table((ns, name))
    except NoSuchTableError:
        raise NoSuchTable(f"Table does not exist: {ns}.{name}") from None
    try:
        check_table_files(loaded, target.warehouse, f"{ns}.{name}")
    except IcebergError as exc:
        raise BadRequest(str(exc)) from None
    return loaded


def _namespace_name(text: str) -> str:
    # a multi-level namespace (parts joined by 0x1F) or a name that is no plain directory name cannot exist here
    if NAMESPACE_SEPARATOR in text or not _plain(text):
        raise NoSuchNamespace(f"Namespace does not exist: {text.replace(NAMESPACE_SEPARATOR, '.')}")
    return text


def _table_name(text: str) -> str:
    if not _plain(text):
        raise NoSuchTable(f"Table does not exist: {text}")
    return text


def _plain(text: str) -> bool:
    try:
        check_name(text, what="name", catalog="")
    except IcebergError:
        return False
    return True


def _checked(name: str, what: str) -> str:
    try:
        return check_name(name, what=what, catalog="")
    except IcebergError as exc:
        raise BadRequest(str(exc).replace(" in Iceberg catalog ''", "")) from None


def _identifier(value: Any) -> tuple[str, str]:
    if (not isinstance(value, dict) or not isinstance(value.get("namespace"), list)
            or not isinstance(value.get("name"), str)):
        raise BadRequest("A table identifier is {\"namespace\": [...], \"name\": \"...\"}.")
    parts = value["namespace"]
    if len(parts) != 1 or not isinstance(parts[0], str):
        raise NoSuchNamespace(f"Namespace does not exist: {'.'.join(map(str, parts))}")
    return _namespace_name(parts[0]), _table_name(value["name"])


def _directory_free(location: str, name: str) -> None:
    # a renamed table or one dropped without purge keeps its files here: a new table must not share (or purge) them
    # (a table metadata file tells: a staged create's client may already have written data files and manifests)
    path = Path(local_path(location)) / "metadata"
    if path.is_dir() and any(path.glob("*.metadata.json")):
        raise AlreadyExists(f"Table {name}: its directory {path.parent} holds files of another table (renamed, or dropped "
                            "without purge); drop that table with purge or choose another name.")


def _refuse_location_properties(properties: Mapping[str, str], *, what: str, inside: str | None = None) -> None:
    """Properties naming a path or location (`write.data.path`, `write.metadata.path`, …) must stay inside the
    table's directory (`inside`); on namespaces they are refused outright."""
    for key, value in properties.items():
        if "path" not in key.lower() and "location" not in key.lower():
            continue
        if inside is not None and _inside(str(value), inside):
            continue
        raise BadRequest(f"{what}: property '{key}' = {value!r} is refused (rule iceberg-location): paths and "
                         "locations must stay inside the table's directory.")


def _inside(value: str, location: str) -> bool:
    path, root = local_path(value), local_path(location)
    return bool(path) and (path == root or path.startswith(root.rstrip("/") + "/"))


def _check_updates(updates: tuple[TableUpdate, ...], *, location: str, what: str) -> None:
    """Refuse updates that would point the table at files outside its directory (rule iceberg-location)."""
    from pyiceberg.table.update import (
        AddSnapshotUpdate,
        SetLocationUpdate,
        SetPartitionStatisticsUpdate,
        SetPropertiesUpdate,
        SetStatisticsUpdate,
    )

    for update in updates:
        paths: list[tuple[str, str]] = []
        if isinstance(update, SetLocationUpdate):
            if local_path(update.location) != local_path(location):
                raise BadRequest(f"Table {what}: set-location to {update.location} is refused (rule "
                                 f"iceberg-location): the table stays at {location}.")
        elif isinstance(update, SetPropertiesUpdate):
            _refuse_location_properties(update.updates, what=f"table {what}", inside=location)
        elif isinstance(update, AddSnapshotUpdate):
            paths.append(("manifest list", update.snapshot.manifest_list))
        elif isinstance(update, SetStatisticsUpdate):
            paths.append(("statistics file", update.statistics.statistics_path))
        elif isinstance(update, SetPartitionStatisticsUpdate):
            paths.append(("partition statistics file", update.partition_statistics.statistics_path))
        for kind, path in paths:
            if not _inside(path, location):
                raise BadRequest(f"Table {what}: its {kind} {path} is outside the table's directory (rule "
                                 "iceberg-location); write files under the table's location.")


def _parse(model: Any, data: Any, what: str) -> Any:
    adapter = model if isinstance(model, TypeAdapter) else TypeAdapter(model)
    try:
        return adapter.validate_python(data)
    except ValidationError as exc:
        errors = exc.errors()
        where = ".".join(str(p) for p in errors[0]["loc"]) if errors else ""
        message = errors[0]["msg"] if errors else "invalid"
        raise BadRequest(f"Invalid {what}: {where or 'body'}: {message} ({exc.error_count()} error(s)).") from None
    except _BAD_INPUT as exc:  # pyiceberg's own validators fail on wrongly typed input in these ways too
        raise BadRequest(f"Invalid {what}: {_first_line(exc)}") from None


def _page(names: list[str], token: str | None, size: str | None) -> tuple[list[str], str | None]:
    try:
        start = int(token) if token else 0
        limit = min(int(size), MAX_PAGE_SIZE) if size else DEFAULT_PAGE_SIZE
    except ValueError:
        raise BadRequest("pageToken and pageSize must be the values this endpoint gave / positive integers.") from None
    if start < 0 or limit < 1:
        raise BadRequest("pageToken and pageSize must not be negative; pageSize at least 1.")
    end = start + limit
    return names[start:end], (str(end) if end < len(names) else None)


def _metadata_json(metadata: TableMetadata) -> Any:
    return json.loads(metadata.model_dump_json())


def _load_result(metadata: TableMetadata, metadata_location: str | None) -> dict[str, Any]:
    result: dict[str, Any] = {"metadata": _metadata_json(metadata), "config": {}}
    if metadata_location is not None:
        result["metadata-location"] = metadata_location
    return result


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _audit(target: RestCatalogTarget, action: str, name: str, **extra: Any) -> None:
    # who changed what through the endpoint, in the platform's structured log (docs/iceberg.md "REST catalog")
    logger.info(f"iceberg_rest.{action}", extra={"team_id": target.team.pk, "catalog": target.catalog,
                                                 "user": target.user.username, "object": name, **extra})
