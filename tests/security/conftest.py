"""Fixtures for the security tests: team acme with a member of every role and a platform admin (real bearer
tokens), and one object of every kind in acme and in globex — a Delta catalog on a local warehouse (browsable
with no network), a SQL job and a finished run."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from alerts.services.channels import channel_create
from alerts.services.rules import rule_create
from catalogs.models import Catalog, MaterializedView
from catalogs.secrets import seal_configuration
from grants.models import ColumnMask, Grant, Group, RowFilter
from jobs.models import JobRun, JobRunLogLine, RunStatus, SqlJob
from lakeport_engine.catalog_types.delta import DeltaConfig
from lineage.models import Dataset, DatasetAlias
from schedules.models import Schedule
from teams.models import ApiToken, Membership, Role, Team
from teams.services import api_token_create
from tests.factories import MembershipFactory, TeamFactory, UserFactory
from tests.support.secrets import register_secret

ROLES = ("viewer", "developer", "admin", "platform_admin")
STORAGE_SECRET = "AKIA-sec-Secr3t-0f1e2d3c"


@dataclass
class Member:
    role: str
    username: str
    token: str
    token_id: int

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


@dataclass
class TeamObjects:
    team: Team
    catalog: str
    database: str
    table: str
    job_id: int
    run_id: int
    member: str
    schedule_id: int = 0
    dataset_id: int = 0
    preview_id: str = ""
    view: str = ""
    channel_id: int = 0
    rule_id: int = 0
    group: str = ""
    grant_id: int = 0
    filter_id: int = 0
    mask_id: int = 0


@dataclass
class World:
    members: dict[str, Member]
    own: TeamObjects
    other: TeamObjects


def delta_warehouse(root: Path) -> Path:
    """`<root>/sales/orders`: a one-commit Delta table."""
    import pyarrow as pa
    from deltalake import write_deltalake

    write_deltalake(str(root / "sales" / "orders"), pa.table({"id": pa.array([1, 2], pa.int64()), "day": ["a", "b"]}))
    return root


@pytest.fixture(scope="session")
def warehouses(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One Delta warehouse per team, written once (the tests only read them)."""
    return {team: delta_warehouse(tmp_path_factory.mktemp(f"{team}-wh")) for team in ("acme", "globex")}


def team_objects(team: Team, warehouse: Path, member: str, catalog: str) -> TeamObjects:
    config = DeltaConfig.model_validate({"warehouse": str(warehouse), "storage-options": {
        "AWS_SECRET_ACCESS_KEY": register_secret(STORAGE_SECRET)}})
    Catalog.objects.create(team=team, catalog_type="delta", catalog_name=catalog, configuration=seal_configuration(config))
    job = SqlJob.objects.create(team=team, name="daily", sql="SELECT 1 AS one")
    run = JobRun.objects.create(job=job, team=team, sql=job.sql, status=RunStatus.SUCCEEDED, attempt=1,
                                started_at=timezone.now(), finished_at=timezone.now(),
                                result={"columns": [{"name": "one", "type": "int"}], "rows": [[1]], "truncated": False})
    JobRunLogLine.objects.create(run=run, seq=0, message="Run SUCCEEDED.")
    JobRun.objects.filter(id=run.id).update(log_lines=1)
    schedule = Schedule.objects.create(team=team, job=job, name="nightly", cron="0 6 * * *", enabled=False)
    # the team's catalog table as a lineage dataset, so lineage routes have an object of each team to ask for
    dataset = Dataset.objects.create(namespace="file", name=str(warehouse / "sales" / "orders"), kind="delta")
    DatasetAlias.objects.create(dataset=dataset, team=team, catalog=Catalog.objects.get(team=team, catalog_name=catalog),
                                name=f"{catalog}.sales.orders")
    # a materialized view of the team's catalog (only its definition: the matrix never refreshes one for real)
    MaterializedView.objects.create(catalog=Catalog.objects.get(team=team, catalog_name=catalog), database="sales",
                                    name="orders_by_day", query=f"SELECT day, count(*) AS n FROM {catalog}.sales.orders "
                                                                "GROUP BY day")
    # an alert channel (to a closed local port: "Send test" answers ok false at once) and a rule using it
    channel = channel_create(team=team, name="ops", kind="webhook", url="http://127.0.0.1:9/alerts",
                             secret=register_secret(f"whsec-{team.name}-7Hq2pZ9x"))
    rule = rule_create(team=team, name="failures", event="run_failed", channels=[channel.id], job=job.id)
    # a group of every member, holding MANAGE on a catalog the team does not have (so `catalog` stays ungoverned):
    # its developers may revoke that grant, as the matrix expects of a route whose write role is developer
    group = Group.objects.create(team=team, name=f"{team.name}-analysts")
    group.members.set([m.user for m in Membership.objects.filter(team=team)])
    grant = Grant.objects.create(team=team, securable="archive", catalog="archive", privilege="MANAGE", group=group)
    # a row filter and a column mask below that grant: its developers may change them too
    row_filter = RowFilter.objects.create(team=team, table="archive.db.t", catalog="archive", expression="id > 0")
    mask = ColumnMask.objects.create(team=team, table="archive.db.t", catalog="archive", column="email",
                                     expression="'***'")
    return TeamObjects(team=team, catalog=catalog, database="sales", table="orders", job_id=job.id, run_id=run.id,
                       member=member, schedule_id=schedule.id, dataset_id=dataset.id, preview_id=live_preview_of(team),
                       view="orders_by_day", channel_id=channel.id, rule_id=rule.id, group=group.name,
                       grant_id=grant.id, filter_id=row_filter.id, mask_id=mask.id)


def live_preview_of(team: Team) -> str:
    """A live preview owned by `team`, as `sql/preview/live/` records it, without sending its task: no worker of a
    later test may pick up a preview whose team is gone."""
    from celery import current_app

    from jobs.services.live_preview import _owner_key

    preview_id = uuid.uuid4().hex
    current_app.backend.set(_owner_key(preview_id), f"{team.id}:{time.time():.3f}")
    return preview_id


def issue(user: Any) -> tuple[str, int]:
    issued = api_token_create(user=user, name="security")
    return register_secret(issued.raw, "api token"), issued.token.id


@pytest.fixture
def world(db: Any, warehouses: dict[str, Path]) -> World:
    acme, globex = TeamFactory(name="acme"), TeamFactory(name="globex")
    members: dict[str, Member] = {}
    for role in (Role.VIEWER, Role.DEVELOPER, Role.ADMIN):
        user = UserFactory(username=f"acme-{role}")
        MembershipFactory(team=acme, user=user, role=role)
        token, token_id = issue(user)
        members[str(role)] = Member(role=str(role), username=user.username, token=token, token_id=token_id)
    root = UserFactory(username="platform-root", is_superuser=True, is_staff=True)
    token, token_id = issue(root)
    members["platform_admin"] = Member(role="platform_admin", username=root.username, token=token, token_id=token_id)
    outsider = UserFactory(username="globex-admin")
    MembershipFactory(team=globex, user=outsider, role=Role.ADMIN)
    issue(outsider)
    own = team_objects(acme, warehouses["acme"], member="acme-viewer", catalog="lake")
    other = team_objects(globex, warehouses["globex"], member="globex-admin", catalog="vault")
    assert ApiToken.objects.count() == 5
    return World(members=members, own=own, other=other)
