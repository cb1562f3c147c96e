"""Sealing and opening catalog configurations: secret values are encrypted at rest and write-only in the API."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, NamedTuple

from django.conf import settings
from pydantic import SecretStr

from catalogs.types import get_catalog_type
from catalogs.types.base import CatalogConfig
from lakeport_kernel.secretbox import SecretBox, is_sealed


@lru_cache(maxsize=4)
def _box(keys: tuple[str, ...]) -> SecretBox:
    return SecretBox(keys)


def secret_box() -> SecretBox:
    """The SecretBox for the configured keys (LAKEPORT_SECRET_KEYS, newest first)."""
    return _box(tuple(settings.LAKEPORT_SECRET_KEYS))


def secret_paths(config: CatalogConfig) -> list[str]:
    """Dotted paths of the secret values set in `config` (`password`, `storage-options.KEY`)."""
    paths: list[str] = []
    for name, info in type(config).model_fields.items():
        extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
        if not extra.get("secret"):
            continue
        alias = info.alias or name
        value = getattr(config, name)
        if extra.get("secretValues") and isinstance(value, dict):
            paths.extend(f"{alias}.{k}" for k in value)
        elif value is not None:
            paths.append(alias)
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
    return get_catalog_type(catalog_type).config_model.model_validate(plain)


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


# ---- write-only secrets in the API: which fields are secret, merging omitted ones, the public view ------------
class SecretFields(NamedTuple):
    """The secret fields of a configuration model, by alias: single values and maps whose values are secret."""

    scalars: tuple[str, ...]
    maps: tuple[str, ...]


@lru_cache(maxsize=16)
def secret_fields(model: type[CatalogConfig]) -> SecretFields:
    """Aliases of `model`'s secret fields (marked by `secret_field` / `secret_map_field` in catalogs/types/base.py)."""
    scalars: list[str] = []
    maps: list[str] = []
    for name, info in model.model_fields.items():
        extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
        if extra.get("secret"):
            (maps if extra.get("secretValues") else scalars).append(info.alias or name)
    return SecretFields(tuple(scalars), tuple(maps))


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
    return secret_box().open_config(json.loads(stored))


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
