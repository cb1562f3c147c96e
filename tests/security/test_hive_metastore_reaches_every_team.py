"""Issue 28, "a team's own Hive metastore reaches every team" (its locations and warehouse).

Team acme's admin points a Hive catalog at a metastore they control (a real Hive Metastore, tests/support/hive.py)
and registers there tables whose LOCATION is team globex's Delta table directory: an external table, and a
partitioned table one of whose partitions lies there. acme's developer then reads them, INSERT OVERWRITEs and
TRUNCATEs them through job runs (a real worker and acme's Hive engine) and `sql/validate/`: every statement is
refused naming the table and the rule (hive-location), with no row of globex's data, and globex's `_delta_log` and
data files are intact. Saving the catalog's `warehouse` inside globex's warehouse is refused too. A table in acme's
own warehouse still works, so the check refuses only what is not the team's.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pymetastore.hive_metastore import ThriftHiveMetastore
from pymetastore.hive_metastore.ttypes import FieldSchema, Partition, SerDeInfo, StorageDescriptor, Table
from rest_framework.test import APIClient
from thrift.protocol.TBinaryProtocol import TBinaryProtocol
from thrift.transport import TSocket, TTransport

from catalogs.models import Catalog
from jobs.models import TERMINAL_STATUSES, JobRun, RunStatus
from teams.models import Team
from tests.jobs.conftest import running_worker, wait_status
from tests.security.conftest import delta_warehouse
from tests.support.hive import HiveMetastore, start_hive_metastore
from tests.support.worker import Worker

pytestmark = [pytest.mark.django_db(transaction=True)]

API = "/api/v1/teams/acme"
PARQUET = ("org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
           "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat",
           "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe")


@pytest.fixture(scope="module")
def hive_worker(django_db_setup: Any, django_db_blocker: Any,
                tmp_path_factory: pytest.TempPathFactory) -> Iterator[Worker]:
    with running_worker(tmp_path_factory, "hive-worker", hostname="hive@%h", beat=False) as worker:
        yield worker


@pytest.fixture(scope="module")
def attacker_metastore(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HiveMetastore]:
    """A metastore team acme controls (its own Derby, its own warehouse)."""
    hms = start_hive_metastore(tmp_path_factory.mktemp("attacker-hms"))
    try:
        yield hms
    finally:
        hms.stop()


@dataclass
class Victim:
    table_dir: Path

    def state(self) -> dict[str, bytes]:
        """Every file of globex's Delta table with its bytes: no attack may change one."""
        return {str(p.relative_to(self.table_dir)): p.read_bytes() for p in sorted(self.table_dir.rglob("*"))
                if p.is_file()}


def _register(hms: HiveMetastore, table: str, location: Path, *, partition: Path | None = None) -> None:
    """Create `default.<table>` in the attacker's metastore over its Thrift API, as its owner may."""
    sock = TSocket.TSocket("127.0.0.1", hms.port)
    transport = TTransport.TBufferedTransport(sock)
    transport.open()
    try:
        client = ThriftHiveMetastore.Client(TBinaryProtocol(transport))
        with_drop = client.get_all_tables("default")
        if table in with_drop:
            client.drop_table("default", table, False)  # deleteData=False: only the metadata goes

        def sd(where: Path) -> StorageDescriptor:
            return StorageDescriptor(
                cols=[FieldSchema("id", "bigint", None), FieldSchema("day", "string", None)], location=f"file:{where}",
                inputFormat=PARQUET[0], outputFormat=PARQUET[1], compressed=False, numBuckets=-1,
                serdeInfo=SerDeInfo(None, PARQUET[2], {"serialization.format": "1"}), bucketCols=[], sortCols=[],
                parameters={})

        keys = [FieldSchema("p", "string", None)] if partition is not None else []
        client.create_table(Table(tableName=table, dbName="default", owner="acme", sd=sd(location), partitionKeys=keys,
                                  parameters={"EXTERNAL": "TRUE"}, tableType="EXTERNAL_TABLE"))
        if partition is not None:
            client.add_partition(Partition(values=["x"], dbName="default", tableName=table, sd=sd(partition),
                                           parameters={}))
    finally:
        transport.close()


@pytest.fixture
def victim(other_team: Team, tmp_path: Path, client_for: Any) -> Victim:
    """globex's Delta catalog `vault` on its own warehouse, created by globex's admin."""
    warehouse = delta_warehouse(tmp_path / "globex-wh")
    body = {"catalog_name": "vault", "catalog_type": "delta", "configuration": {"warehouse": str(warehouse)}}
    assert client_for("admin", other_team).post("/api/v1/teams/globex/catalogs/", body,
                                                 format="json").status_code == 201
    return Victim(warehouse / "sales" / "orders")


@pytest.fixture
def attacker_catalog(admin_client: APIClient, attacker_metastore: HiveMetastore, victim: Victim) -> str:
    """acme's Hive catalog `lake` on the attacker's metastore, with tables over globex's Delta table."""
    _register(attacker_metastore, "stolen", victim.table_dir)
    _register(attacker_metastore, "parts", attacker_metastore.warehouse / "parts", partition=victim.table_dir)
    body = {"catalog_name": "lake", "catalog_type": "hive", "configuration": {
        "metastore-uris": attacker_metastore.uri, "warehouse": str(attacker_metastore.warehouse)}}
    resp = admin_client.post(f"{API}/catalogs/", body, format="json")
    assert resp.status_code == 201, resp.content
    return "lake"


def test_the_hive_warehouse_must_be_the_teams_own(admin_client: APIClient, attacker_metastore: HiveMetastore,
                                                  victim: Victim) -> None:
    for warehouse in (victim.table_dir.parent.parent, victim.table_dir, f"file://{victim.table_dir}"):
        body = {"catalog_name": "lake", "catalog_type": "hive", "configuration": {
            "metastore-uris": attacker_metastore.uri, "warehouse": str(warehouse)}}
        resp = admin_client.post(f"{API}/catalogs/", body, format="json")
        assert resp.status_code == 400 and "another team" in resp.content.decode(), (warehouse, resp.content)
        test = admin_client.post(f"{API}/catalogs/test-connection/", {
            "catalog_type": "hive", "configuration": body["configuration"]}, format="json")
        assert test.status_code == 400 and "another team" in test.content.decode(), test.content
    assert not Catalog.objects.filter(catalog_type="hive").exists()


def _run(client: APIClient, sql: str) -> JobRun:
    job = client.post(f"{API}/jobs/", {"name": f"j{abs(hash(sql)) % 10**8}", "sql": sql}, format="json")
    assert job.status_code == 201, job.content
    run = client.post(f"{API}/jobs/{job.json()['id']}/runs/")
    assert run.status_code in (200, 201), run.content
    return wait_status(int(run.json()["id"]), *TERMINAL_STATUSES)


ATTACKS = [
    ("SELECT * FROM lake.default.stolen", "lake.default.stolen"),
    ("INSERT OVERWRITE TABLE lake.default.stolen SELECT 9, 'z'", "lake.default.stolen"),
    ("TRUNCATE TABLE lake.default.stolen", "lake.default.stolen"),
    ("SELECT count(*) FROM lake.default.parts", "a partition of"),
    ("INSERT OVERWRITE TABLE lake.default.parts PARTITION (p='x') SELECT 9, 'z'", "a partition of"),
    ("SELECT (SELECT max(id) FROM lake.default.stolen) AS m", "lake.default.stolen"),
]


def test_tables_over_another_teams_data_are_refused_and_its_delta_log_survives(
        hive_worker: Worker, attacker_catalog: str, developer_client: APIClient, victim: Victim) -> None:
    before = victim.state()
    assert any(name.startswith("_delta_log/") for name in before)
    for sql, named in ATTACKS:
        done = _run(developer_client, sql)
        assert done.status == RunStatus.FAILED, (sql, done.status, done.statements)
        message = done.error["message"]
        assert "(rule: hive-location)" in message and named.split(".")[-1] in message, (sql, message)
        assert "\tat " not in message and "org.apache" not in message, message
        assert done.result is None
        validate = developer_client.post(f"{API}/sql/validate/", {"sql": sql}, format="json").json()
        assert validate["valid"] is False and "(rule: hive-location)" in validate["errors"][0]["message"], validate
        assert victim.state() == before, sql
    # the team's own table in its own warehouse still works end to end
    done = _run(developer_client, "CREATE TABLE lake.default.mine (id BIGINT) STORED AS PARQUET;\n"
                                  "INSERT OVERWRITE TABLE lake.default.mine SELECT 7;\n"
                                  "SELECT id FROM lake.default.mine")
    assert done.status == RunStatus.SUCCEEDED, done.error
    assert done.result["rows"] == [[7]]
    assert victim.state() == before
