"""Declarative apply through the API and `manage.py apply`: create, update, prune, dry run, all or nothing."""

from __future__ import annotations

import getpass
import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from catalogs.models import Catalog, CatalogChange
from catalogs.secrets import open_configuration
from teams.models import Role
from tests.catalogs.conftest import (
    API,
    ENV_PASSWORD,
    PG_PASSWORD,
    delta_body,
    hive_body,
    pg_body,
)
from tests.conftest import PgDatabase
from tests.factories import MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db


def _state() -> dict[str, tuple[int, str]]:
    return {c.catalog_name: (c.version, c.configuration) for c in Catalog.objects.filter(team__name="acme")}


def _apply(client: APIClient, document: Any, **query: str) -> Any:
    qs = "&".join(f"{k}={v}" for k, v in query.items())
    return client.post(f"{API}/apply/{'?' + qs if qs else ''}", document, format="json")


# ---- API ----------------------------------------------------------------------------------------------
def test_apply_creates_updates_and_reports_unchanged(admin: APIClient, pg_source: PgDatabase, warehouse: Path) -> None:
    document = {"catalogs": [pg_body(pg_source), hive_body(), delta_body(warehouse)]}
    first = _apply(admin, document)
    assert first.status_code == 200, first.content
    assert first.json() == {"created": ["hive_wh", "lake", "pg_main"], "updated": [], "deleted": [],
                            "unchanged": [], "dry_run": False}
    assert Catalog.objects.get(catalog_name="pg_main").created_by is not None

    # Same document again: nothing changes, versions stay.
    again = _apply(admin, document)
    assert again.json()["unchanged"] == ["hive_wh", "lake", "pg_main"] and again.json()["created"] == []
    assert {name: v for name, (v, _) in _state().items()} == {"hive_wh": 1, "lake": 1, "pg_main": 1}

    # Change one entry and leave out the password: updated, and the stored password kept.
    changed = pg_body(pg_source, password=None)
    changed["description"] = "Orders v2"
    result = _apply(admin, [changed, hive_body(), delta_body(warehouse)]).json()  # a bare list works too
    assert result["updated"] == ["pg_main"] and result["unchanged"] == ["hive_wh", "lake"]
    stored = Catalog.objects.get(catalog_name="pg_main")
    assert stored.version == 2 and stored.description == "Orders v2"
    assert open_configuration("jdbc", stored.configuration).password.get_secret_value() == PG_PASSWORD


def test_apply_prune_deletes_unlisted_and_keeps_their_history(admin: APIClient, pg_source: PgDatabase) -> None:
    _apply(admin, [pg_body(pg_source), hive_body()])
    without_prune = _apply(admin, [hive_body()]).json()
    assert without_prune["deleted"] == [] and set(_state()) == {"hive_wh", "pg_main"}
    pruned = _apply(admin, [hive_body()], prune="true").json()
    assert pruned["deleted"] == ["pg_main"] and pruned["unchanged"] == ["hive_wh"]
    assert set(_state()) == {"hive_wh"}
    assert CatalogChange.objects.filter(catalog_name="pg_main", action="delete").count() == 1
    # prune given in the body works the same; an empty list with prune empties the team.
    assert _apply(admin, {"catalogs": [], "prune": True}).json()["deleted"] == ["hive_wh"]
    assert not Catalog.objects.exists()


def test_apply_dry_run_changes_nothing(admin: APIClient, pg_source: PgDatabase, warehouse: Path) -> None:
    _apply(admin, [pg_body(pg_source), hive_body()])
    before = _state()
    history = CatalogChange.objects.count()
    changed = {**hive_body(), "description": "new"}
    result = _apply(admin, {"catalogs": [changed, delta_body(warehouse)], "prune": True, "dry_run": True}).json()
    assert result == {"created": ["lake"], "updated": ["hive_wh"], "deleted": ["pg_main"], "unchanged": [],
                      "dry_run": True}
    assert _state() == before and CatalogChange.objects.count() == history


def test_apply_is_all_or_nothing(admin: APIClient, pg_source: PgDatabase, warehouse: Path) -> None:
    _apply(admin, [hive_body()])
    before = _state()
    bad = pg_body(pg_source, name="pg_bad")
    bad["configuration"]["base-url"] = "jdbc:postgresql://db/?socketFactory=x"
    document = [{**hive_body(), "description": "would change"}, delta_body(warehouse), bad,
                {**hive_body(name="Bad Name")}]
    resp = _apply(admin, document, prune="true")
    assert resp.status_code == 400
    error = resp.json()["error"]
    assert set(error["details"]) == {"catalogs[2]", "catalogs[3]"}
    assert "base-url" in error["details"]["catalogs[2]"]["configuration"]
    assert "catalog_name" in error["details"]["catalogs[3]"]
    assert "catalogs[2] (pg_bad): configuration.base-url" in error["message"]
    assert "Nothing was applied" in error["message"]
    assert _state() == before and CatalogChange.objects.count() == 1


def test_apply_rejects_duplicates_type_changes_and_non_lists(admin: APIClient, warehouse: Path) -> None:
    _apply(admin, [hive_body()])
    resp = _apply(admin, [hive_body(name="twice"), hive_body(name="twice")])
    assert resp.status_code == 400 and "catalog_name" in resp.json()["error"]["details"]["catalogs[1]"]
    resp = _apply(admin, [delta_body(warehouse, name="hive_wh")])
    assert resp.status_code == 400 and "catalog_type" in resp.json()["error"]["details"]["catalogs[0]"]
    for document in ({"catalogs": "nope"}, {"hello": 1}, 42):
        assert _apply(admin, document).status_code == 400
    assert _apply(admin, [hive_body()], prune="maybe").status_code == 400
    assert set(_state()) == {"hive_wh"}


def test_api_apply_refuses_environment_references(admin: APIClient, pg_source: PgDatabase,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LP_TEST_PG_PASSWORD", ENV_PASSWORD)
    body = pg_body(pg_source, password="${LP_TEST_PG_PASSWORD}")
    resp = _apply(admin, [body])
    assert resp.status_code == 400
    assert "manage.py apply" in resp.json()["error"]["details"]["catalogs[0]"]["configuration"]["password"][0]
    assert not Catalog.objects.exists()


def test_apply_accepts_a_yaml_body(admin: APIClient, pg_source: PgDatabase) -> None:
    text = yaml.safe_dump({"catalogs": [hive_body(), pg_body(pg_source)]})
    resp = admin.generic("POST", f"{API}/apply/?dry_run=1", text, content_type="application/yaml")
    assert resp.status_code == 200, resp.content
    assert resp.json()["created"] == ["hive_wh", "pg_main"] and not Catalog.objects.exists()
    broken = admin.generic("POST", f"{API}/apply/", f"catalogs: [\n  password: {PG_PASSWORD}", content_type="application/yaml")
    assert broken.status_code == 400 and "line" in broken.json()["error"]["message"]
    bomb = "a: &x [1, 2]\nb: [*x, *x]\n"
    assert admin.generic("POST", f"{API}/apply/", bomb, content_type="application/yaml").status_code == 400


# ---- CLI ----------------------------------------------------------------------------------------------
class PgDatabaseStub:
    """Where a catalog in a file points; never contacted by apply."""

    name, host, port, user = "nowhere", "127.0.0.1", 5432, "postgres"


def _cli(path: Path, *args: str) -> str:
    out = StringIO()
    call_command("apply", "-f", str(path), "--team", "acme", *args, stdout=out)
    return out.getvalue()


def test_cli_apply_resolves_env_references_so_files_hold_no_secrets(
    team: Any, pg_source: PgDatabase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LP_TEST_PG_PASSWORD", ENV_PASSWORD)
    monkeypatch.setenv("LP_TEST_PG_HOST", "127.0.0.1")
    body = pg_body(pg_source, password="${LP_TEST_PG_PASSWORD}")
    body["configuration"]["base-url"] = "jdbc:postgresql://${LP_TEST_PG_HOST}:5432/"
    path = tmp_path / "catalogs.yaml"
    path.write_text(yaml.safe_dump([body, hive_body()]))
    assert ENV_PASSWORD not in path.read_text()

    out = _cli(path)
    assert "created: hive_wh, pg_main" in out and "updated: -" in out
    stored = Catalog.objects.get(catalog_name="pg_main")
    config = open_configuration("jdbc", stored.configuration)
    assert config.password.get_secret_value() == ENV_PASSWORD and config.base_url == "jdbc:postgresql://127.0.0.1:5432/"
    assert ENV_PASSWORD not in stored.configuration
    assert CatalogChange.objects.filter(catalog_name="pg_main").get().actor_name == f"cli:{getpass.getuser()}"

    # Run again with the variable unset and the password left out of the file: the stored one stays.
    monkeypatch.delenv("LP_TEST_PG_PASSWORD")
    del body["configuration"]["password"]
    path.write_text(yaml.safe_dump([body, hive_body()]))
    assert "unchanged: hive_wh, pg_main" in _cli(path)


def test_cli_apply_prune_dry_run_json_and_errors(team: Any, warehouse: Path, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "catalogs.json"
    path.write_text(json.dumps({"catalogs": [hive_body(), hive_body(name="hive_two")]}))
    _cli(path)
    path.write_text(json.dumps({"catalogs": [hive_body(), delta_body(warehouse, options={})]}))
    out = _cli(path, "--prune", "--dry-run")
    assert "would be created: lake" in out and "would be deleted: hive_two" in out
    assert set(_state()) == {"hive_wh", "hive_two"}
    result = json.loads(_cli(path, "--prune", "--json"))
    assert result == {"created": ["lake"], "updated": [], "deleted": ["hive_two"], "unchanged": ["hive_wh"],
                      "dry_run": False}
    assert set(_state()) == {"hive_wh", "lake"}
    path.write_text(json.dumps([{**hive_body(), "description": "edited"}, delta_body(warehouse, options={})]))
    # --as (or its older name --actor) acts as a team admin, as the API asks; anyone else changes nothing
    MembershipFactory(team=team, user=UserFactory(username="dev"), role=Role.DEVELOPER)
    MembershipFactory(user=UserFactory(username="outsider"), role=Role.ADMIN)  # an admin of another team
    for who, says in (("dev", "'dev' is 'developer' in team 'acme'; apply needs the 'admin' role"),
                      ("outsider", "'outsider' is not a member of team 'acme'"),
                      ("ghost", "no active user named 'ghost'")):
        with pytest.raises(CommandError, match=says):
            _cli(path, "--as", who)
        assert Catalog.objects.get(catalog_name="hive_wh").description != "edited"
    MembershipFactory(team=team, user=UserFactory(username="provisioner"), role=Role.ADMIN)
    out = _cli(path, "--actor", "provisioner")
    assert "updated: hive_wh" in out and "unchanged: lake" in out
    assert Catalog.objects.get(catalog_name="hive_wh").description == "edited"
    assert CatalogChange.objects.filter(catalog_name="hive_wh", action="update").get().actor_name == "provisioner"

    monkeypatch.delenv("LP_TEST_MISSING", raising=False)
    bad = pg_body(PgDatabaseStub, password="${LP_TEST_MISSING}")
    path.write_text(yaml.safe_dump([bad, hive_body(name="hive_three")]))
    with pytest.raises(CommandError) as excinfo:
        _cli(path)
    assert "catalogs[0] (pg_main): configuration.password" in str(excinfo.value)
    assert "LP_TEST_MISSING is not set" in str(excinfo.value)
    assert set(_state()) == {"hive_wh", "lake"}

    path.write_text("catalogs: [oops")
    with pytest.raises(CommandError, match="line"):
        _cli(path)
    with pytest.raises(CommandError, match="No team"):
        call_command("apply", "-f", str(path), "--team", "nobody", stdout=StringIO())


def test_cli_apply_reads_stdin(team: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", StringIO(yaml.safe_dump([hive_body()])))
    out = StringIO()
    call_command("apply", "-f", "-", "--team", "acme", stdout=out)
    assert "created: hive_wh" in out.getvalue()
