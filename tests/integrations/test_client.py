"""The typed clients: the committed Python package and the browser app's api-schema.d.ts are what the generators
make from the live schema (else `make client`), and a fresh Python client imports and passes `mypy --strict`
with the hand-written layer."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from django.test import Client

from tests.integrations.conftest import CLIENT_DIR


def load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("lakeport_client_generate", CLIENT_DIR / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def live_schema() -> dict[str, Any]:
    response = Client().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    return json.loads(response.content)


@pytest.fixture(scope="module")
def fresh_client(live_schema: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A client generated now from the schema the server serves, next to a copy of the hand-written layer."""
    out = tmp_path_factory.mktemp("fresh-client")
    load_generator().generate(live_schema, out)
    shutil.copytree(CLIENT_DIR / "lakeport_client_ext", out / "lakeport_client_ext")
    return out


def test_the_committed_client_is_not_stale(live_schema: dict[str, Any], fresh_client: Path) -> None:
    generator = load_generator()
    stale = generator.differences(CLIENT_DIR / "lakeport_client", fresh_client / "lakeport_client")
    assert stale == [], "clients/python/lakeport_client is stale: run `make client` and commit it"
    assert (CLIENT_DIR / "openapi.json").read_text() == generator.schema_text(live_schema), "run `make client`"


def test_a_fresh_client_imports_and_type_checks(fresh_client: Path, tmp_path: Path) -> None:
    imported = subprocess.run(
        [sys.executable, "-c", "import lakeport_client_ext, lakeport_client.api.runs.runs_submit as s; print(s.__name__)"],
        cwd=fresh_client, capture_output=True, text=True)
    assert imported.returncode == 0, imported.stderr
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(CLIENT_DIR / "pyproject.toml"),
         "--cache-dir", str(tmp_path / "mypy"), "lakeport_client", "lakeport_client_ext"],
        cwd=fresh_client, capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout[-4000:]
    assert "Success: no issues found" in checked.stdout


def test_the_committed_typescript_types_are_not_stale(live_schema: dict[str, Any]) -> None:
    committed = load_generator().TYPESCRIPT_TYPES
    assert committed.read_text() == load_generator().typescript_types(live_schema), (
        "frontend/src/lib/api-schema.d.ts is stale: run `make client` (or `npm run api-types`) and commit it")
