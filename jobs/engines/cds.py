"""A class-data-sharing archive for engine JVMs, so a team's first query does not wait for Spark's class loading.

Most of an engine's cold start is the driver JVM loading and verifying Spark's ~25,000 classes. Java 17's dynamic
CDS archives them once (`-XX:ArchiveClassesAtExit`) and maps them into every later JVM of the same class path
(`-XX:SharedArchiveFile`): measured on this machine under load, a bare `SparkSession` + `SELECT 1` went from
119–143 s to 28–29 s (docs/BENCHMARKS.md, `bench/engine_start.py`, has the side-by-side figures).

The archive is built by the worker's own user, never by an engine: a file every team's engine maps must not be one
a team can write. It is built once per lean Spark home (jobs/engines/spark_home.py: the class path) and Java
installation, in the background the first time an engine of that kind starts (that engine starts without it),
by a short Spark session that runs a few representative statements and exits; the JVM writes the archive as it
exits, to a temporary name that is renamed into place. A JVM that finds an archive it cannot use (another class
path, a changed jar) runs without it, as before.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path

from django.conf import settings

from jobs.engines.scratch import scratch_root

logger = logging.getLogger("lakeport.engines")

BUILD_TIMEOUT_SECONDS = 1800  # a safety net for a busy machine; a build that overruns is abandoned, not retried now
STALE_LOCK_SECONDS = 3600
# Quiet about an archive a JVM cannot use (it says so on stderr, which the engine's log would carry).
_QUIET = "-Xshare:auto -Xlog:cds=off -Xlog:cds+dynamic=off"
# What the archiving session runs: the classes of a session, the SQL parser and analyzer, codegen, a shuffle, and
# parquet both ways (every engine does these within its first runs).
BUILD_SCRIPT = """
import sys
from pyspark.sql import SparkSession
spark = SparkSession.builder.master("local[1]").appName("lakeport-cds").config("spark.ui.enabled", "false") \\
    .config("spark.sql.shuffle.partitions", "2").config("spark.driver.extraJavaOptions", sys.argv[1]).getOrCreate()
spark.sql("SELECT 1 AS one").collect()
spark.sql("SELECT id % 7 AS k, count(*) AS n, sum(id) AS s FROM range(1000) GROUP BY 1 ORDER BY 1").collect()
spark.range(100).selectExpr("id", "cast(id AS string) AS v").write.mode("overwrite").parquet(sys.argv[2])
spark.read.parquet(sys.argv[2]).where("id > 10").count()
jvm = spark.sparkContext._gateway.proc
spark.stop()
jvm.stdin.close()  # the JVM exits when its stdin closes, and writes the archive as it exits: wait for it
jvm.wait()
"""

_building: set[Path] = set()
_lock = threading.Lock()


def cds_build_env(environ: Mapping[str, str]) -> dict[str, str]:
    """The environment of the archiving session: the machine's Java and paths, none of the worker's secrets."""
    keep = ("PATH", "JAVA_HOME", "LANG", "LC_ALL", "TZ")
    env = {k: environ[k] for k in keep if k in environ}
    env["PYSPARK_PYTHON"] = env["PYSPARK_DRIVER_PYTHON"] = sys.executable
    return env


def archive_path(spark_home: Path) -> Path:
    """Where the archive for engines started from `spark_home` with this machine's Java lives."""
    java = shutil.which("java", path=os.environ.get("PATH")) or "java"
    real = Path(java).resolve()
    stamp = f"{real}\0{real.stat().st_mtime_ns if real.exists() else 0}\0{spark_home.resolve()}"
    return scratch_root() / ".cds" / f"{spark_home.name}-{hashlib.sha256(stamp.encode()).hexdigest()[:12]}.jsa"


def cds_java_options(spark_home: Path | None, *, jvm_options: str, python: str, env: dict[str, str]) -> str:
    """JVM options that map the archive for `spark_home` when it is built; "" otherwise (and its build is started)."""
    if spark_home is None or not settings.LAKEPORT_ENGINE_CDS:
        return ""
    archive = archive_path(spark_home)
    if archive.is_file():
        return f"-XX:SharedArchiveFile={archive} {_QUIET}"
    with _lock:
        if archive in _building:
            return ""
        _building.add(archive)
    threading.Thread(target=_build_quietly, args=(archive, spark_home, jvm_options, python, env),
                     name="lakeport-cds-build", daemon=True).start()
    return ""


def _build_quietly(archive: Path, spark_home: Path, jvm_options: str, python: str, env: dict[str, str]) -> None:
    try:
        build_archive(archive, spark_home, jvm_options=jvm_options, python=python, env=env)
    except subprocess.CalledProcessError as exc:  # killed with its worker (a stop mid-build), or Spark failed
        logger.warning("engine.cds_build_failed", extra={"archive": str(archive), "exit_code": exc.returncode})
    except Exception:  # a failed build costs only speed: engines start without the archive
        logger.warning("engine.cds_build_failed", extra={"archive": str(archive)}, exc_info=True)
    finally:
        with _lock:
            _building.discard(archive)


def build_archive(archive: Path, spark_home: Path, *, jvm_options: str, python: str, env: dict[str, str]) -> bool:
    """Build `archive` for engines started from `spark_home` (as the caller's user); False if another process is."""
    archive.parent.mkdir(parents=True, exist_ok=True)
    archive.parent.chmod(0o755)  # engines of every team map it; only this user writes here
    building = archive.with_suffix(".building")
    with _claim(building) as claimed:
        if not claimed or archive.is_file():
            return False
        with tempfile.TemporaryDirectory(prefix="lakeport-cds-") as work:
            partial = Path(work) / "engine.jsa"
            options = f"{jvm_options} -XX:ArchiveClassesAtExit={partial}"
            started = time.monotonic()
            subprocess.run([python, "-c", BUILD_SCRIPT, options, str(Path(work) / "parquet")], cwd=work,
                           env={**env, "SPARK_HOME": str(spark_home)}, check=True, timeout=BUILD_TIMEOUT_SECONDS,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if not partial.is_file():
                return False
            partial.chmod(0o644)
            _copy_into_place(partial, archive)
            logger.info("engine.cds_built", extra={"archive": str(archive), "seconds": round(time.monotonic() - started)})
    return True


def _copy_into_place(source: Path, archive: Path) -> None:
    """Copy beside the archive, then rename: engines never map half an archive (the temp dir may be elsewhere)."""
    staged = archive.with_suffix(f".{os.getpid()}.tmp")
    shutil.copyfile(source, staged)
    staged.chmod(0o644)
    os.replace(staged, archive)


class _claim:
    """An exclusive marker file (O_EXCL) for one build at a time across workers; a stale one is taken over."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.claimed = False

    def __enter__(self) -> bool:
        try:
            if self.path.exists() and time.time() - self.path.stat().st_mtime > STALE_LOCK_SECONDS:
                self.path.unlink(missing_ok=True)  # a worker died mid-build
            os.close(os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        except FileExistsError:
            return False
        self.claimed = True
        return True

    def __exit__(self, *exc: object) -> None:
        if self.claimed:
            self.path.unlink(missing_ok=True)

