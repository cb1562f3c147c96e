"""The catalog audit trail: what changed, by whom, with secret values reduced to "set" / "changed" / "removed"."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser, User

from catalogs.models import CatalogChange
from catalogs.secrets import secret_fields
from lakeport_engine.catalog_types.base import CatalogConfig
from teams.models import Team


def _secret_change(old: Any, new: Any) -> str | None:
    if old is None and new is not None:
        return "set"
    if old is not None and new is None:
        return "removed"
    return "changed" if old != new else None


def catalog_diff(
    *,
    model: type[CatalogConfig],
    old: dict[str, Any] | None,
    new: dict[str, Any] | None,
    old_description: str | None = None,
    new_description: str | None = None,
    old_type: str | None = None,
    new_type: str | None = None,
) -> dict[str, Any]:
    """Changed fields between two plain configurations: `{"configuration.base-url": {"from", "to"}}` for plain
    values, `{"configuration.password": "changed"}` for secrets (compared in memory, never recorded)."""
    changes: dict[str, Any] = {}
    if old_type != new_type:
        changes["catalog_type"] = {"from": old_type, "to": new_type}
    if old_description != new_description:
        changes["description"] = {"from": old_description, "to": new_description}
    old, new = old or {}, new or {}
    secret = secret_fields(model)
    for key in sorted(set(old) | set(new)):
        if key in secret.scalars:
            change = _secret_change(old.get(key), new.get(key))
            if change:
                changes[f"configuration.{key}"] = change
        elif key in secret.maps:
            before, after = old.get(key) or {}, new.get(key) or {}
            for sub in sorted(set(before) | set(after)):
                change = _secret_change(before.get(sub), after.get(sub))
                if change:
                    changes[f"configuration.{key}.{sub}"] = change
        elif old.get(key) != new.get(key):
            changes[f"configuration.{key}"] = {"from": old.get(key), "to": new.get(key)}
    return changes


def actor_user(actor: AbstractBaseUser | None) -> User | None:
    """The user to record as the actor (a request's user is typed as any auth user; the platform's is `User`)."""
    return actor if isinstance(actor, User) else None


def actor_label(actor: AbstractBaseUser | None, fallback: str) -> str:
    """The name recorded for an actor: the user name, or `fallback` (the command) when no user acted."""
    return actor.get_username() if actor is not None else fallback


def catalog_change_record(
    *,
    team: Team,
    catalog_name: str,
    catalog_type: str,
    action: str,
    actor: User | None,
    actor_name: str,
    version: int,
    changes: dict[str, Any],
) -> CatalogChange:
    """Append one entry to the audit trail (call inside the transaction that makes the change)."""
    return CatalogChange.objects.create(
        team=team,
        catalog_name=catalog_name,
        catalog_type=catalog_type,
        action=action,
        actor=actor_user(actor),
        actor_name=actor_name,
        version=version,
        changes=changes,
    )
