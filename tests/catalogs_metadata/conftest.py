"""Fixtures for test-connection and metadata browsing: saved catalogs, a silent server, a password-checking
PostgreSQL, a MariaDB user with a password, Hive objects in the session metastore, Delta warehouses."""

from __future__ import annotations

import secrets
import shutil
import socket
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pymysql
import pytest

from catalogs.models import Catalog
from catalogs.secrets import seal_configuration
from catalogs.types import get_catalog_type
from teams.models import Team
from tests.support.net import free_port, wait_for_port

PG_BIN = Path("/usr/lib/postgresql/15/bin")


@pytest.fixture
def make_catalog(team: Team) -> Callable[..., Catalog]:
    """`make_catalog("name", "jdbc", {...})` → a saved catalog row with its secrets sealed, as the CRUD API stores it."""

    def make(name: str, catalog_type: str, configuration: dict[str, Any], in_team: Team | None = None) -> Catalog:
        config = get_catalog_type(catalog_type).config_model.model_validate(configuration)
        return Catalog.objects.create(
            team=in_team or team, catalog_type=catalog_type, catalog_name=name,
            configuration=seal_configuration(config),
        )

    return make


@dataclass
class SilentServer:
    """A TCP server on 127.0.0.1 that accepts connections and never says a word."""

    port: int
    accepted: list[socket.socket]


@pytest.fixture
def silent_server() -> Iterator[SilentServer]:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    server = SilentServer(port=listener.getsockname()[1], accepted=[])
    stop = threading.Event()

    def serve() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except (TimeoutError, OSError):
                continue
            server.accepted.append(conn)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server
    stop.set()
    thread.join(timeout=5)
    for conn in server.accepted:
        conn.close()
    listener.close()


@pytest.fixture
def refused_port() -> int:
    """A port on 127.0.0.1 with nothing listening."""
    return free_port()


@dataclass
class PasswordPostgres:
    """A private PostgreSQL that checks passwords (scram-sha-256); the shared one trusts everyone."""

    port: int
    user: str
    password: str
    database: str = "postgres"


@pytest.fixture(scope="session")
def password_postgres() -> Iterator[PasswordPostgres]:
    """Started once per session as the `postgres` OS user (initdb refuses root); stopped and removed after."""
    workdir = Path(tempfile.mkdtemp(prefix="lp-pgauth-"))
    password = f"pg-{secrets.token_urlsafe(12)}"
    (workdir / "pw").write_text(password + "\n")
    shutil.chown(workdir, "postgres")
    shutil.chown(workdir / "pw", "postgres")
    port = free_port()
    as_postgres = ["runuser", "-u", "postgres", "--"]
    subprocess.run([*as_postgres, str(PG_BIN / "initdb"), "-D", str(workdir / "data"), "-A", "scram-sha-256",
                    f"--pwfile={workdir / 'pw'}", "-U", "postgres"], check=True, capture_output=True)
    options = f"-p {port} -k {workdir} -c listen_addresses=127.0.0.1 -c shared_buffers=16MB -c max_connections=20 -c fsync=off"
    subprocess.run([*as_postgres, str(PG_BIN / "pg_ctl"), "-D", str(workdir / "data"), "-o", options,
                    "-l", str(workdir / "log"), "-w", "start"], check=True, capture_output=True)
    try:
        wait_for_port(port, timeout=30)
        yield PasswordPostgres(port=port, user="postgres", password=password)
    finally:
        subprocess.run([*as_postgres, str(PG_BIN / "pg_ctl"), "-D", str(workdir / "data"), "-m", "immediate",
                        "-w", "stop"], capture_output=True)
        shutil.rmtree(workdir, ignore_errors=True)


@dataclass
class MariaUser:
    name: str
    password: str


@pytest.fixture
def mariadb_user(mariadb_source: Any) -> Iterator[MariaUser]:
    """A MariaDB user with a password and read access to `mariadb_source`; dropped afterwards."""
    user = MariaUser(name=f"lp_u_{secrets.token_hex(3)}", password=f"my-{secrets.token_urlsafe(12)}")
    conn = pymysql.connect(host="127.0.0.1", port=3306, user="root", password="", autocommit=True)
    with conn.cursor() as cur:
        cur.execute("CREATE USER %s@'%%' IDENTIFIED BY %s", (user.name, user.password))
        cur.execute(f"GRANT SELECT, SHOW VIEW ON `{mariadb_source.name}`.* TO %s@'%%'", (user.name,))
    yield user
    with conn.cursor() as cur:
        cur.execute("DROP USER IF EXISTS %s@'%%'", (user.name,))
    conn.close()


# ---- Hive --------------------------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def hive_objects(hive_metastore: Any) -> dict[str, str]:
    """A database `lp_sales` in the session metastore with a partitioned managed table, an external table and a view.

    Created through the metastore's Thrift API (the same client the catalog type uses to read).
    """
    from pymetastore.hive_metastore import ThriftHiveMetastore
    from pymetastore.hive_metastore.ttypes import (
        AlreadyExistsException,
        Database,
        FieldSchema,
        SerDeInfo,
        StorageDescriptor,
        Table,
    )
    from thrift.protocol.TBinaryProtocol import TBinaryProtocol
    from thrift.transport import TSocket, TTransport

    sock = TSocket.TSocket("127.0.0.1", hive_metastore.port)
    sock.setTimeout(60_000)
    transport = TTransport.TBufferedTransport(sock)
    transport.open()
    client = ThriftHiveMetastore.Client(TBinaryProtocol(transport))
    warehouse = Path(hive_metastore.warehouse)

    def storage(cols: list[Any], location: Path) -> StorageDescriptor:
        return StorageDescriptor(
            cols=cols, location=str(location), compressed=False, numBuckets=-1, bucketCols=[], sortCols=[],
            parameters={}, inputFormat="org.apache.hadoop.mapred.TextInputFormat",
            outputFormat="org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
            serdeInfo=SerDeInfo(serializationLib="org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe", parameters={}),
        )

    cols = [FieldSchema("id", "bigint", "order id"), FieldSchema("amount", "decimal(10,2)", None),
            FieldSchema("tags", "array<string>", None)]
    try:
        client.create_database(Database(name="lp_sales", description="sales", parameters={},
                                        locationUri=str(warehouse / "lp_sales.db")))
        client.create_table(Table(
            tableName="orders", dbName="lp_sales", owner="lakeport", tableType="MANAGED_TABLE",
            sd=storage(cols, warehouse / "lp_sales.db" / "orders"), parameters={"comment": "all orders"},
            partitionKeys=[FieldSchema("day", "string", None)],
        ))
        client.create_table(Table(
            tableName="raw_events", dbName="lp_sales", owner="lakeport", tableType="EXTERNAL_TABLE",
            sd=storage([FieldSchema("payload", "string", None)], warehouse / "ext" / "raw_events"),
            parameters={"EXTERNAL": "TRUE"}, partitionKeys=[],
        ))
        client.create_table(Table(
            tableName="big_orders", dbName="lp_sales", owner="lakeport", tableType="VIRTUAL_VIEW",
            sd=storage([FieldSchema("id", "bigint", None)], Path("")), parameters={}, partitionKeys=[],
            viewOriginalText="SELECT id FROM lp_sales.orders WHERE amount > 100",
            viewExpandedText="SELECT `orders`.`id` FROM `lp_sales`.`orders` WHERE `orders`.`amount` > 100",
        ))
    except AlreadyExistsException:
        pass
    finally:
        transport.close()
    return {"uri": hive_metastore.uri, "database": "lp_sales", "location": str(warehouse / "lp_sales.db" / "orders")}


# ---- Delta -------------------------------------------------------------------------------------------------
@pytest.fixture
def delta_warehouse(tmp_path: Path) -> Path:
    """`<tmp>/warehouse` with database `sales`: `orders` (partitioned, two commits, 5 rows) and `customers`,
    an empty database `staging`, and a plain directory `sales/not_delta` that must not be listed."""
    import pyarrow as pa
    from deltalake import write_deltalake

    root = tmp_path / "warehouse"
    orders = pa.table({
        "id": pa.array([1, 2, 3], pa.int64()),
        "day": ["2024-01-01", "2024-01-01", "2024-01-02"],
        "amount": pa.array([10, 20, 30], pa.decimal128(10, 2)),
        "tags": pa.array([["a"], [], None], pa.list_(pa.string())),
    })
    write_deltalake(str(root / "sales" / "orders"), orders, partition_by=["day"])
    write_deltalake(str(root / "sales" / "orders"), orders.slice(0, 2), partition_by=["day"], mode="append")
    customers = pa.table({"id": pa.array([1], pa.int32()), "name": ["ada"]})
    write_deltalake(str(root / "sales" / "customers"), customers)
    (root / "staging").mkdir()
    (root / "sales" / "not_delta").mkdir()
    (root / "sales" / "not_delta" / "data.csv").write_text("a,b\n")
    return root
