"""Creating, updating, replacing and deleting catalogs, with optimistic locking and an audit entry per change."""

from __future__ import annotations

import logging
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any, Literal

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from catalogs.models import Catalog, CatalogChangeAction
from catalogs.secrets import seal_configuration, stored_plain
from catalogs.services.audit import actor_label, actor_user, catalog_change_record, catalog_diff
from catalogs.services.paths import catalog_paths_check
from catalogs.services.spec import CatalogSpec, catalog_spec_build
from catalogs.types import get_catalog_type
from core.errors import Conflict, NotFound, PreconditionFailed
from teams.models import Team

logger = logging.getLogger("lakeport.catalogs")

# `If-Match`: the versions the client last saw, or "*" (the catalog must exist); None = no precondition.
IfMatch = Collection[int] | Literal["*"] | None


@dataclass(frozen=True)
class CatalogWrite:
    """Outcome of a write: the catalog as stored now, whether it was created, and whether anything changed."""

    catalog: Catalog
    created: bool
    changed: bool


def _locked(*, team: Team, name: str) -> Catalog | None:
    # of=("self",): PostgreSQL refuses FOR UPDATE on the nullable side of the users join.
    return (
        Catalog.objects.select_for_update(of=("self",))
        .select_related("team", "user", "created_by")
        .filter(team=team, catalog_name=name)
        .first()
    )


def _not_found(team: Team, name: str) -> NotFound:
    return NotFound(f"No catalog named '{name}' in team '{team.name}'.")


def check_if_match(catalog: Catalog | None, if_match: IfMatch) -> None:
    """Raise PreconditionFailed when `If-Match` does not name the catalog's current version."""
    if if_match is None:
        return
    if catalog is None:
        raise PreconditionFailed("If-Match was sent but the catalog does not exist.")
    if if_match == "*":
        return
    if catalog.version not in if_match:
        raise PreconditionFailed(
            f"The catalog is at version {catalog.version}, not the one in If-Match; read it again and retry."
        )


def catalog_insert(
    *, team: Team, spec: CatalogSpec, actor: User | None, actor_name: str
) -> Catalog:
    """Insert a validated catalog and its `create` audit entry (call inside a transaction)."""
    catalog_paths_check(team=team, spec=spec)
    now = timezone.now()
    catalog = Catalog(
        team=team,
        user=actor_user(actor),
        created_by=actor_user(actor),
        catalog_type=spec.catalog_type,
        catalog_name=spec.name,
        configuration=seal_configuration(spec.config),
        description=spec.description,
        version=1,
        create_time=now,
        update_time=now,
    )
    try:
        with transaction.atomic():  # a savepoint: a duplicate leaves the outer transaction usable
            catalog.save(force_insert=True)
    except IntegrityError as exc:
        raise Conflict(f"A catalog named '{spec.name}' already exists in team '{team.name}'.") from exc
    model = get_catalog_type(spec.catalog_type).config_model
    catalog_change_record(
        team=team, catalog_name=spec.name, catalog_type=spec.catalog_type, action=CatalogChangeAction.CREATE,
        actor=actor, actor_name=actor_name, version=1,
        changes=catalog_diff(model=model, old=None, new=spec.config.to_plain(), old_description=None,
                             new_description=spec.description, old_type=None, new_type=spec.catalog_type),
    )
    logger.info("catalog.created", extra={"team": team.name, "catalog": spec.name, "version": 1})
    return catalog


def catalog_differs(*, catalog: Catalog, spec: CatalogSpec, stored: dict[str, Any] | None = None) -> bool:
    """Whether storing `spec` would change `catalog` (secrets compared in plain text, in memory)."""
    old = stored if stored is not None else stored_plain(catalog.configuration)
    return old != spec.config.to_plain() or spec.description != catalog.description


def catalog_overwrite(
    *, catalog: Catalog, spec: CatalogSpec, actor: User | None, actor_name: str
) -> bool:
    """Store `spec` over a locked `catalog` unless nothing changed; bump its version and record the change.

    Returns whether anything changed. The UPDATE is conditional on the version read, so even a caller that did
    not lock the row cannot overwrite a concurrent change (→ PreconditionFailed).
    """
    old = stored_plain(catalog.configuration)
    new = spec.config.to_plain()
    if not catalog_differs(catalog=catalog, spec=spec, stored=old):
        return False
    catalog_paths_check(team=catalog.team, spec=spec)
    model = get_catalog_type(catalog.catalog_type).config_model
    changes = catalog_diff(model=model, old=old, new=new, old_description=catalog.description,
                           new_description=spec.description)
    now = timezone.now()
    sealed = seal_configuration(spec.config)
    rows = Catalog.objects.filter(pk=catalog.pk, version=catalog.version).update(
        configuration=sealed, description=spec.description, version=catalog.version + 1, user=actor,
        update_time=now,
    )
    if rows != 1:
        raise PreconditionFailed("The catalog was changed by someone else at the same time; read it again and retry.")
    catalog.configuration, catalog.description, catalog.user, catalog.update_time = (
        sealed, spec.description, actor_user(actor), now)
    catalog.version += 1
    catalog_change_record(
        team=catalog.team, catalog_name=catalog.catalog_name, catalog_type=catalog.catalog_type,
        action=CatalogChangeAction.UPDATE, actor=actor, actor_name=actor_name, version=catalog.version,
        changes=changes,
    )
    logger.info("catalog.updated", extra={"team": catalog.team.name, "catalog": catalog.catalog_name,
                                          "version": catalog.version, "fields": sorted(changes)})
    return True


def catalog_create(*, team: Team, actor: User | None, data: Any, actor_name: str | None = None) -> Catalog:
    """Create a catalog from an API body; a taken name raises Conflict (409), bad input InvalidInput (400)."""
    spec = catalog_spec_build(body=data, stored=None)
    with transaction.atomic():
        return catalog_insert(team=team, spec=spec, actor=actor, actor_name=actor_name or actor_label(actor, "system"))


def catalog_update(
    *,
    team: Team,
    name: str,
    actor: User | None,
    data: Any,
    partial: bool,
    if_match: IfMatch = None,
    actor_name: str | None = None,
) -> CatalogWrite:
    """Update an existing catalog (`partial`: PATCH semantics). Omitted secrets keep their stored values; a body
    equal to the stored state changes nothing (the version stays)."""
    with transaction.atomic():
        catalog = _locked(team=team, name=name)
        if catalog is None:
            raise _not_found(team, name)
        check_if_match(catalog, if_match)
        spec = catalog_spec_build(body=data, stored=catalog, partial=partial, url_name=name)
        changed = catalog_overwrite(catalog=catalog, spec=spec, actor=actor,
                                    actor_name=actor_name or actor_label(actor, "system"))
    return CatalogWrite(catalog=catalog, created=False, changed=changed)


def catalog_put(
    *,
    team: Team,
    name: str,
    actor: User | None,
    data: Any,
    if_match: IfMatch = None,
    if_none_match: bool = False,
    actor_name: str | None = None,
) -> CatalogWrite:
    """Create or replace the catalog `name` (idempotent, for provisioning). `if_none_match` (`If-None-Match: *`)
    refuses to replace an existing catalog; `if_match` refuses to create one."""
    label = actor_name or actor_label(actor, "system")
    with transaction.atomic():
        catalog = _locked(team=team, name=name)
        if catalog is not None and if_none_match:
            raise PreconditionFailed(f"A catalog named '{name}' already exists (If-None-Match: *).")
        check_if_match(catalog, if_match)
        spec = catalog_spec_build(body=data, stored=catalog, url_name=name)
        if catalog is None:
            try:
                return CatalogWrite(catalog=catalog_insert(team=team, spec=spec, actor=actor, actor_name=label),
                                    created=True, changed=True)
            except Conflict:
                # Another PUT created it meanwhile (its insert committed first): replace it instead.
                catalog = _locked(team=team, name=name)
                if catalog is None or if_none_match:
                    raise
                spec = catalog_spec_build(body=data, stored=catalog, url_name=name)
        changed = catalog_overwrite(catalog=catalog, spec=spec, actor=actor, actor_name=label)
    return CatalogWrite(catalog=catalog, created=False, changed=changed)


def catalog_remove(*, catalog: Catalog, actor: User | None, actor_name: str) -> None:
    """Delete a locked catalog and record it (call inside a transaction); its audit trail stays."""
    catalog_change_record(
        team=catalog.team, catalog_name=catalog.catalog_name, catalog_type=catalog.catalog_type,
        action=CatalogChangeAction.DELETE, actor=actor, actor_name=actor_name, version=catalog.version, changes={},
    )
    catalog.delete()
    logger.info("catalog.deleted", extra={"team": catalog.team.name, "catalog": catalog.catalog_name})


def catalog_delete(
    *, team: Team, name: str, actor: User | None, if_match: IfMatch = None, actor_name: str | None = None
) -> None:
    """Delete the catalog `name`; 404 when missing, PreconditionFailed on a stale `If-Match`."""
    with transaction.atomic():
        catalog = _locked(team=team, name=name)
        if catalog is None:
            raise _not_found(team, name)
        check_if_match(catalog, if_match)
        catalog_remove(catalog=catalog, actor=actor, actor_name=actor_name or actor_label(actor, "system"))
