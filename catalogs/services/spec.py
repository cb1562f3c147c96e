"""A catalog body validated into its desired state: name, type, configuration (pydantic model) and description.

Errors name every offending field (configuration fields by alias, e.g. `configuration.base-url`) and never
echo input values: pydantic's `str(ValidationError)` contains the input, so messages are built from
`errors(include_input=False)` `loc` + `msg` only.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError as PydanticValidationError

from catalogs.models import CATALOG_NAME_RE, Catalog
from catalogs.secrets import aliased_keys, merge_secrets, secret_fields, stored_plain
from catalogs.types import CATALOG_TYPES, get_catalog_type
from core.errors import InvalidInput
from lakeport_engine.catalog_types.base import CatalogConfig

WRITABLE_FIELDS = ("catalog_name", "catalog_type", "configuration", "description")
# Fields of the API's output: accepted and ignored in input, so a GET body can be sent back with PUT.
READ_ONLY_FIELDS = ("version", "create_time", "update_time", "created_by", "updated_by", "secrets_set")
DESCRIPTION_MAX = 1000
NUL_MESSAGE = "Must not contain NUL characters."
NAME_MESSAGE = "Use lowercase letters, digits and _, starting with a letter (at most 63 characters)."
_NAME = re.compile(CATALOG_NAME_RE)
_QUOTED = re.compile(r"'([^']{1,200})'")
ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]{0,127})\}")


@dataclass(frozen=True)
class CatalogSpec:
    """A valid desired state of one catalog; `config` holds secrets in plain text (sealed only when stored)."""

    name: str
    catalog_type: str
    config: CatalogConfig
    description: str


def field_paths(details: Mapping[str, Any], prefix: str = "") -> list[str]:
    """Dotted paths of the leaves of an error-details dict: `configuration.base-url`, `catalog_name`."""
    paths: list[str] = []
    for key, value in details.items():
        path = f"{prefix}{key}"
        if isinstance(value, Mapping):
            paths.extend(field_paths(value, f"{path}."))
        else:
            paths.append(path)
    return paths


def invalid(details: dict[str, Any]) -> InvalidInput:
    """The InvalidInput for `details`, with a message listing the offending fields."""
    return InvalidInput(f"Invalid input: {', '.join(field_paths(details))}.", details)


def config_error_details(exc: PydanticValidationError, data: Mapping[str, Any]) -> dict[str, list[str]]:
    """Map pydantic errors to `{field-alias: [message, …]}` without input values.

    A model-level error (empty `loc`, e.g. a JDBC URL with a forbidden parameter) is attributed to the field
    the message starts with, else to the field whose value holds a quoted name the message mentions, else to
    the first field it names, else to `non_field_errors`.
    """
    details: dict[str, list[str]] = {}
    for error in exc.errors(include_input=False, include_url=False, include_context=False):
        message = str(error["msg"]).removeprefix("Value error, ").removeprefix("Assertion failed, ")
        loc = error.get("loc") or ()
        field = ".".join(str(part) for part in loc) if loc else _blame(message, data)
        details.setdefault(field, []).append(message)
    return details


def _blame(message: str, data: Mapping[str, Any]) -> str:
    for key in data:
        if message.startswith(f"{key} "):
            return str(key)
    for token in _QUOTED.findall(message):
        for key, value in data.items():
            if (isinstance(value, Mapping) and token in value) or (isinstance(value, str) and token in value):
                return str(key)
    mentioned = [(message.find(str(key)), str(key)) for key in data if str(key) in message]
    if mentioned:
        return min(mentioned)[1]
    return "non_field_errors"


def catalog_spec_build(
    *, body: Any, stored: Catalog | None, partial: bool = False, url_name: str | None = None
) -> CatalogSpec:
    """Validate a request body into a CatalogSpec; raise InvalidInput naming every bad field.

    `stored` is the existing catalog for an update (its secrets fill the ones the body omits, see
    `catalogs.secrets.merge_secrets`); `partial` (PATCH) keeps every field and configuration key the body
    omits, where a configuration key given as null returns to its default. `url_name` is the name in the URL,
    which the body may repeat but not change (catalogs cannot be renamed: jobs refer to them by name).
    """
    if not isinstance(body, dict):
        raise InvalidInput("Expected a JSON object.", {"non_field_errors": ["Expected a JSON object."]})
    errors: dict[str, Any] = {}
    for key in sorted(set(body) - set(WRITABLE_FIELDS) - set(READ_ONLY_FIELDS), key=str):
        errors[str(key)[:100]] = [f"Unknown field; use {', '.join(WRITABLE_FIELDS)}."]

    name = _name(body, stored=stored, url_name=url_name, errors=errors)
    catalog_type = _type(body, stored=stored, errors=errors)
    description = _description(body, stored=stored, partial=partial, errors=errors)
    config = _configuration(body, catalog_type=catalog_type, stored=stored, partial=partial, errors=errors)
    if errors or name is None or catalog_type is None or config is None:
        raise invalid(errors)
    return CatalogSpec(name=name, catalog_type=catalog_type, config=config, description=description)


def _name(body: dict[str, Any], *, stored: Catalog | None, url_name: str | None, errors: dict[str, Any]) -> str | None:
    fixed = stored.catalog_name if stored is not None else url_name
    name = body.get("catalog_name", fixed)
    if name is None:
        errors["catalog_name"] = ["This field is required."]
        return None
    if not isinstance(name, str) or not _NAME.match(name):
        errors["catalog_name"] = [NAME_MESSAGE]
        return None
    if fixed is not None and name != fixed:
        errors["catalog_name"] = ["Catalogs cannot be renamed (jobs refer to them by name); the body must use the "
                                  "name in the URL. Create a new catalog and delete the old one instead."]
        return None
    return name


def _type(body: dict[str, Any], *, stored: Catalog | None, errors: dict[str, Any]) -> str | None:
    given = body.get("catalog_type")
    if stored is not None:
        if given is not None and given != stored.catalog_type:
            errors["catalog_type"] = [f"The type of an existing catalog cannot change (it is '{stored.catalog_type}'); "
                                      "delete the catalog and create it again with the new type."]
            return None
        return stored.catalog_type
    if given is None:
        errors["catalog_type"] = ["This field is required."]
        return None
    if not isinstance(given, str) or given not in CATALOG_TYPES:
        errors["catalog_type"] = [f"Unknown catalog type; use one of: {', '.join(CATALOG_TYPES)}."]
        return None
    return given


def _description(body: dict[str, Any], *, stored: Catalog | None, partial: bool, errors: dict[str, Any]) -> str:
    if "description" not in body:
        return stored.description if (stored is not None and partial) else ""
    value = body["description"]
    if value is None:
        return ""
    if not isinstance(value, str):
        errors["description"] = ["Expected a string."]
        return ""
    value = value.strip()
    if "\x00" in value:
        errors["description"] = [NUL_MESSAGE]
    elif len(value) > DESCRIPTION_MAX:
        errors["description"] = [f"At most {DESCRIPTION_MAX} characters."]
    return value


def _configuration(
    body: dict[str, Any], *, catalog_type: str | None, stored: Catalog | None, partial: bool, errors: dict[str, Any]
) -> CatalogConfig | None:
    raw = body.get("configuration")
    if raw is None:
        if not (partial and stored is not None):
            errors["configuration"] = ["This field is required."]
            return None
        raw = {}
    if not isinstance(raw, dict):
        errors["configuration"] = ["Expected a JSON object."]
        return None
    if catalog_type is None:
        return None
    model = get_catalog_type(catalog_type).config_model
    previous = stored_plain(stored.configuration) if stored is not None else None
    incoming = aliased_keys(model, raw)
    if partial and previous is not None:
        secret = secret_fields(model)
        base = {k: v for k, v in previous.items() if k not in secret.scalars and k not in secret.maps}
        for key, value in incoming.items():
            if value is None and key not in secret.scalars:
                base.pop(key, None)  # null resets a plain key to its default
            else:
                base[key] = value
        incoming = base
    merged = merge_secrets(model, incoming, previous)
    nul = _nul_paths(merged)
    if nul:
        # PostgreSQL text and jsonb cannot hold NUL: refuse it here rather than fail in the database.
        errors["configuration"] = {path: [NUL_MESSAGE] for path in nul}
        return None
    try:
        return model.model_validate(merged)
    except PydanticValidationError as exc:
        errors["configuration"] = config_error_details(exc, merged)
        return None


def _nul_paths(value: Any, path: str = "", depth: int = 0) -> list[str]:
    if isinstance(value, str):
        return [path] if "\x00" in value else []
    if isinstance(value, dict) and depth < _MAX_DEPTH:
        return [p for k, v in value.items() for p in _nul_paths(v, f"{path}.{k}" if path else str(k), depth + 1)]
    return []


# ---- ${ENV_VAR} references in declarative files ---------------------------------------------------------
# Configurations are at most two levels deep (`storage-options.KEY`); deeper values are invalid anyway.
_MAX_DEPTH = 8


def find_env_refs(value: Any, path: str = "", depth: int = 0) -> list[tuple[str, str]]:
    """(dotted path, variable name) of every `${VAR}` reference inside `value`."""
    if isinstance(value, str):
        return [(path, var) for var in ENV_REF.findall(value)]
    if depth >= _MAX_DEPTH:
        return []
    if isinstance(value, dict):
        return [ref for k, v in value.items() for ref in find_env_refs(v, f"{path}.{k}" if path else str(k), depth + 1)]
    if isinstance(value, list):
        return [ref for i, v in enumerate(value) for ref in find_env_refs(v, f"{path}[{i}]", depth + 1)]
    return []


def resolve_env_refs(value: Any, environ: Mapping[str, str], depth: int = 0) -> Any:
    """`value` with every `${VAR}` replaced from `environ`; a missing variable raises KeyError(VAR)."""
    if isinstance(value, str):
        return ENV_REF.sub(lambda m: environ[m.group(1)], value)
    if depth >= _MAX_DEPTH:
        return value
    if isinstance(value, dict):
        return {k: resolve_env_refs(v, environ, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve_env_refs(v, environ, depth + 1) for v in value]
    return value
