"""Sealing and opening catalog configurations: secret values are encrypted at rest and write-only in the API."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from django.conf import settings
from pydantic import SecretStr

from lakeport_engine.catalog_types import definition_for
from lakeport_engine.catalog_types.base import CatalogConfig, SecretFields, secret_fields
from lakeport_kernel.secretbox import SecretBox, is_sealed

__all__ = ["SecretFields", "aliased_keys", "count_sealed", "merge_secrets", "open_configuration",
           "public_configuration", "public_stored_configuration", "seal_configuration", "secret_box", "secret_fields",
           "secret_paths", "stored_plain"]


@lru_cache(maxsize=4)
def _box(keys: tuple[str, ...]) -> SecretBox:
    return SecretBox(keys)


def secret_box() -> SecretBox:
    """The SecretBox for the configured keys (LAKEPORT_SECRET_KEYS, newest first)."""
    return _box(tuple(settings.LAKEPORT_SECRET_KEYS))


def secret_paths(config: CatalogConfig) -> list[str]:
    """Dotted paths of the secret values set in `config` (`password`, `storage-options.KEY`)."""
    fields = secret_fields(type(config))
    plain = config.model_dump(by_alias=True, mode="python")
    paths = [alias for alias in fields.scalars if plain.get(alias) is not None]
    for alias in fields.maps:
        paths.extend(f"{alias}.{k}" for k in plain.get(alias) or {})
    return paths


def seal_configuration(config: CatalogConfig) -> str:
    """The stored JSON text of a validated configuration, with every secret value sealed."""
    box = secret_box()
    plain = config.to_plain()
    for path in secret_paths(config):
        head, _, key = path.partition(".")
        if key:
            plain[head][key] = box.seal(plain[head][key])
        else:
            plain[head] = box.seal(plain[head])
    return json.dumps(plain, sort_keys=True)


def open_configuration(catalog_type: str, stored: str) -> CatalogConfig:
    """Decrypt stored JSON text and validate it into the type's configuration model."""
    plain = secret_box().open_config(json.loads(stored))
    return definition_for(catalog_type).parse(plain)


def public_configuration(config: CatalogConfig) -> dict[str, Any]:
    """The configuration as the API shows it: every secret value removed (see `secret_paths` for which are set)."""
    data = config.model_dump(by_alias=True, exclude_none=True, mode="python")
    for path in secret_paths(config):
        head, _, key = path.partition(".")
        if key:
            data[head].pop(key, None)
            if not data[head]:
                data.pop(head)
        else:
            data.pop(head, None)
    return {k: (v.get_secret_value() if isinstance(v, SecretStr) else v) for k, v in data.items()}


# ---- write-only secrets in the API: merging omitted ones, the public view (which fields are secret: the model's
# markers, lakeport_engine/catalog_types/base.py `secret_fields`, the same list the runtime redacts) ------------
def aliased_keys(model: type[CatalogConfig], data: dict[str, Any]) -> dict[str, Any]:
    """`data` with python field names (`base_url`) renamed to their aliases (`base-url`) unless both are given."""
    # The models also accept python names (populate_by_name); merging works on aliases only.
    names = {name: info.alias for name, info in model.model_fields.items() if info.alias and info.alias != name}
    out: dict[str, Any] = {}
    for key, value in data.items():
        alias = names.get(key)
        out[alias if alias and alias not in data else key] = value
    return out


def merge_secrets(model: type[CatalogConfig], incoming: dict[str, Any], stored: dict[str, Any] | None) -> dict[str, Any]:
    """The configuration to validate for a write: `incoming` with omitted secrets taken from `stored` (plain).

    A secret value omitted or given as null keeps the stored one (the API never returns it, so a client cannot
    send it back). A secret map (delta `storage-options`) merges the given keys onto the stored ones, and a key
    given as null is removed.
    """
    merged = aliased_keys(model, dict(incoming))
    stored = stored or {}
    fields = secret_fields(model)
    for alias in fields.scalars:
        if merged.get(alias) is None:
            merged.pop(alias, None)
            if stored.get(alias) is not None:
                merged[alias] = stored[alias]
    for alias in fields.maps:
        given = merged.get(alias)
        base = dict(stored.get(alias) or {})
        if alias in merged and not isinstance(given, dict) and given is not None:
            continue  # not a map: let the model report it
        for key, value in (given or {}).items():
            if value is None:
                base.pop(key, None)
            else:
                base[key] = value
        if base or alias in merged:
            merged[alias] = base
    return merged


def stored_plain(stored: str) -> dict[str, Any]:
    """The stored JSON text decrypted into a plain dict (no model validation: stored rows are already valid)."""
    plain: dict[str, Any] = secret_box().open_config(json.loads(stored))
    return plain


def public_stored_configuration(stored: str) -> tuple[dict[str, Any], list[str]]:
    """The API view of stored JSON text without decrypting anything: (configuration without secret values,
    dotted paths of the secrets that are set). Same shape as `public_configuration` + `secret_paths`."""
    data = json.loads(stored)
    public: dict[str, Any] = {}
    secrets_set: list[str] = []
    for key, value in data.items():
        if is_sealed(value):
            secrets_set.append(key)
        elif isinstance(value, dict) and any(is_sealed(v) for v in value.values()):
            kept = {}
            for sub, sub_value in value.items():
                if is_sealed(sub_value):
                    secrets_set.append(f"{key}.{sub}")
                else:
                    kept[sub] = sub_value
            if kept:
                public[key] = kept
        else:
            public[key] = value
    return public, sorted(secrets_set)


def count_sealed(value: Any) -> int:
    """How many sealed secret values `value` (parsed stored JSON) holds."""
    if is_sealed(value):
        return 1
    if isinstance(value, dict):
        return sum(count_sealed(v) for v in value.values())
    if isinstance(value, list):
        return sum(count_sealed(v) for v in value)
    return 0
