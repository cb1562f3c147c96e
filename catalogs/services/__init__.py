"""Writes of catalogs: CRUD with optimistic locking, declarative apply, secret rotation, the audit trail."""

from __future__ import annotations

from catalogs.services.apply import ApplyResult, apply_document_entries, catalogs_apply
from catalogs.services.crud import (
    CatalogWrite,
    IfMatch,
    catalog_create,
    catalog_delete,
    catalog_put,
    catalog_update,
)
from catalogs.services.rotation import RotationResult, catalog_secrets_rotate
from catalogs.services.spec import CatalogSpec, catalog_spec_build, config_error_details
from core.errors import InvalidInput

__all__ = [
    "ApplyResult",
    "CatalogSpec",
    "CatalogWrite",
    "IfMatch",
    "InvalidInput",
    "RotationResult",
    "apply_document_entries",
    "catalog_create",
    "catalog_delete",
    "catalog_put",
    "catalog_secrets_rotate",
    "catalog_spec_build",
    "catalog_update",
    "catalogs_apply",
    "config_error_details",
]
