"""Data paths belong to one team (issue 13): a Delta warehouse or Hive conf dir lies under the team's roots, never in
another team's catalog paths nor in the platform's own data directory; the error names no server root."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from catalogs.models import Catalog
from teams.models import Team

pytestmark = pytest.mark.django_db


def delta(name: str, warehouse: Path | str) -> dict[str, Any]:
    return {"catalog_name": name, "catalog_type": "delta", "configuration": {"warehouse": str(warehouse)}}


def test_a_team_cannot_point_a_catalog_into_another_teams_warehouse(
    client_for: Callable[..., APIClient], other_team: Team, tmp_path: Path
) -> None:
    acme, globex = client_for("admin"), client_for("admin", other_team)
    (tmp_path / "acme" / "sales").mkdir(parents=True)
    assert acme.post("/api/v1/teams/acme/catalogs/", delta("lake", tmp_path / "acme"), format="json").status_code == 201
    for path in (tmp_path / "acme", tmp_path / "acme" / "sales", tmp_path / "acme" / "x" / "..", tmp_path):
        resp = globex.post("/api/v1/teams/globex/catalogs/", delta("theirs", path), format="json")
        assert resp.status_code == 400, (path, resp.content)
        assert "another team" in str(resp.json()["error"]["details"])
    link = tmp_path / "innocent"
    link.symlink_to(tmp_path / "acme")
    assert globex.post("/api/v1/teams/globex/catalogs/", delta("theirs", link), format="json").status_code == 400
    assert not Catalog.objects.filter(team=other_team).exists()
    # the same team may reuse its own paths; another team a disjoint one
    assert acme.post("/api/v1/teams/acme/catalogs/", delta("lake2", tmp_path / "acme" / "sales"),
                     format="json").status_code == 201
    (tmp_path / "globex").mkdir()
    assert globex.post("/api/v1/teams/globex/catalogs/", delta("theirs", tmp_path / "globex"),
                       format="json").status_code == 201
    # and an update cannot move into the other team's warehouse either
    resp = globex.patch("/api/v1/teams/globex/catalogs/theirs/", {"configuration": {"warehouse": str(tmp_path / "acme")}},
                        format="json")
    assert resp.status_code == 400


def test_the_platforms_data_directory_is_never_a_catalog_path(admin_client: APIClient) -> None:
    data_dir = Path(settings.DATA_DIR)
    for path in (data_dir, data_dir / "secret-keys", data_dir / "teams", Path("/")):
        resp = admin_client.post("/api/v1/teams/acme/catalogs/", delta("lake", path), format="json")
        assert resp.status_code == 400, (path, resp.content)
        text = str(resp.json())
        assert str(data_dir) not in text.replace(str(path), "") or str(path) == str(data_dir)
    assert not Catalog.objects.exists()


def test_outside_every_root_is_refused_without_listing_the_roots(admin_client: APIClient, settings: Any,
                                                                 tmp_path: Path) -> None:
    settings.LAKEPORT_TEAM_DATA_ROOTS = [str(tmp_path / "teams" / "{team}")]
    (tmp_path / "teams" / "acme" / "wh").mkdir(parents=True)
    (tmp_path / "teams" / "globex").mkdir(parents=True)
    resp = admin_client.post("/api/v1/teams/acme/catalogs/", delta("lake", tmp_path / "teams" / "globex"),
                             format="json")
    assert resp.status_code == 400
    assert str(tmp_path / "teams") not in str(resp.json()).replace(str(tmp_path / "teams" / "globex"), "")
    ok = admin_client.post("/api/v1/teams/acme/catalogs/", delta("lake", tmp_path / "teams" / "acme" / "wh"),
                           format="json")
    assert ok.status_code == 201, ok.content
