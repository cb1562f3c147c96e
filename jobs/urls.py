"""Job and run routes under /api/v1/teams/{team}/."""

from __future__ import annotations

urlpatterns: list = []
