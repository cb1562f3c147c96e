"""OpenAPI generation tweaks shared by every view."""

from __future__ import annotations

import re
from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema


class LakeportAutoSchema(AutoSchema):
    """Name nested serializers after their view (`TokenListApi.InputSerializer` → `TokenListApiInput`),
    so the views' conventional `InputSerializer`/`OutputSerializer` classes never collide in components."""

    def get_operation_id(self) -> str:
        """`<view>_<method>` in snake case (e.g. `catalog_list_api_get`): unique per view and method, so list
        and detail APIViews on neighbouring paths never collide."""
        view_name = re.sub(r"(?<!^)(?=[A-Z])", "_", self.view.__class__.__name__).lower()
        return f"{view_name}_{self.method.lower()}"

    def get_serializer_name(self, serializer: Any, direction: str) -> str:
        cls = serializer.__class__
        name = cls.__qualname__.replace(".", "") if "." in cls.__qualname__ else cls.__name__
        return name.removesuffix("Serializer") if name.endswith("Serializer") and len(name) > 10 else name


class BearerTokenScheme(OpenApiAuthenticationExtension):
    """Documents `Authorization: Bearer <token>` for REST integrations."""

    target_class = "teams.authentication.BearerTokenAuthentication"
    name = "bearerAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return {"type": "http", "scheme": "bearer", "description": "An API token from /api/v1/tokens/."}
