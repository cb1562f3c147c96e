"""Sealing and opening catalog configurations: secret values are encrypted at rest and write-only in the API."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from django.conf import settings
from pydantic import SecretStr

from catalogs.types import get_catalog_type
from catalogs.types.base import CatalogConfig
from jobs.spark.secretbox import SecretBox


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
