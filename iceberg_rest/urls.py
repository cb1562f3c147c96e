"""Routes of the Iceberg REST catalog below `/api/iceberg/<team>/<catalog>/` (the spec's base path; no prefix)."""

from __future__ import annotations

from django.urls import URLPattern, path, re_path

from iceberg_rest import views

urlpatterns: list[URLPattern] = [
    path("v1/config", views.ConfigApi.as_view(), name="iceberg-config"),
    path("v1/oauth/tokens", views.OAuthTokensApi.as_view(), name="iceberg-oauth-tokens"),
    path("v1/namespaces", views.NamespacesApi.as_view(), name="iceberg-namespaces"),
    path("v1/namespaces/<str:namespace>", views.NamespaceApi.as_view(), name="iceberg-namespace"),
    path("v1/namespaces/<str:namespace>/properties", views.NamespacePropertiesApi.as_view(),
         name="iceberg-namespace-properties"),
    path("v1/namespaces/<str:namespace>/tables", views.TablesApi.as_view(), name="iceberg-tables"),
    path("v1/namespaces/<str:namespace>/tables/<str:table>", views.TableApi.as_view(), name="iceberg-table"),
    path("v1/namespaces/<str:namespace>/tables/<str:table>/metrics", views.TableMetricsApi.as_view(),
         name="iceberg-table-metrics"),
    path("v1/tables/rename", views.RenameApi.as_view(), name="iceberg-rename"),
    re_path(r"^.*$", views.not_served, name="iceberg-not-served"),
]
