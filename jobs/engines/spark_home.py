"""A lean Spark home for engines: the pyspark package's own, less the jars a team engine never loads.

Every jar on the driver's classpath costs an idle engine memory even when none of its classes is used: the JVM
keeps each opened jar's central directory (service lookups open all of them), and service loaders load every
registered provider (ML data sources, Kubernetes clients, Hive's). A local or standalone driver needs none of
ML, GraphX, Kubernetes, YARN, Spark Connect, the REPL, the Thrift server or DStreams; an engine without Hive
support (a static conf, so fixed for its life) needs no Hive jars either. Measured: idle RSS 393–402 MiB against
407–412 with the full classpath (docs/benchmarks/engines.md, fifth pass).

The home is a directory of symlinks (the package's entries, and a `jars/` holding links to the kept jars), built
once per pyspark installation and variant, atomically, readable by the engine user and writable only by the
worker's user, so one team's engine cannot plant a jar for another's.
"""

from __future__ import annotations

import hashlib
import os
import platform
import re
import shutil
import tempfile
from pathlib import Path

# Jars no local or standalone driver of an engine uses. Ivy stays: SparkSubmit loads it at start.
NOT_FOR_ENGINES = re.compile(
    r"^(spark-(mllib|mllib-local|graphx|kubernetes|yarn|connect|pipelines|repl|hive-thriftserver|streaming)_"
    r"|breeze|spire|algebra_|cats-kernel_|arpack|blas-|lapack-|JLargeArrays|JTransforms"  # ML
    r"|kubernetes-|vertx-|volcano-|zjsonpatch|snakeyaml-engine"  # the Kubernetes client
    r"|scala-compiler|jline-|hive-beeline|hive-cli|hive-jdbc|super-csv|hive-service-rpc|jpam|netty-all-)"  # REPL, Thrift
)
# Jars only Hive support (`spark.sql.catalogImplementation=hive`) loads: the metastore client and its store.
HIVE_ONLY = re.compile(
    r"^(hive-|spark-hive_|datanucleus-|derby|javax\.jdo|jdo-api|HikariCP|javolution|libthrift|libfb303"
    r"|transaction-api|jta-|ST4-|antlr-runtime-3|commons-dbcp|commons-pool-|stax-api|opencsv|json-1\.8)"
)
_NATIVE_CLASSIFIER = re.compile(r"-(linux|osx|windows)-([a-z0-9_]+)\.jar$")
# Bump when the rules above change, so engines get a freshly built home.
_RULES_VERSION = "1"


def wanted_jar(name: str, *, hive: bool, machine: str | None = None) -> bool:
    """True if an engine (with Hive support or not) keeps jar `name` on its classpath (pure)."""
    if NOT_FOR_ENGINES.match(name) or (not hive and HIVE_ONLY.match(name)):
        return False
    native = _NATIVE_CLASSIFIER.search(name)
    if native:  # a native library built for another system than this one is dead weight
        arch = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch_64", "arm64": "aarch_64"}.get(
            (machine or platform.machine()).lower(), "")
        return native.group(1) == "linux" and native.group(2) == arch
    return True


def lean_spark_home(source: Path, root: Path, *, hive: bool) -> Path:
    """The lean home for `source` (a Spark home with `jars/`) under `root`, built on first use; its path.

    A home whose links are not all there (a temp-directory cleaner took some) is built again.
    """
    jars = sorted(entry.name for entry in (source / "jars").iterdir() if entry.name.endswith(".jar"))
    digest = hashlib.sha256(f"{_RULES_VERSION}\0{source.resolve()}\0{chr(0).join(jars)}".encode()).hexdigest()[:12]
    home = root / f"{'hive' if hive else 'sql'}-{digest}"
    kept = [name for name in jars if wanted_jar(name, hive=hive)]
    if _complete(home, source, kept):
        return home
    root.mkdir(parents=True, exist_ok=True)
    root.chmod(0o755)  # whatever the worker's umask: engines must reach their home
    building = Path(tempfile.mkdtemp(prefix=".building-", dir=root))
    try:
        for entry in source.iterdir():
            if entry.name != "jars":
                (building / entry.name).symlink_to(entry.resolve())
        (building / "jars").mkdir()
        for name in kept:
            (building / "jars" / name).symlink_to((source / "jars" / name).resolve())
        for path in (building, building / "jars"):
            path.chmod(0o755)  # engines (another user) read it; only the worker writes
        if home.exists():  # incomplete: moved aside, not deleted under an engine that may still read it
            os.rename(home, Path(tempfile.mkdtemp(prefix=".stale-", dir=root)) / "home")
        os.rename(building, home)
    except OSError:
        shutil.rmtree(building, ignore_errors=True)
        if not _complete(home, source, kept):  # not a lost race with another worker: a real failure
            raise
    return home


def _complete(home: Path, source: Path, kept: list[str]) -> bool:
    """True if `home` holds every entry of `source` and exactly the `kept` jars, all links resolving."""
    try:
        entries = {entry.name for entry in home.iterdir() if entry.exists()}
        jars = sorted(entry.name for entry in (home / "jars").iterdir() if entry.exists())
    except OSError:
        return False
    return jars == kept and entries >= {entry.name for entry in source.iterdir()}
