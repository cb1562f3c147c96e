"""Catalog routes under /api/v1/teams/{team}/."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, include, path

from catalogs import apis

urlpatterns: list[URLPattern | URLResolver] = [
    # First: test-connection and metadata routes (catalogs/test-connection/, catalogs/{name}/databases/…).
    path("", include("catalogs.metadata_urls")),
    path("catalog-types/", apis.CatalogTypeListApi.as_view(), name="catalog-type-list"),
    path("catalogs/", apis.CatalogListApi.as_view(), name="catalog-list"),
    path("catalogs/<str:name>/", apis.CatalogDetailApi.as_view(), name="catalog-detail"),
    path("catalogs/<str:name>/history/", apis.CatalogHistoryApi.as_view(), name="catalog-history"),
]
