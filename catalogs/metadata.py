"""Test connection and metadata browsing for catalogs: the services behind catalogs/metadata_apis.py.

Each call opens the catalog's configuration (secrets decrypted in memory only), hands it to its type's
native client with a timeout, and returns plain results. Nothing here writes to the database.
"""

from __future__ import annotations

import logging
import re
import socket
import time
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from django.conf import settings
from pydantic import ValidationError as PydanticValidationError

from catalogs.models import Catalog
from catalogs.secrets import open_configuration, secret_paths
from catalogs.services.paths import catalog_reach_errors
from catalogs.services.spec import config_error_details, invalid
from catalogs.types import CATALOG_TYPES, get_catalog_type
from catalogs.types.base import ConnectionResult, MetadataError, TableDetail, TableSummary
from catalogs.types.endpoints import Endpoint, EndpointRefused, catalog_endpoints, check_endpoints
from catalogs.types.streams import StreamSample, sample_table
from core.errors import Conflict, InvalidInput
from lakeport_engine.catalog_types.base import CatalogConfig
from lakeport_kernel.redaction import register_secret
from teams.models import Team

logger = logging.getLogger("lakeport.catalogs.metadata")

# Upper bound for a caller-chosen timeout: a request thread must not be held longer than this.
MAX_TIMEOUT_SECONDS = 30.0
# A sub-second deadline would turn a healthy catalog into a 504: asked-for timeouts are raised to this floor.
MIN_TIMEOUT_SECONDS = 1.0
# Database and table names from URLs: letters, digits, _, $ and -; no quotes, separators, dots or spaces.
_OBJECT_NAME = re.compile(r"^[\w$-]{1,128}$")
MAX_SAMPLE_ROWS = 1000  # records one sample returns at most


@runtime_checkable
class StreamSampler(Protocol):
    """A stream catalog type that reads a table's newest records (redis-streams, nats-jetstream, files)."""

    def sample_records(self, config: Any, database: str, table: str, limit: int, *, timeout: float) -> StreamSample:
        """The newest `limit` records, oldest first; MetadataError(404) for an unknown database or table."""
        ...


@dataclass(frozen=True)
class TableSample:
    """A stream table's newest records: `columns` ({"name", "type"}), `rows` (lists of JSON values) and `schema`,
    "declared" or "inferred"; TableSampleOutput (catalogs/metadata_apis.py) writes it."""

    columns: list[dict[str, str]]
    rows: list[list[Any]]
    schema: str


class CatalogReachRefused(Conflict):
    """A saved catalog now reaches what no catalog may (a DNS answer changed, or the rules did since it was saved)."""

    code = "catalog_refused"
    default_message = "The catalog reaches a path or server it may not use; fix its configuration."


class ConfigurationUnreadable(Conflict):
    """A stored configuration cannot be decrypted or no longer validates (a rotated-away key, say)."""

    code = "configuration_unreadable"
    default_message = "The catalog's stored configuration cannot be read; save the catalog again."


# ---- inputs ------------------------------------------------------------------------------------------------
def resolve_timeout(raw: str | None) -> float:
    """Seconds for one call: `settings.LAKEPORT_CONNECT_TIMEOUT`, or `raw` (a positive number) kept within 1–30."""
    if raw is None or raw == "":
        return min(float(settings.LAKEPORT_CONNECT_TIMEOUT), MAX_TIMEOUT_SECONDS)
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise InvalidInput.of({"timeout": ["Give a positive number of seconds (at most 30)."]})
    return min(max(value, MIN_TIMEOUT_SECONDS), MAX_TIMEOUT_SECONDS)


def check_object_name(value: str, *, what: str) -> str:
    """Return `value` if it can be a database/table name; else a 400 before any client is called."""
    if not _OBJECT_NAME.match(value):
        raise InvalidInput.of({what: [f"A {what} name may contain letters, digits, '_', '$' and '-' only (at most 128)."]})
    return value


def validate_configuration(*, catalog_type: str, configuration: Any) -> CatalogConfig:
    """The configuration validated by its type's model; a 400 naming the bad fields otherwise."""
    if catalog_type not in CATALOG_TYPES:
        known = ", ".join(sorted(CATALOG_TYPES))
        raise invalid({"catalog_type": [f"Unknown catalog type; use one of: {known}."]})
    if not isinstance(configuration, dict):
        raise invalid({"configuration": ["Expected a JSON object."]})
    try:
        return get_catalog_type(catalog_type).config_model.model_validate(configuration)
    except PydanticValidationError as exc:
        # The same error shape as the CRUD API: fields by alias, messages without input values.
        raise invalid({"configuration": config_error_details(exc, configuration)}) from None


# ---- services ----------------------------------------------------------------------------------------------
def catalog_config_test_connection(*, team: Team, catalog_type: str, configuration: Any,
                                   timeout: float) -> ConnectionResult:
    """Test an unsaved configuration: run exactly the checks a save runs, then connect within `timeout` seconds.

    A path the team may not use is a 400 naming the rule, as on a save. A server that refuses the connection, never
    answers, or is one no catalog may reach (the platform's own services, outside the allow-list) gets one and the
    same answer after the whole `timeout`, so the test cannot tell an attacker which ports are open where.
    """
    started = time.monotonic()
    config = validate_configuration(catalog_type=catalog_type, configuration=configuration)
    plain = config.to_plain()
    paths = catalog_reach_errors(team=team, catalog_type=catalog_type, plain=plain, endpoints=False)
    if paths:
        raise invalid({"configuration": paths})
    _register_secrets(config)
    endpoints = catalog_endpoints(catalog_type, plain)
    if endpoints and not _any_answers(endpoints, deadline=started + timeout):
        return _unreachable(endpoints, started=started, timeout=timeout)
    result = get_catalog_type(catalog_type).test_connection(config, timeout=timeout)
    logger.info(
        "catalog.test_connection",
        extra={"catalog_type": catalog_type, "catalog": None, "ok": result.ok, "elapsed_ms": result.elapsed_ms},
    )
    return result


def _any_answers(endpoints: list[Endpoint], *, deadline: float) -> bool:
    """Whether one of the endpoints may be reached (not a platform service, in the allow-list) and accepts TCP
    before `deadline` (a `time.monotonic()` value shared by all of them)."""
    for endpoint in endpoints:
        try:
            check_endpoints([endpoint])
        except EndpointRefused:
            continue  # refused by rule: answered exactly like a port nothing listens on
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        try:
            socket.create_connection((endpoint.host.strip("[]"), endpoint.port), timeout=remaining).close()
        except OSError:
            continue
        return True
    return False


def _unreachable(endpoints: list[Endpoint], *, started: float, timeout: float) -> ConnectionResult:
    """One answer, after the whole deadline, for a closed port, a filtered one and an address no catalog may use:
    the ad-hoc test is not a port scanner (the save names the rule; this answer never does)."""
    time.sleep(max(0.0, timeout - (time.monotonic() - started)))
    targets = ", ".join(e.label for e in endpoints)
    return ConnectionResult(ok=False, elapsed_ms=int((time.monotonic() - started) * 1000), message=(
        f"could not connect to {targets}: connection refused, timed out, or not an address catalogs may use"))


def catalog_test_connection(*, catalog: Catalog, timeout: float) -> ConnectionResult:
    """Test a saved catalog with its stored (decrypted) configuration within `timeout` seconds."""
    config = _open(catalog)
    result = get_catalog_type(catalog.catalog_type).test_connection(config, timeout=timeout)
    logger.info(
        "catalog.test_connection",
        extra={"team_id": catalog.team_id, "catalog": catalog.catalog_name, "catalog_type": catalog.catalog_type,
               "ok": result.ok, "elapsed_ms": result.elapsed_ms},
    )
    return result


def catalog_databases_list(*, catalog: Catalog, timeout: float) -> list[str]:
    """Databases (schemas for PostgreSQL) of a saved catalog; MetadataError when the system cannot answer."""
    return _browse(catalog, "databases", lambda t, c: t.list_databases(c, timeout=timeout))


def catalog_tables_list(
    *, catalog: Catalog, database: str, search: str | None = None, timeout: float
) -> list[TableSummary]:
    """Tables of one database, optionally only those whose name contains `search` (case-insensitive)."""
    check_object_name(database, what="database")
    tables: list[TableSummary] = _browse(catalog, "tables", lambda t, c: t.list_tables(c, database, timeout=timeout))
    if search:
        needle = search.casefold()
        tables = [t for t in tables if needle in t.name.casefold()]
    return tables


def catalog_table_describe(*, catalog: Catalog, database: str, table: str, timeout: float) -> TableDetail:
    """Columns, partition columns, location (and Delta version/row count) of one table."""
    check_object_name(database, what="database")
    check_object_name(table, what="table")
    return _browse(catalog, "table", lambda t, c: t.describe_table(c, database, table, timeout=timeout))


def catalog_table_sample(*, catalog: Catalog, database: str, table: str, limit: int, timeout: float) -> TableSample:
    """The newest `limit` records of a stream table, oldest first, read by the type's native client (a broker read
    with the team's configuration, no Spark and no user SQL, so it runs here like browsing); 400 for a catalog that
    is not a stream catalog or a limit outside 1–1000, MetadataError(404) for an unknown database or table."""
    check_object_name(database, what="database")
    check_object_name(table, what="table")
    if not 1 <= limit <= MAX_SAMPLE_ROWS:
        raise InvalidInput.of({"limit": [f"Ask for 1 to {MAX_SAMPLE_ROWS} records."]})
    catalog_type = get_catalog_type(catalog.catalog_type)
    if not isinstance(catalog_type, StreamSampler):
        raise InvalidInput.of({"catalog": [
            f"'{catalog.catalog_name}' is a {catalog.catalog_type} catalog; only stream catalogs (redis-streams, "
            "nats-jetstream, files) can be sampled. Preview a query on it instead."]})

    def read(_: Any, config: Any) -> TableSample:
        sample = catalog_type.sample_records(config, database, table, limit, timeout=timeout)
        columns, rows, schema = sample_table(config, database, table, sample)
        return TableSample([{"name": c.name, "type": c.type} for c in columns], rows, schema)

    result: TableSample = _browse(catalog, "sample", read)
    logger.info("catalog.sample", extra={"team_id": catalog.team_id, "catalog": catalog.catalog_name,
                                         "rows": len(result.rows), "schema": result.schema})
    return result


# ---- helpers -----------------------------------------------------------------------------------------------
def _open(catalog: Catalog) -> CatalogConfig:
    try:
        config = open_configuration(catalog.catalog_type, catalog.configuration)
    except Exception as exc:  # the reason (bad key, stale schema) goes to the log by class only: it may hold values
        logger.warning(
            "catalog.configuration_unreadable",
            extra={"team_id": catalog.team_id, "catalog": catalog.catalog_name, "error_class": type(exc).__name__},
        )
        raise ConfigurationUnreadable() from None
    # checked again at every use: a name may resolve elsewhere now than when the catalog was saved
    errors = catalog_reach_errors(team=catalog.team, catalog_type=catalog.catalog_type, plain=config.to_plain())
    if errors:
        raise CatalogReachRefused(details={"configuration": errors})
    _register_secrets(config)
    return config


def _register_secrets(config: CatalogConfig) -> None:
    """Let the log redaction filter mask these values should any client library ever log them."""
    plain = config.to_plain()
    for path in secret_paths(config):
        head, _, key = path.partition(".")
        register_secret(str(plain[head][key] if key else plain[head]))


def _browse(catalog: Catalog, level: str, call: Any) -> Any:
    config = _open(catalog)
    try:
        return call(get_catalog_type(catalog.catalog_type), config)
    except MetadataError as exc:
        logger.info(
            "catalog.browse_failed",
            extra={"team_id": catalog.team_id, "catalog": catalog.catalog_name, "level": level,
                   "status": exc.status, "reason": str(exc)},
        )
        raise
