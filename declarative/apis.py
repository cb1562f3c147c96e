"""`POST /api/v1/teams/{team}/apply/`: a declarative document (JSON or YAML) made true for the team, all or nothing.

Its operation id stays `catalogs_apply` (core/api/schema.py), so the generated clients keep their name for it."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api.parsers import SafeJSONParser
from core.errors import InvalidInput
from declarative import serializers as s
from declarative.documents import DocumentError, load_document
from declarative.services import document_apply
from teams.permissions import TeamScopedMixin, request_user

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"", "0", "false", "no", "off"}


def _flag(request: Request, name: str, body: Any) -> bool:
    value: Any = request.query_params.get(name)
    if value is None and isinstance(body, dict):
        value = body.get(name)
    if value is None or isinstance(value, bool):
        return bool(value)
    if str(value).strip().lower() in _TRUE:
        return True
    if str(value).strip().lower() in _FALSE:
        return False
    raise InvalidInput(f"Invalid input: {name}.", {name: ["Expected true or false."]})


class YamlParser(BaseParser):
    """`Content-Type: application/yaml` bodies (a declarative catalogs file as is)."""

    media_type = "application/yaml"

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            text = stream.read().decode("utf-8") if stream is not None else ""
            return load_document(text)
        except UnicodeDecodeError as exc:
            raise ParseError("The body is not UTF-8 text.") from exc
        except DocumentError as exc:
            raise ParseError(str(exc)) from exc


class XYamlParser(YamlParser):
    media_type = "application/x-yaml"


class TextYamlParser(YamlParser):
    media_type = "text/yaml"


class ApplyApi(TeamScopedMixin, APIView):
    """Make the team's catalogs match a declarative document (JSON or YAML), all or nothing."""

    parser_classes = [SafeJSONParser, YamlParser, XYamlParser, TextYamlParser]

    @extend_schema(
        request=s.ApplyInputSerializer,
        responses=s.ApplyResultSerializer,
        parameters=[OpenApiParameter("prune", bool), OpenApiParameter("dry_run", bool)],
    )
    def post(self, request: Request, team: str) -> Response:
        document = request.data
        result = document_apply(team=self.team, actor=request_user(request), document=document,
                                prune=_flag(request, "prune", document), dry_run=_flag(request, "dry_run", document))
        return Response(result.as_dict())
