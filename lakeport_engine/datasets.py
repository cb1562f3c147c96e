"""The datasets Lakeport names: one table by its catalog name and by its physical identity (OpenLineage naming).

Each dataset is named twice: by the team's catalog (`pg_sales.shop.orders`) and by its physical identity
(namespace `postgres://host:port`, name `database.schema.table`; `mysql://host:port` + `database.table`;
`hive://host:port` + `database.table`; Delta: `file` + the table path), so two catalogs on one table meet in one
node. Bindings build them; lineage capture (`lineage_capture.py`) and the Delta connector use them. Never carries
a secret: identities are built from host, port and names only, never from a JDBC URL's parameters.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit


@dataclass(frozen=True)
class Dataset:
    """One table: `name` in the team's catalog, physical `namespace` + `physical_name` (OpenLineage naming)."""

    name: str
    catalog: str
    kind: str  # jdbc-postgresql | jdbc-mysql | hive | delta | iceberg | paimon
    namespace: str
    physical_name: str
    version: int | None = None  # Delta: the snapshot read or the version committed

    @property
    def key(self) -> str:
        """The physical identity: equal for every catalog that points at the same table."""
        return f"{self.namespace}/{self.physical_name}"


@dataclass(frozen=True)
class CatalogInfo:
    """What lineage needs of one bound catalog: its store name, type and plain (secret-free) locations.

    Each catalog type's binding builds it (`CatalogBinding.lineage_catalog`): the type knowledge lives there.
    """

    name: str
    type: str  # jdbc | hive | delta
    jdbc_type: str = ""  # postgresql | mysql
    host: str = ""
    port: int = 0
    database: str = ""  # JDBC: the catalog's database (PostgreSQL) / default database
    location: str = ""  # Hive without a Thrift URI: the embedded metastore's Derby database or warehouse


# ---- identities ------------------------------------------------------------------------------------------
def host_port(uri: str, default_port: int = 0) -> tuple[str, int]:
    """Lower-case host and port of a non-JDBC `scheme://[user@]host[:port]/…` URI (a thrift:// metastore, kafka://).

    JDBC URLs go through `lakeport_engine.jdbc_url.parse_jdbc_url`. ("", default_port) when the URI names no host.
    """
    parts = urlsplit(uri.strip())
    if not parts.hostname:
        return "", default_port
    try:
        port = parts.port
    except ValueError:  # a port that is no number: the host alone still names the server
        port = None
    return parts.hostname, port or default_port


def jdbc_dataset(info: CatalogInfo, namespace: list[str], table: str) -> Dataset:
    """A table of a JDBC catalog: PostgreSQL `database.schema.table`, MySQL `database.table`."""
    if info.jdbc_type == "mysql":
        physical = ".".join([*namespace, table])
        scheme = "mysql"
    else:
        physical = ".".join([info.database, *namespace, table])
        scheme = "postgres"
    return Dataset(name=".".join([info.name, *namespace, table]), catalog=info.name, kind=f"jdbc-{info.jdbc_type}",
                   namespace=f"{scheme}://{info.host}:{info.port}", physical_name=physical)


def hive_dataset(info: CatalogInfo, database: str, table: str) -> Dataset:
    """A Hive Metastore table: `hive://host:port` + `database.table`; an embedded metastore (no Thrift server to
    name) is `hive+embedded:` + where it keeps its catalog."""
    namespace = f"hive://{info.host}:{info.port}" if info.host else f"hive+embedded:{info.location}"
    return Dataset(name=f"{info.name}.{database}.{table}", catalog=info.name, kind="hive",
                   namespace=namespace, physical_name=f"{database}.{table}")


def delta_dataset(catalog: str, database: str, table: str, uri: str, version: int | None) -> Dataset:
    """A Delta table by its path: local paths in namespace `file`, object stores as `scheme://bucket` + key."""
    if "://" in uri and not uri.startswith("file://"):
        scheme, _, rest = uri.partition("://")
        bucket, _, key = rest.partition("/")
        namespace, physical = f"{'s3' if scheme == 's3a' else scheme}://{bucket}", "/" + key.strip("/")
    else:
        namespace, physical = "file", uri.removeprefix("file://").rstrip("/")
    return Dataset(name=f"{catalog}.{database}.{table}", catalog=catalog, kind="delta", namespace=namespace,
                   physical_name=physical, version=version)


def iceberg_dataset(catalog: str, namespace: str, table: str, location: str, snapshot: int | None) -> Dataset:
    """An Iceberg table by its location (OpenLineage names Iceberg tables by their storage path, as Delta ones);
    `version` is the snapshot id read or committed."""
    path = location.removeprefix("file://").rstrip("/")
    return Dataset(name=f"{catalog}.{namespace}.{table}", catalog=catalog, kind="iceberg", namespace="file",
                   physical_name=path, version=snapshot)


def paimon_dataset(catalog: str, database: str, table: str, path: str, snapshot: int | None) -> Dataset:
    """A Paimon table by its directory (OpenLineage names file-based tables by their storage path, as Delta and
    Iceberg ones); `version` is the snapshot id read or committed."""
    return Dataset(name=f"{catalog}.{database}.{table}", catalog=catalog, kind="paimon", namespace="file",
                   physical_name=path.removeprefix("file://").rstrip("/"), version=snapshot)


def stream_dataset(catalog: str, database: str, table: str, *, kind: str, namespace: str,
                   physical_name: str) -> Dataset:
    """A table of a stream catalog (a Redis stream key, a JetStream stream, a Kafka topic, a landing directory)."""
    return Dataset(name=f"{catalog}.{database}.{table}", catalog=catalog, kind=kind, namespace=namespace,
                   physical_name=physical_name)
