"""Test-connection and metadata-browsing routes under /api/v1/teams/{team}/."""

from __future__ import annotations

urlpatterns: list = []
