"""`hive` catalogs: a Hive Metastore through its Thrift API.

The Thrift client is the one generated in `pymetastore` (from a newer Hive IDL; the calls used here —
get_database, get_all_databases, get_table_meta, get_table — are wire-compatible with HMS 2.3). We drive
the generated client directly rather than pymetastore's `HMS` wrapper because the wrapper opens sockets
without a timeout and parses column types into its own model, which rejects some valid Hive types.
"""

from __future__ import annotations

import json
import logging
import re
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

from pymetastore.hive_metastore import ThriftHiveMetastore
from pymetastore.hive_metastore.ttypes import MetaException, NoSuchObjectException
from thrift.protocol.TBinaryProtocol import TBinaryProtocol
from thrift.transport import TSocket, TTransport

from catalogs.types.base import Column, ConnectionResult, DefinedCatalogType, MetadataError, TableDetail, TableSummary
from catalogs.types.calls import T, browse, check_connection
from lakeport_engine.catalog_types.base import CatalogTypeDefinition
from lakeport_engine.catalog_types.hive import DEFINITION, HiveConfig
from lakeport_engine.hive_site import URIS, HiveSiteError, hive_site, metastore_address, split_uris

_KINDS = {
    "MANAGED_TABLE": "table",
    "EXTERNAL_TABLE": "external",
    "VIRTUAL_VIEW": "view",
    "MATERIALIZED_VIEW": "materialized_view",
    "INDEX_TABLE": "index",
}
# TSocket logs every refused connection with a traceback at ERROR; a wrong port is the user's answer, not our log's.
logging.getLogger("thrift.transport.TSocket").setLevel(logging.CRITICAL)
# Hive database and table names: letters, digits and underscores (Hive lower-cases them).
_HIVE_NAME = re.compile(r"^[A-Za-z0-9_]{1,128}$")
# Table parameters that are noise for a person browsing (Spark's schema copy, statistics bookkeeping).
_HIDDEN_PARAMETER = re.compile(r"^(spark\.sql\.sources\.schema|spark\.sql\.create\.version|transient_lastDdlTime)")


class HiveCatalogType(DefinedCatalogType):
    """A Hive Metastore: databases, tables with their type, columns and partition keys, locations."""

    definition: ClassVar[CatalogTypeDefinition] = DEFINITION

    def test_connection(self, config: HiveConfig, *, timeout: float) -> ConnectionResult:
        """Open a Thrift session with the first reachable metastore and look up `default-database`."""

        def check() -> str:
            with _client(config, timeout) as (client, uri):
                databases = client.get_all_databases()
                if config.default_database.lower() not in {d.lower() for d in databases}:
                    raise MetadataError(f"database {config.default_database} does not exist in the metastore at {uri}")
            return f"connected to Hive Metastore at {uri}; {len(databases)} database(s), {config.default_database} found"

        return check_connection(check, timeout=timeout, target=_target(config), explain=lambda e: _explain(config, e))

    def list_databases(self, config: HiveConfig, *, timeout: float) -> list[str]:
        """All databases of the metastore."""

        def run() -> list[str]:
            with _client(config, timeout) as (client, _):
                return sorted(client.get_all_databases())

        return self._browse(config, run, timeout)

    def list_tables(self, config: HiveConfig, database: str, *, timeout: float) -> list[TableSummary]:
        """Tables and views of one database with their kind, in one metastore call after the database check."""
        _check_name(database, "database")

        def run() -> list[TableSummary]:
            with _client(config, timeout) as (client, _):
                _get_database(client, database)
                metas = client.get_table_meta(database.lower(), "*", None)
            return sorted(
                (TableSummary(name=m.tableName, kind=_KINDS.get(m.tableType or "", (m.tableType or "table").lower()))
                 for m in metas),
                key=lambda t: t.name,
            )

        return self._browse(config, run, timeout)

    def describe_table(self, config: HiveConfig, database: str, table: str, *, timeout: float) -> TableDetail:
        """Columns and partition keys (from Spark's schema when Spark created the table), type and location."""
        _check_name(database, "database")
        _check_name(table, "table")

        def run() -> TableDetail:
            with _client(config, timeout) as (client, _):
                try:
                    t = client.get_table(database.lower(), table.lower())
                except NoSuchObjectException:
                    _get_database(client, database)
                    raise MetadataError(f"table '{database}.{table}' does not exist", status=404) from None
            return _detail(t)

        return self._browse(config, run, timeout)

    def _browse(self, config: HiveConfig, run: Callable[[], T], timeout: float) -> T:
        return browse(run, timeout=timeout, target=_target(config), explain=lambda e: _explain(config, e))


# ---- Thrift session --------------------------------------------------------------------------------------
def metastore_uris(config: HiveConfig) -> list[str]:
    """`metastore-uris`, or `hive.metastore.uris` from `<hive-conf-dir>/hive-site.xml` (read as the Spark binding
    reads it, `lakeport_engine/hive_site.py`)."""
    if config.uris:
        return config.uris
    try:
        uris = split_uris(hive_site(config.hive_conf_dir or "").get(URIS, ""))
    except HiveSiteError as exc:
        raise MetadataError(str(exc)) from None
    if uris:
        return uris
    site = Path(config.hive_conf_dir or "") / "hive-site.xml"
    raise MetadataError(f"{site} sets no {URIS}; an embedded metastore cannot be browsed remotely")


def _target(config: HiveConfig) -> str:
    if config.uris:
        return ",".join(u.removeprefix("thrift://") for u in config.uris)
    return f"the metastore of {config.hive_conf_dir}/hive-site.xml"


@contextmanager
def _client(config: HiveConfig, timeout: float) -> Iterator[tuple[Any, str]]:
    """A Thrift client on the first metastore that accepts a connection; every socket op times out."""
    last_error: Exception | None = None
    for uri in metastore_uris(config):
        host, port = metastore_address(uri)
        sock = TSocket.TSocket(host, port)
        sock.setTimeout(timeout * 1000)  # milliseconds; applies to connect and to every read
        transport = TTransport.TBufferedTransport(sock)
        try:
            transport.open()
        except Exception as exc:  # try the next URI, like Hive's own client
            last_error = exc
            continue
        try:
            yield ThriftHiveMetastore.Client(TBinaryProtocol(transport)), f"{host}:{port}"
        finally:
            transport.close()
        return
    assert last_error is not None
    raise last_error


def _get_database(client: Any, database: str) -> Any:
    try:
        return client.get_database(database.lower())
    except NoSuchObjectException:
        raise MetadataError(f"database '{database}' does not exist", status=404) from None


def _check_name(name: str, what: str) -> None:
    # A name Hive cannot store cannot exist; refusing it also keeps it out of get_table_meta's pattern syntax.
    if not _HIVE_NAME.match(name):
        raise MetadataError(f"{what} '{name}' does not exist (Hive names use letters, digits and _)", status=404)


# ---- table detail ----------------------------------------------------------------------------------------
def _detail(t: Any) -> TableDetail:
    params: dict[str, str] = dict(t.parameters or {})
    columns = [Column(name=c.name, type=c.type, comment=c.comment or None) for c in (t.sd.cols if t.sd else None) or []]
    partitions = [c.name for c in t.partitionKeys or []]
    columns += [Column(name=c.name, type=c.type, comment=c.comment or None) for c in t.partitionKeys or []]
    spark_schema = _spark_schema(params)
    if spark_schema is not None:
        # Spark keeps a data source table's real schema in table parameters (the Hive columns may be a placeholder).
        columns = spark_schema
        count = int(params.get("spark.sql.sources.schema.numPartCols", "0") or 0)
        partitions = [params[f"spark.sql.sources.schema.partCol.{i}"] for i in range(count)
                      if f"spark.sql.sources.schema.partCol.{i}" in params]
    properties = {k: v for k, v in params.items() if not _HIDDEN_PARAMETER.match(k)}
    if params.get("spark.sql.sources.provider"):
        properties["provider"] = params["spark.sql.sources.provider"]
    if t.owner:
        properties["owner"] = t.owner
    return TableDetail(
        database=t.dbName,
        name=t.tableName,
        columns=columns,
        partition_columns=partitions,
        kind=_KINDS.get(t.tableType or "", (t.tableType or "table").lower()),
        location=(t.sd.location if t.sd else None) or None,
        properties=properties,
    )


def _spark_schema(params: dict[str, str]) -> list[Column] | None:
    if "spark.sql.sources.schema.numParts" in params:
        parts = int(params["spark.sql.sources.schema.numParts"])
        text = "".join(params.get(f"spark.sql.sources.schema.part.{i}", "") for i in range(parts))
    elif "spark.sql.sources.schema" in params:
        text = params["spark.sql.sources.schema"]
    else:
        return None
    try:
        fields = json.loads(text)["fields"]
    except (ValueError, KeyError, TypeError):
        return None
    return [
        Column(name=f["name"], type=spark_type(f["type"]), nullable=bool(f.get("nullable", True)),
               comment=(f.get("metadata") or {}).get("comment"))
        for f in fields
    ]


def spark_type(t: Any) -> str:
    """A Spark/Delta JSON type as SQL text: `long`, `array<string>`, `map<string,int>`, `struct<a:int>`."""
    if isinstance(t, str):
        return t
    kind = t.get("type")
    if kind == "array":
        return f"array<{spark_type(t['elementType'])}>"
    if kind == "map":
        return f"map<{spark_type(t['keyType'])},{spark_type(t['valueType'])}>"
    if kind == "struct":
        return "struct<" + ",".join(f"{f['name']}:{spark_type(f['type'])}" for f in t.get("fields", [])) + ">"
    return str(kind)


# ---- messages --------------------------------------------------------------------------------------------
def _explain(config: HiveConfig, exc: BaseException) -> str:
    target = _target(config)
    if isinstance(exc, MetadataError):
        return str(exc)
    text = str(exc)
    low = text.lower()
    inner = getattr(exc, "inner", None)
    if isinstance(exc, socket.timeout | TimeoutError) or "timed out" in low or isinstance(inner, socket.timeout):
        return f"timed out waiting for the Hive Metastore at {target}"
    if "connection refused" in low or isinstance(inner, ConnectionRefusedError):
        return f"connection refused at {target}"
    if "could not connect" in low or isinstance(exc, TTransport.TTransportException):
        reason = "the metastore closed the connection" if "end of file" in low or "read 0 bytes" in low else text
        return f"could not talk to the Hive Metastore at {target}: {reason}"
    if isinstance(exc, MetaException):
        return f"the Hive Metastore at {target} failed: {exc.message}"
    return f"the Hive Metastore at {target} failed: {type(exc).__name__}: {text}"
