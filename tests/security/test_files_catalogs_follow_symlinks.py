"""Issue 28, "files catalogs follow symlinks": team acme's landing directory gets a symbolic link to team globex's
data (a file, a table directory, a database directory in the middle of the path, the catalog root itself). A viewer's
sample, a developer's describe and listing, and a test-connection never return globex's rows: each is a clear
refusal naming the rule (no-symlinks), at every level. Browsing runs in the web process as the platform's user."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from teams.models import Team

pytestmark = pytest.mark.django_db

BASE = "/api/v1/teams/acme/catalogs"
VICTIM_ROW = '{"id": 666, "page": "/globex-secret-page"}\n'


@pytest.fixture
def landing(tmp_path: Path, admin_client: APIClient, other_team: Team,
            client_for: Callable[..., APIClient]) -> dict[str, Path]:
    """acme's files catalog `events` on `<tmp>/acme` (one clean table landing/clicks) and globex's on `<tmp>/globex`."""
    acme, globex = tmp_path / "acme", tmp_path / "globex"
    (acme / "landing" / "clicks").mkdir(parents=True)
    (acme / "landing" / "clicks" / "a.json").write_text('{"id": 1, "page": "/a"}\n')
    (globex / "private" / "orders").mkdir(parents=True)
    (globex / "private" / "orders" / "o.json").write_text(VICTIM_ROW)
    body = {"catalog_name": "events", "catalog_type": "files", "configuration": {"root": str(acme)}}
    assert admin_client.post(f"{BASE}/", body, format="json").status_code == 201
    theirs = {"catalog_name": "vault", "catalog_type": "files", "configuration": {"root": str(globex)}}
    assert client_for("admin", other_team).post("/api/v1/teams/globex/catalogs/", theirs,
                                                 format="json").status_code == 201
    return {"acme": acme, "globex": globex}


def _refused(resp: Any) -> None:
    text = resp.content.decode()
    assert resp.status_code == 409, text
    assert "symbolic link" in text and "no-symlinks" in text
    assert "globex-secret-page" not in text


@pytest.mark.parametrize("level", ["file", "table", "database"])
def test_a_symlink_in_the_landing_directory_is_refused_at_every_level(
        landing: dict[str, Path], client_for: Callable[..., APIClient], level: str) -> None:
    acme, globex = landing["acme"], landing["globex"]
    if level == "file":  # a file symlink beside acme's own files
        (acme / "landing" / "clicks" / "z.json").symlink_to(globex / "private" / "orders" / "o.json")
        database, table = "landing", "clicks"
    elif level == "table":  # a table directory that is a symlink to globex's table
        (acme / "landing" / "orders").symlink_to(globex / "private" / "orders")
        database, table = "landing", "orders"
    else:  # a database directory in the middle of the path
        (acme / "stolen").symlink_to(globex / "private")
        database, table = "stolen", "orders"
    viewer, developer = client_for("viewer"), client_for("developer")
    _refused(viewer.post(f"{BASE}/events/databases/{database}/tables/{table}/sample/", {"limit": 10}, format="json"))
    _refused(developer.get(f"{BASE}/events/databases/{database}/tables/{table}/"))
    if level != "file":
        _refused(developer.get(f"{BASE}/events/databases/{database}/tables/"
                               if level == "database" else f"{BASE}/events/databases/{database}/tables/{table}/"))
        # the listing never offers the link as a table or database
        listed = developer.get(f"{BASE}/events/databases/landing/tables/").json()
        assert "orders" not in json.dumps(listed)
        assert developer.get(f"{BASE}/events/databases/").json()["databases"] == ["landing"]


@pytest.mark.parametrize("target", ["globex", "unregistered"])
def test_a_root_replaced_by_a_symlink_after_the_save_is_refused(landing: dict[str, Path], tmp_path: Path,
                                                                 client_for: Callable[..., APIClient],
                                                                 target: str) -> None:
    acme, globex = landing["acme"], landing["globex"]
    if target == "unregistered":  # data in no catalog: only the no-follow open stops it
        (tmp_path / "loot" / "private" / "orders").mkdir(parents=True)
        (tmp_path / "loot" / "private" / "orders" / "o.json").write_text(VICTIM_ROW)
        globex = tmp_path / "loot"
    acme.rename(acme.with_name("acme-moved"))
    acme.symlink_to(globex)  # the saved root now leads into someone else's data
    viewer = client_for("viewer")
    for resp in (viewer.post(f"{BASE}/events/databases/private/tables/orders/sample/", {"limit": 10}, format="json"),
                 viewer.get(f"{BASE}/events/databases/"),
                 client_for("developer").post(f"{BASE}/events/test-connection/")):
        text = resp.content.decode()
        assert "globex-secret-page" not in text and '"ok":true' not in text.replace(" ", "")
        assert "no-symlinks" in text, text


def test_the_reader_itself_refuses_a_symlinked_root(tmp_path: Path) -> None:
    """The check at use and the open are separate steps: the open refuses a root swapped between them on its own."""
    from lakeport_engine import confined

    (tmp_path / "loot" / "db" / "t").mkdir(parents=True)
    (tmp_path / "loot" / "db" / "t" / "o.json").write_text(VICTIM_ROW)
    (tmp_path / "root").symlink_to(tmp_path / "loot")
    for call in (lambda: confined.entries(str(tmp_path / "root")),
                 lambda: confined.open_file(str(tmp_path / "root"), "db", "t", "o.json").__enter__()):
        with pytest.raises(confined.ConfinedPathError, match="no-symlinks"):
            call()


def test_dot_dot_names_cannot_leave_the_root(landing: dict[str, Path], client_for: Callable[..., APIClient]) -> None:
    viewer = client_for("viewer")
    for database, table in (("..", "globex"), ("landing", "..")):
        resp = viewer.post(f"{BASE}/events/databases/{database}/tables/{table}/sample/", {"limit": 10}, format="json")
        assert resp.status_code in (400, 404, 409) and "globex-secret-page" not in resp.content.decode()


def test_a_clean_landing_directory_still_samples(landing: dict[str, Path], client_for: Callable[..., APIClient]) -> None:
    resp = client_for("viewer").post(f"{BASE}/events/databases/landing/tables/clicks/sample/", {"limit": 10},
                                     format="json")
    assert resp.status_code == 200, resp.content
    assert resp.json()["rows"] == [[1, "/a"]]
