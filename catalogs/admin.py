"""Read-only Django admin views of catalogs and their audit trail (writes go through the API's services, which
validate, seal secrets, bump versions and record history)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from catalogs.models import Catalog, CatalogChange


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # a delete here would skip the audit trail


@admin.register(Catalog)
class CatalogAdmin(ReadOnlyAdmin):
    list_display = ("catalog_name", "team", "catalog_type", "version", "update_time", "user")
    list_filter = ("catalog_type", "team")
    search_fields = ("catalog_name", "description")
    list_select_related = ("team", "user")
    exclude = ("configuration",)  # sealed JSON: nothing an operator can read or should edit here


@admin.register(CatalogChange)
class CatalogChangeAdmin(ReadOnlyAdmin):
    list_display = ("time", "team", "catalog_name", "action", "version", "actor_name")
    list_filter = ("action", "team")
    search_fields = ("catalog_name", "actor_name")
    list_select_related = ("team",)
