"""The import contracts of pyproject.toml catch what they promise to: `lint-imports` passes on the tree as it is,
and reports the contract BROKEN when one forbidden import is put back (an app importing one above it, the
composition root imported by an app, Django in the Spark runtime, a runtime layer inverted, a cycle between
sibling packages). Each case edits a copy of the packages, never the working tree."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
CONTRACTS = {contract["name"]: contract for contract in CONFIG["contracts"]}
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _contract(words: str) -> str:
    """The full name of the one contract whose name contains `words` (names are long; the cases quote a part)."""
    names = [name for name in CONTRACTS if words in name]
    assert len(names) == 1, f"no single contract named like {words!r}: {list(CONTRACTS)}"
    return names[0]


APPS_DAG = _contract("Apps form a DAG")
NO_DJANGO = _contract("import no Django")
RUNTIME_LAYERS = _contract("Runtime layers")
RUNTIME_ACYCLIC = _contract("No import cycles among the runtime")
JOBS_LAYERS = _contract("jobs layers")
APP_ACYCLIC = _contract("No import cycles among the subpackages of an app")

# (what is put back, the module that gets the import, the import, the contract that must break)
INVERSIONS = [
    ("catalogs → schedules (declarative apply)", "catalogs/services/crud.py", "import schedules.services.schedules",
     APPS_DAG),
    ("jobs → streams (runjob's streaming half)", "jobs/services/runs.py", "import streams.models", APPS_DAG),
    ("jobs → lineage (the post-run hook)", "jobs/services/jobs.py", "import lineage.models", APPS_DAG),
    ("an app → config (the composition root)", "teams/models.py", "import config.health", APPS_DAG),
    ("lakeport_engine → django", "lakeport_engine/sqltext.py", "import django.db", NO_DJANGO),
    ("sqltext → script (a runtime layer inverted)", "lakeport_engine/sqltext.py", "import lakeport_engine.script",
     RUNTIME_LAYERS),
    ("delta.dml ↔ delta.merge (a cycle in the runtime)", "lakeport_engine/delta/dml.py",
     "import lakeport_engine.delta.merge", RUNTIME_ACYCLIC),
    ("jobs.engines → jobs.services", "jobs/engines/base.py", "import jobs.services.runs", JOBS_LAYERS),
    ("jobs.models ↔ jobs.services (a cycle in an app)", "jobs/models.py", "import jobs.services.jobs", APP_ACYCLIC),
]


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the root packages' Python files and of pyproject.toml."""
    copy = tmp_path_factory.mktemp("imports")
    keep = shutil.ignore_patterns("__pycache__", "*.pyc", "*.jar", "*.so")
    for package in CONFIG["root_packages"]:
        shutil.copytree(ROOT / package, copy / package, ignore=keep)
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    return copy


def _lint(tree: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run([str(LINT_IMPORTS), "--no-logo", "--cache-dir", str(tree / ".import_linter_cache"),
                           str(tree / "pyproject.toml")], cwd=tree, env=env, capture_output=True, text=True,
                          check=False)


def _status(output: str, contract: str) -> str:
    """KEPT or BROKEN, as lint-imports' summary says for `contract` (its lines wrap at 80 columns)."""
    flat = " ".join(output.split())
    statuses = [status for status in ("KEPT", "BROKEN") if f"{contract} {status}" in flat]
    assert len(statuses) == 1, f"{contract!r} not in lint-imports' summary:\n{output}"
    return statuses[0]


def test_the_tree_keeps_every_contract(tree: Path) -> None:
    result = _lint(tree)
    assert result.returncode == 0, result.stdout + result.stderr
    for contract in CONTRACTS:
        assert _status(result.stdout, contract) == "KEPT"


@pytest.mark.parametrize(("what", "module", "statement", "contract"), INVERSIONS, ids=[i[0] for i in INVERSIONS])
def test_a_forbidden_import_breaks_its_contract(tree: Path, what: str, module: str, statement: str,
                                                contract: str) -> None:
    path = tree / module
    original = path.read_text(encoding="utf-8")
    path.write_text(f"{original}\n{statement}  # put back by {__name__}\n", encoding="utf-8")
    try:
        result = _lint(tree)
    finally:
        path.write_text(original, encoding="utf-8")
    assert result.returncode != 0, f"{what}: lint-imports passed\n{result.stdout}"
    assert _status(result.stdout, contract) == "BROKEN", f"{what}:\n{result.stdout}"
