"""A live Lakeport with team `acme` (a member of every role, each with a real API token), its `iceberg` catalog
`ice` on a fresh warehouse, team `globex` with its own; clients are pyiceberg's `RestCatalog` only. Every response
the endpoint serves during a test is recorded and checked against the vendored Iceberg REST OpenAPI document."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from pyiceberg.catalog.rest import RestCatalog

from catalogs.models import Catalog
from catalogs.secrets import seal_configuration
from iceberg_rest.views import IcebergApi, OAuthTokensApi
from lakeport_engine.catalog_types.delta import DeltaConfig
from lakeport_engine.catalog_types.iceberg import IcebergConfig
from teams.models import Role
from teams.services import api_token_create
from tests.factories import MembershipFactory, TeamFactory, UserFactory
from tests.iceberg_rest.spec import Served, problems

ROLES = (Role.VIEWER, Role.DEVELOPER, Role.ADMIN)


@dataclass
class Rest:
    """The live server, tokens by role (`acme`), and the warehouse of `acme`'s catalog `ice`."""

    url: str
    tokens: dict[str, str]
    warehouse: Path
    outsider: str  # a globex admin's token
    served: list[Served] = field(default_factory=list)

    def base(self, team: str = "acme", catalog: str = "ice") -> str:
        return f"{self.url}/api/iceberg/{team}/{catalog}"

    def catalog(self, role: str = Role.DEVELOPER, *, team: str = "acme", catalog: str = "ice",
                **properties: str) -> RestCatalog:
        """pyiceberg's RestCatalog on the endpoint, authenticated with the role's API token."""
        props = {"token": self.tokens[role]} | properties
        return RestCatalog("lakeport", uri=self.base(team, catalog), **props)


def _record(served: list[Served], view: Any) -> Callable[..., Any]:
    original = view.finalize_response

    def finalize(self: Any, request: Any, response: Any, *args: Any, **kwargs: Any) -> Any:
        response = original(self, request, response, *args, **kwargs)
        response.render() if hasattr(response, "render") and not response.is_rendered else None
        served.append(Served(request.method, request.get_full_path(), response.status_code, response.content))
        return response

    return finalize


@pytest.fixture
def rest(live_server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Rest]:
    acme, globex = TeamFactory(name="acme"), TeamFactory(name="globex")
    tokens = {}
    for role in ROLES:
        user = UserFactory()
        MembershipFactory(team=acme, user=user, role=role)
        tokens[str(role)] = api_token_create(user=user, name="iceberg").raw
    outsider = UserFactory()
    MembershipFactory(team=globex, user=outsider, role=Role.ADMIN)
    warehouses = {name: tmp_path / name for name in ("acme-ice", "globex-ice", "acme-lake")}
    for path in warehouses.values():
        path.mkdir()
    Catalog.objects.create(team=acme, catalog_type="iceberg", catalog_name="ice", configuration=seal_configuration(
        IcebergConfig.model_validate({"warehouse": str(warehouses["acme-ice"])})))
    Catalog.objects.create(team=globex, catalog_type="iceberg", catalog_name="ice", configuration=seal_configuration(
        IcebergConfig.model_validate({"warehouse": str(warehouses["globex-ice"])})))
    Catalog.objects.create(team=acme, catalog_type="delta", catalog_name="lake", configuration=seal_configuration(
        DeltaConfig.model_validate({"warehouse": str(warehouses["acme-lake"])})))
    served: list[Served] = []
    for view in (IcebergApi, OAuthTokensApi):
        monkeypatch.setattr(view, "finalize_response", _record(served, view))
    state = Rest(url=live_server.url, tokens=tokens, warehouse=warehouses["acme-ice"],
                 outsider=api_token_create(user=outsider, name="iceberg").raw, served=served)
    yield state
    # the spec's own conformance: every answer of this test, successes and refusals alike
    assert served, "no response was recorded: the conformance check would be empty"
    wrong = [p for s in served for p in problems(s)]
    assert not wrong, wrong[:10]
