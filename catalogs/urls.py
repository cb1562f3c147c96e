"""Catalog routes under /api/v1/teams/{team}/."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, include, path

from catalogs import apis, mview_apis

urlpatterns: list[URLPattern | URLResolver] = [
    # First: test-connection and metadata routes (catalogs/test-connection/, catalogs/{name}/databases/…).
    path("", include("catalogs.metadata_urls")),
    path("catalog-types/", apis.CatalogTypeListApi.as_view(), name="catalog-type-list"),
    path("catalogs/", apis.CatalogListApi.as_view(), name="catalog-list"),
    path("catalogs/<str:name>/", apis.CatalogDetailApi.as_view(), name="catalog-detail"),
    path("catalogs/<str:name>/history/", apis.CatalogHistoryApi.as_view(), name="catalog-history"),
    path("catalogs/<str:name>/materialized-views/", mview_apis.MaterializedViewListApi.as_view(),
         name="materialized-view-list"),
    path("catalogs/<str:name>/materialized-views/<str:database>/<str:view>/",
         mview_apis.MaterializedViewDetailApi.as_view(), name="materialized-view-detail"),
]
