"""Declarative apply under /api/v1/teams/{team}/."""

from __future__ import annotations

from django.urls import URLPattern, path

from declarative import apis

urlpatterns: list[URLPattern] = [
    path("apply/", apis.ApplyApi.as_view(), name="catalog-apply"),
]
