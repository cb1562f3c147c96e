"""Refused accesses in the catalog history (catalogs/access_history.py): only the guard's `access` refusals, only
names (never the statement), the same refusal within the window counted as repeats on one entry, and at most
REFUSALS_PER_WINDOW entries per user and window, so a loop cannot flood the table. The refusals themselves come from
the engine in tests/security/test_access_matrix.py; here the recorder is driven with the guard's own wording."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from catalogs.access_history import REFUSAL_WINDOW, REFUSALS_PER_WINDOW, access_refused
from catalogs.models import Catalog, CatalogChange
from catalogs.secrets import seal_configuration
from lakeport_engine.access import describe
from lakeport_engine.catalog_types.delta import DeltaConfig
from lakeport_engine.guard import GuardRefusal
from lakeport_engine.protocol import AccessDocument
from teams.models import Role, Team
from tests.factories import MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db

ALICE: AccessDocument = {"user": "alice", "admin": False, "governed": ["lake"], "grants": []}


@pytest.fixture
def lake(team: Team, tmp_path: Path) -> Catalog:
    MembershipFactory(team=team, user=UserFactory(username="alice"), role=Role.DEVELOPER)
    config = DeltaConfig.model_validate({"warehouse": str(tmp_path)})
    return Catalog.objects.create(team=team, catalog_type="delta", catalog_name="lake",
                                  configuration=seal_configuration(config))


def refusal(privilege: str, *target: str) -> str:
    return GuardRefusal("access", detail=f"{privilege} on {describe(target)}", statement=0, line=1).message


def refusals(team: Team) -> list[CatalogChange]:
    return list(CatalogChange.objects.filter(team=team, action="refuse").order_by("id"))


def test_a_loop_of_refusals_is_one_entry_with_repeats_then_a_new_one_after_the_window(team: Team,
                                                                                    lake: Catalog) -> None:
    for _ in range(200):
        access_refused(team_id=team.id, access=ALICE, message=refusal("SELECT", "lake", "hr", "salaries"),
                       entry="preview")
    [entry] = refusals(team)
    assert entry.changes == {"privilege": "SELECT", "level": "table", "securable": "lake.hr.salaries",
                             "entry": "preview", "repeats": 200}
    assert (entry.actor_name, entry.actor.username if entry.actor else None) == ("alice", "alice")
    CatalogChange.objects.filter(pk=entry.pk).update(time=entry.time - REFUSAL_WINDOW - timedelta(seconds=1))
    access_refused(team_id=team.id, access=ALICE, message=refusal("SELECT", "lake", "hr", "salaries"), entry="preview")
    assert len(refusals(team)) == 2


def test_distinct_refusals_are_capped_per_user_and_window(team: Team, lake: Catalog) -> None:
    for i in range(REFUSALS_PER_WINDOW * 3):
        access_refused(team_id=team.id, access=ALICE, message=refusal("SELECT", "lake", "db", f"t{i}"), entry="run")
    assert len(refusals(team)) == REFUSALS_PER_WINDOW
    bob: AccessDocument = {**ALICE, "user": "bob"}  # another user's refusals still reach the history
    access_refused(team_id=team.id, access=bob, message=refusal("MODIFY", "lake", "db", "t0"), entry="run")
    assert len(refusals(team)) == REFUSALS_PER_WINDOW + 1


def test_only_access_refusals_of_the_teams_catalogs_are_recorded(team: Team, lake: Catalog) -> None:
    other = GuardRefusal("cache", statement=0, line=1).message
    for message in (other, "Table not found: lake.sales.x", refusal("SELECT", "elsewhere", "db", "t"), ""):
        assert access_refused(team_id=team.id, access=ALICE, message=message, entry="run") == 0
    assert access_refused(team_id=team.id, access=None, message=refusal("SELECT", "lake"), entry="run") == 0
    assert refusals(team) == []
    assert access_refused(team_id=team.id, access=ALICE, message=refusal("CREATE", "lake", "scratch"),
                          entry="validate") == 1
    assert refusals(team)[0].changes["level"] == "schema"
