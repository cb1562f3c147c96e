"""Catalog routes under /api/v1/teams/{team}/."""

from __future__ import annotations

from django.urls import include, path

urlpatterns: list = [
    path("", include("catalogs.metadata_urls")),
]
