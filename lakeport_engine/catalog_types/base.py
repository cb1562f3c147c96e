"""What every catalog type definition is made of: its pydantic configuration model (secret fields marked),
the local-path fields the platform checks against a team's data roots, and the servers a configuration reaches.

Django-free: the catalog API (`catalogs/`) validates and seals configurations with these models, the Spark runtime
(`lakeport_engine/bindings`, `store`) parses `CatalogEntry.configuration` and registers secrets with them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple, TypeVar
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, ValidationInfo
from pydantic.config import JsonDict

# ---- configuration models ----------------------------------------------------------------------------------


class CatalogConfig(BaseModel):
    """Base of every type's configuration: keys are the seed's hyphenated names; unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, str_strip_whitespace=True, frozen=True)

    def to_plain(self) -> dict[str, Any]:
        """The configuration as a JSON-ready dict with hyphenated keys and secrets in plain text."""
        plain = _reveal(self.model_dump(by_alias=True, exclude_none=True, mode="python"))
        assert isinstance(plain, dict)
        return plain


def _reveal(value: object) -> object:
    if isinstance(value, SecretStr):
        return value.get_secret_value()
    if isinstance(value, dict):
        return {k: _reveal(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_reveal(v) for v in value]
    return value


def reveal(value: SecretStr | None) -> str:
    """The plain text of an optional secret ("" when unset)."""
    return value.get_secret_value() if value is not None else ""


def secret_field(**kwargs: Any) -> Any:  # noqa: ANN401 - pydantic's Field() is typed Any to fit any annotation
    """A `Field` for a secret: marked in the JSON Schema as write-only so the UI renders a password input."""
    extra: JsonDict = {"secret": True, "writeOnly": True, "format": "password"}
    return Field(json_schema_extra=extra, **kwargs)


def secret_map_field(**kwargs: Any) -> Any:  # noqa: ANN401 - as secret_field
    """A `Field` for a map whose values are all secret (e.g. storage credentials)."""
    return Field(json_schema_extra={"secret": True, "secretValues": True, "writeOnly": True}, **kwargs)


class SecretFields(NamedTuple):
    """The secret fields of a configuration model, by alias: single values and maps whose values are secret."""

    scalars: tuple[str, ...]
    maps: tuple[str, ...]


@lru_cache(maxsize=32)
def secret_fields(model: type[CatalogConfig]) -> SecretFields:
    """Aliases of `model`'s secret fields (marked by `secret_field` / `secret_map_field`)."""
    scalars: list[str] = []
    maps: list[str] = []
    for name, info in model.model_fields.items():
        extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
        if extra.get("secret"):
            (maps if extra.get("secretValues") else scalars).append(info.alias or name)
    return SecretFields(tuple(scalars), tuple(maps))


def secret_values(model: type[CatalogConfig], plain: Mapping[str, Any]) -> list[str]:
    """The plain text secret values of a configuration (hyphenated keys), as the model marks them."""
    fields = secret_fields(model)
    found = [str(plain[k]) for k in fields.scalars if plain.get(k) not in (None, "")]
    for key in fields.maps:
        values = plain.get(key)
        if isinstance(values, Mapping):
            found.extend(str(v) for v in values.values() if v not in (None, ""))
    return found


def validation_problem(exc: ValidationError) -> str:
    """The first error of a validation as `field: what` (pydantic's location and message, no input value)."""
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"])
    what = str(first["msg"]).removeprefix("Value error, ")
    return f"{where}: {what}" if where else what


# ---- local paths -------------------------------------------------------------------------------------------
RootsProvider = Callable[[], list[Path]]
_roots_provider: RootsProvider | None = None


def use_allowed_roots(provider: RootsProvider | None) -> None:
    """Where `check_local_path` reads the operator's allowed roots from (the platform sets it at start-up).

    Without a provider (a plain Spark runtime reading configurations the platform already checked) only the
    shape of a path is checked: absolute, no NUL.
    """
    global _roots_provider
    _roots_provider = provider


STORED = {"stored": True}  # validation context of a configuration read back from a store (already checked)


def check_local_path(value: str, info: ValidationInfo | None = None) -> str:
    """Return the normalised absolute path, or raise ValueError if it is relative or escapes the allowed roots.

    The roots are checked when the platform validates a new configuration; a stored one (`info.context` is
    `STORED`) was checked when it was saved, and a runtime without a roots provider checks the shape only.
    """
    if not value.startswith("/"):
        raise ValueError("must be an absolute path.")
    if "\x00" in value:
        raise ValueError("must not contain NUL.")
    resolved = Path(os.path.realpath(value))
    stored = info is not None and isinstance(info.context, dict) and info.context.get("stored")
    if _roots_provider is None or stored:
        return str(resolved)
    roots = _roots_provider()
    if not any(resolved == root or root in resolved.parents for root in roots):
        shown = ", ".join(str(r) for r in roots) or "(none configured)"
        raise ValueError(f"must be inside an allowed root: {shown}.")
    return str(resolved)


def local_paths(fields: tuple[str, ...], plain: Mapping[str, Any]) -> dict[str, Path]:
    """The local data paths of a configuration's `fields`, resolved (symlinks, `..`), keyed by field."""
    paths: dict[str, Path] = {}
    for key in fields:
        value = plain.get(key)
        if isinstance(value, str) and value:
            if "://" in value and not value.startswith("file://"):
                continue  # an object store URI: not a path on this machine
            paths[key] = Path(os.path.realpath(value.removeprefix("file://")))
    return paths


# ---- endpoints ---------------------------------------------------------------------------------------------
DEFAULT_PORTS = {"postgresql": 5432, "postgres": 5432, "mysql": 3306, "mariadb": 3306, "redis": 6379,
                 "rediss": 6379, "amqp": 5672, "amqps": 5671, "nats": 4222, "tls": 4222, "http": 80, "https": 443}


@dataclass(frozen=True)
class Endpoint:
    """A server a catalog connects to. `kind` is its protocol; `databases` the PostgreSQL/MySQL databases used."""

    host: str
    port: int
    kind: str
    databases: frozenset[str] = field(default_factory=frozenset)

    @property
    def label(self) -> str:
        """`host:port` as written (IPv6 in brackets)."""
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


def url_endpoint(url: str, kind: str) -> Endpoint | None:
    """The server of a `scheme://host[:port]` URL (the scheme's or `kind`'s default port), None without a host."""
    parts = urlsplit(url)
    if not parts.hostname:
        return None
    try:
        port = parts.port or DEFAULT_PORTS.get(parts.scheme.lower(), DEFAULT_PORTS.get(kind, 0))
    except ValueError:
        return None
    return Endpoint(parts.hostname, port, kind)


def no_endpoints(plain: Mapping[str, Any]) -> list[Endpoint]:
    """A type that reaches no server (a local directory)."""
    return []


# ---- the definition ----------------------------------------------------------------------------------------
Config = TypeVar("Config", bound=CatalogConfig)


@dataclass(frozen=True)
class CatalogTypeDefinition:
    """One catalog type as both sides of the platform know it.

    `endpoints` reads the servers from a plain configuration (hyphenated keys, secrets in plain text; a file
    store's configuration was never validated, so it must not assume the model's checks); `local_path_fields` are
    the keys holding local data paths (checked against the team's data roots on save).
    """

    key: str
    display_name: str
    config_model: type[CatalogConfig]
    local_path_fields: tuple[str, ...] = ()
    endpoints: Callable[[Mapping[str, Any]], list[Endpoint]] = no_endpoints
    endpoint_field: str = "non_field_errors"  # the configuration field a refused endpoint is reported under

    @property
    def secret_fields(self) -> SecretFields:
        """The model's secret fields by alias."""
        return secret_fields(self.config_model)

    def parse(self, configuration: Mapping[str, Any], *, stored: bool = False) -> CatalogConfig:
        """The configuration validated into the type's model (pydantic ValidationError if it does not fit);
        `stored`: read back from a store, so the local-path roots (checked on save) are not checked again."""
        return self.config_model.model_validate(dict(configuration), context=STORED if stored else None)

    def secret_values(self, plain: Mapping[str, Any]) -> list[str]:
        """The secret values of a plain configuration (for redaction)."""
        return secret_values(self.config_model, plain)

    def local_paths(self, plain: Mapping[str, Any]) -> dict[str, Path]:
        """The local data paths of a plain configuration, resolved, by field."""
        return local_paths(self.local_path_fields, plain)


def parsed(model: type[Config], configuration: Mapping[str, Any]) -> Config:
    """A stored `configuration` as `model` (typed access for a binding); pydantic ValidationError if it does not
    fit. The local-path roots are not checked again (see `check_local_path`)."""
    return model.model_validate(dict(configuration), context=STORED)
