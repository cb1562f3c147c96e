"""Test-connection and metadata-browsing routes under /api/v1/teams/{team}/.

Database and table segments use the `path` converter on purpose: a name carrying an encoded `/` still
reaches the view and is refused with a 400 (not a confusing 404). The table route comes first so that a
table literally named `tables` resolves.
"""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from catalogs import metadata_apis

urlpatterns: list[URLPattern | URLResolver] = [
    path(
        "catalogs/test-connection/",
        metadata_apis.CatalogConfigTestConnectionApi.as_view(),
        name="catalog-config-test-connection",
    ),
    path(
        "catalogs/<str:name>/test-connection/",
        metadata_apis.CatalogTestConnectionApi.as_view(),
        name="catalog-test-connection",
    ),
    path("catalogs/<str:name>/databases/", metadata_apis.CatalogDatabaseListApi.as_view(), name="catalog-databases"),
    path(
        "catalogs/<str:name>/databases/<path:database>/tables/<path:table>/sample/",
        metadata_apis.CatalogTableSampleApi.as_view(),
        name="catalog-table-sample",
    ),
    path(
        "catalogs/<str:name>/databases/<path:database>/tables/<path:table>/",
        metadata_apis.CatalogTableDetailApi.as_view(),
        name="catalog-table",
    ),
    path(
        "catalogs/<str:name>/databases/<path:database>/tables/",
        metadata_apis.CatalogTableListApi.as_view(),
        name="catalog-tables",
    ),
]
