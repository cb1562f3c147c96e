"""Jobs and schedules declared beside catalogs in `apply -f` (command and API): create, update, unchanged,
prune and dry run per section, all or nothing with the catalogs."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.core.management import CommandError, call_command

from catalogs.models import Catalog
from jobs.models import SqlJob
from schedules.models import Schedule
from teams.models import Team

API = "/api/v1/teams/acme/apply/"


def _document(warehouse: Path, **changes: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "catalogs": [{"catalog_name": "lake", "catalog_type": "delta", "configuration": {"warehouse": str(warehouse)}}],
        "jobs": [{"name": "daily orders", "sql": "SELECT ${ds} AS day, ${n} AS n", "default_catalog": "lake",
                  "parameters": {"n": {"type": "int", "default": 3}}}],
        "schedules": [{"name": "nightly", "job": "daily orders", "cron": "30 2 * * *", "time_zone": "Europe/Berlin",
                       "enabled": False, "catchup": "latest", "concurrency": "queue", "max_retries": 2,
                       "parameters": {"n": 5}}],
    }
    doc.update(changes)
    return doc


@pytest.fixture
def warehouse(tmp_path: Path) -> Path:
    path = tmp_path / "lake"
    path.mkdir()
    return path


def _apply(doc: dict[str, Any], *flags: str) -> str:
    out = io.StringIO()
    path = Path(doc.pop("_path"))
    path.write_text(yaml.safe_dump(doc))
    call_command("apply", "-f", str(path), "--team", "acme", *flags, stdout=out)
    return out.getvalue()


def test_command_creates_then_reports_unchanged_then_updates_and_prunes(team: Team, warehouse: Path,
                                                                       tmp_path: Path) -> None:
    doc_path = str(tmp_path / "pipelines.yaml")
    out = _apply({**_document(warehouse), "_path": doc_path})
    assert "jobs: created daily orders" in out and "schedules: created nightly" in out
    schedule = Schedule.objects.get(team=team, name="nightly")
    assert (schedule.enabled, schedule.catchup, schedule.concurrency, schedule.job.default_catalog) == (
        False, "latest", "queue", "lake")
    assert "unchanged daily orders" in _apply({**_document(warehouse), "_path": doc_path})

    changed = _document(warehouse)
    changed["schedules"][0]["cron"] = "0 3 * * *"
    out = _apply({**changed, "_path": doc_path}, "--dry-run")
    assert "would be updated nightly" in out
    assert Schedule.objects.get(name="nightly").cron == "30 2 * * *"  # dry run wrote nothing
    _apply({**changed, "_path": doc_path})
    assert Schedule.objects.get(name="nightly").cron == "0 3 * * *"

    SqlJob.objects.create(team=team, name="old job", sql="SELECT 1")
    out = _apply({**_document(warehouse, schedules=[]), "_path": doc_path}, "--prune")
    assert "deleted nightly" in out and "deleted old job" in out
    assert list(SqlJob.objects.values_list("name", flat=True)) == ["daily orders"]
    assert Catalog.objects.filter(catalog_name="lake").exists()  # catalogs listed: kept


def test_a_bad_schedule_applies_nothing_at_all(team: Team, warehouse: Path, tmp_path: Path) -> None:
    bad = _document(warehouse)
    bad["schedules"][0]["cron"] = "99 * * * *"
    with pytest.raises(CommandError, match=r"schedules\[0\] \(nightly\).*99 \* \* \* \*"):
        _apply({**bad, "_path": str(tmp_path / "bad.yaml")})
    assert not Catalog.objects.exists() and not SqlJob.objects.exists() and not Schedule.objects.exists()


def test_api_apply_of_only_jobs_leaves_catalogs_alone(client_for: Any, team: Team, warehouse: Path) -> None:
    admin = client_for("admin")
    assert admin.post(API, _document(warehouse), format="json").status_code == 200
    response = admin.post(API + "?prune=1", {"jobs": _document(warehouse)["jobs"]}, format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["jobs"]["unchanged"] == ["daily orders"]
    assert Catalog.objects.filter(catalog_name="lake").exists()  # no catalogs section: not pruned
    bad = admin.post(API, {"jobs": [{"name": "x", "sql": "SELECT ${nope}"}]}, format="json")
    assert bad.status_code == 400 and "'${nope}'" in bad.json()["error"]["message"]


def test_prune_of_a_job_with_an_active_run_is_a_400_naming_it_and_applies_nothing(
        client_for: Any, team: Team, warehouse: Path) -> None:
    from jobs.models import JobRun

    admin = client_for("admin")
    busy = SqlJob.objects.create(team=team, name="busy job", sql="SELECT 1")
    JobRun.objects.create(job=busy, team=team, sql=busy.sql)  # queued: the job cannot go yet
    response = admin.post(API + "?prune=1", {"jobs": [{"name": "new job", "sql": "SELECT 1"}]}, format="json")
    assert response.status_code == 400, response.json()
    message = response.json()["error"]["message"]
    assert "job 'busy job' would be pruned but" in message and "cancel it" in message
    assert set(SqlJob.objects.values_list("name", flat=True)) == {"busy job"}  # nothing applied, nothing pruned


def test_apply_declares_streaming_jobs_by_kind(client_for: Any, team: Team, warehouse: Path) -> None:
    admin = client_for("admin")
    streaming = {"name": "clicks", "kind": "streaming",
                 "sql": "INSERT INTO lake.web.counts SELECT count(*) FROM STREAM(events.default.clicks)"}
    response = admin.post(API, {"jobs": [streaming]}, format="json")
    assert response.status_code == 200, response.json()
    assert SqlJob.objects.get(team=team, name="clicks").kind == "streaming"
    unchanged = admin.post(API, {"jobs": [streaming]}, format="json").json()
    assert unchanged["jobs"]["unchanged"] == ["clicks"]

    batch_sql = admin.post(API, {"jobs": [{**streaming, "name": "not a stream", "sql": "SELECT 1"}]}, format="json")
    assert batch_sql.status_code == 400 and "Not a streaming script" in batch_sql.json()["error"]["message"]
    bad_kind = admin.post(API, {"jobs": [{**streaming, "kind": "continuous"}]}, format="json")
    assert bad_kind.status_code == 400 and "kind: Use one of batch, streaming" in bad_kind.json()["error"]["message"]
    assert list(SqlJob.objects.filter(team=team).values_list("name", "kind")) == [("clicks", "streaming")]
