"""The engines' class-data-sharing archive (issue 31, jobs/engines/cds.py), with real engines: the first engine of a
kind starts without it and the worker builds it in the background, as its own user, read-only to engines; the next
engine's JVM maps it (seen in /proc/<jvm>/maps, not only on its command line) and answers as before; an archive the
JVM cannot use (garbage, another class path) is ignored and the engine still answers."""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.test import override_settings

from jobs.engines.cds import archive_path
from jobs.engines.process import EngineKey, EngineProcess, engine_spark_home
from tests.support.processes import descendants
from tests.support.servers import wait_until

SMALL_SPARK = {"SPARK_MASTER": "local[2]", "LAKEPORT_SPARK_STATIC_CONF": {
    "spark.ui.enabled": "false", "spark.driver.memory": "1g", "spark.sql.shuffle.partitions": "2"}}


@pytest.fixture
def engines(tmp_path: Path) -> Iterator[list[EngineProcess]]:
    """Engines started by the test (as the test's user, in a private scratch root), stopped after it."""
    started: list[EngineProcess] = []
    with override_settings(LAKEPORT_ENGINE_SCRATCH_DIR=str(tmp_path), LAKEPORT_ENGINE_USER="",
                           LAKEPORT_ENGINE_CDS=True, **SMALL_SPARK):
        yield started
        for engine in started:
            with contextlib.suppress(Exception):
                engine.stop(quiet=True)


def start(engines: list[EngineProcess], team: str) -> EngineProcess:
    engine = EngineProcess(EngineKey(team=team))
    engines.append(engine)
    engine.start()
    return engine


def answers(engine: EngineProcess) -> list[list[object]]:
    pending = engine.request({"mode": "preview", "script": "SELECT 40 + 2 AS x", "preview_limit": 10})
    pending.done.wait()
    return list(pending.result.get("rows") or [])


def engine_jvm(engine: EngineProcess) -> int:
    assert engine.pid is not None
    return next(p for p in descendants(engine.pid)
                if "java" in Path(f"/proc/{p}/cmdline").read_text(errors="replace").split("\0")[0])


def test_the_first_engine_has_the_archive_built_and_the_next_one_maps_it(engines: list[EngineProcess],
                                                                         tmp_path: Path) -> None:
    first = start(engines, "acme")
    assert answers(first) == [[42]]
    assert "SharedArchiveFile" not in Path(f"/proc/{engine_jvm(first)}/cmdline").read_text()  # none yet
    archive = wait_until(lambda: next((tmp_path / ".cds").glob("*.jsa"), None), timeout=1800,
                         what="the worker to build the archive")
    info = archive.stat()
    assert info.st_uid == os.geteuid() and stat.S_IMODE(info.st_mode) == 0o644  # the worker's, read-only to engines
    assert stat.S_IMODE(archive.parent.stat().st_mode) == 0o755

    second = start(engines, "globex")
    jvm = engine_jvm(second)
    assert f"-XX:SharedArchiveFile={archive}" in Path(f"/proc/{jvm}/cmdline").read_text(errors="replace")
    assert str(archive) in Path(f"/proc/{jvm}/maps").read_text()  # mapped: the JVM uses it
    assert answers(second) == [[42]]


def test_an_archive_the_jvm_cannot_use_is_ignored(engines: list[EngineProcess], tmp_path: Path) -> None:
    home = engine_spark_home({}, {})  # the engines' class path (the fixture's scratch root holds it)
    assert home is not None
    archive = archive_path(home)
    archive.parent.mkdir(parents=True, exist_ok=True)
    archive.write_bytes(b"not a CDS archive" * 1000)  # a torn or foreign file where the archive should be
    engine = start(engines, "acme")
    jvm = engine_jvm(engine)
    assert f"-XX:SharedArchiveFile={archive}" in Path(f"/proc/{jvm}/cmdline").read_text(errors="replace")
    assert answers(engine) == [[42]]  # the JVM said nothing and ran without it
