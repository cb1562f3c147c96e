"""A real Hive Metastore Thrift server started from the pyspark jars, backed by embedded Derby."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pyspark

from tests.support.net import free_port, wait_for_port

HIVE_SITE = """<?xml version="1.0"?>
<configuration>
  <property><name>javax.jdo.option.ConnectionURL</name><value>jdbc:derby:;databaseName={db};create=true</value></property>
  <property><name>javax.jdo.option.ConnectionDriverName</name><value>org.apache.derby.jdbc.EmbeddedDriver</value></property>
  <property><name>datanucleus.schema.autoCreateAll</name><value>true</value></property>
  <property><name>datanucleus.connectionPoolingType</name><value>None</value></property>
  <property><name>hive.metastore.schema.verification</name><value>false</value></property>
  <property><name>hive.metastore.warehouse.dir</name><value>{warehouse}</value></property>
  <property><name>hive.metastore.event.db.notification.api.auth</name><value>false</value></property>
</configuration>
"""


@dataclass
class HiveMetastore:
    """A running metastore: its Thrift URI, warehouse directory and process."""

    uri: str
    port: int
    warehouse: Path
    process: subprocess.Popen

    def stop(self) -> None:
        """Terminate the server and wait for it."""
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()


def start_hive_metastore(workdir: Path, port: int | None = None) -> HiveMetastore:
    """Start a metastore in `workdir` (conf, Derby db, warehouse, log) and wait until it listens."""
    port = port or free_port()
    conf_dir = workdir / "conf"
    conf_dir.mkdir(parents=True, exist_ok=True)
    warehouse = workdir / "warehouse"
    warehouse.mkdir(exist_ok=True)
    (conf_dir / "hive-site.xml").write_text(HIVE_SITE.format(db=workdir / "metastore_db", warehouse=warehouse))
    jars = Path(pyspark.__file__).parent / "jars"
    cmd = [
        "java",
        "-Xmx512m",
        "-Dlog4j2.contextSelector=org.apache.logging.log4j.core.selector.ClassLoaderContextSelector",
        f"-Dderby.system.home={workdir}",
        "-cp",
        f"{conf_dir}:{jars}/*",
        "org.apache.hadoop.hive.metastore.HiveMetaStore",
        "-p",
        str(port),
    ]
    log = open(workdir / "metastore.log", "wb")  # noqa: SIM115 (kept open for the process's lifetime)
    process = subprocess.Popen(cmd, cwd=workdir, stdout=log, stderr=subprocess.STDOUT, env={**os.environ})
    try:
        wait_for_port(port, timeout=90)
    except TimeoutError:
        process.kill()
        raise RuntimeError(f"Hive Metastore did not start; see {workdir / 'metastore.log'}") from None
    return HiveMetastore(uri=f"thrift://127.0.0.1:{port}", port=port, warehouse=warehouse, process=process)
