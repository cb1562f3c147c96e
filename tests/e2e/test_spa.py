"""Django serves the browser app's HTML shell for `/` and client-side routes, and nothing else."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


@pytest.fixture
def built_app(tmp_path: Path, settings: Any) -> Path:
    """A stand-in build in a temporary dist directory (the real one may not exist in every checkout)."""
    (tmp_path / "index.html").write_text('<!doctype html><div id="root"></div><script src="/static/assets/app.js"></script>')
    settings.FRONTEND_DIST = tmp_path
    return tmp_path


@pytest.mark.parametrize("path", ["/", "/login", "/t/acme/catalogs", "/t/acme/runs/12", "/t/acme/catalogs/new?x=1"])
def test_client_routes_get_the_app_shell_with_a_csrf_cookie(built_app: Path, path: str) -> None:
    response = Client().get(path)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    assert b'<div id="root"></div>' in response.content
    assert "no-cache" in response["Cache-Control"]  # a new build's asset names must be seen at once
    assert "csrftoken" in response.cookies


@pytest.mark.parametrize("path", ["/api/v1/nothing-here/", "/api/v1", "/static/missing.js", "/healthz/extra"])
def test_api_static_and_health_paths_are_never_the_app(built_app: Path, path: str) -> None:
    response = Client().get(path)
    assert b'<div id="root"></div>' not in response.content
    assert response.status_code == 404


def test_the_app_is_read_only(built_app: Path) -> None:
    assert Client().post("/t/acme/catalogs").status_code == 405


def test_a_missing_build_says_how_to_build_it(tmp_path: Path, settings: Any) -> None:
    settings.FRONTEND_DIST = tmp_path / "not-built"
    response = Client().get("/t/acme/catalogs")
    assert response.status_code == 503
    assert b"build-frontend.sh" in response.content


def test_a_rebuild_is_served_without_a_restart(built_app: Path) -> None:
    import os

    assert b"app.js" in Client().get("/").content
    index = built_app / "index.html"
    index.write_text('<!doctype html><div id="root"></div><script src="/static/assets/app-2.js"></script>')
    os.utime(index, (index.stat().st_atime, index.stat().st_mtime + 5))
    assert b"app-2.js" in Client().get("/").content
