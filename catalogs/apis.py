"""Catalog REST endpoints under /api/v1/teams/{team}/: types, CRUD with ETag/If-Match, history
(the declarative `apply/` is declarative/apis.py's).

Views stay thin: they parse headers and query parameters, call a service or selector and shape the response.
Team admins write; developers and viewers read. Secret values never appear in a response.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any

from django.core.paginator import InvalidPage, Paginator
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.exceptions import NotFound
from rest_framework.parsers import BaseParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from catalogs import serializers as s
from catalogs.models import Catalog
from catalogs.secrets import public_stored_configuration
from catalogs.selectors import (
    CATALOG_ROW_FIELDS,
    catalog_browsable,
    catalog_hidden,
    catalog_history,
    catalog_rows,
    catalog_types_list,
)
from catalogs.services import (
    IfMatch,
    InvalidInput,
    catalog_create,
    catalog_delete,
    catalog_put,
    catalog_update,
)
from catalogs.types import CATALOG_TYPES
from core.api.pagination import StandardPagination
from core.api.parsers import SafeJSONParser
from teams.permissions import TeamScopedMixin, request_user

logger = logging.getLogger("lakeport.catalogs")

_ETAG_PART = re.compile(r'^(?:W/)?"?(\d{1,10})"?$')
_FILTER_MAX = 200


def catalog_out(catalog: Catalog) -> dict[str, Any]:
    """The API body of a catalog: configuration without secret values, plus which secrets are set."""
    return _catalog_body(
        {f: getattr(catalog, f) for f in CATALOG_ROW_FIELDS},
        created_by=catalog.created_by.get_username() if catalog.created_by is not None else None,
        updated_by=catalog.user.get_username() if catalog.user is not None else None,
    )


def catalog_row_out(row: dict[str, Any]) -> dict[str, Any]:
    """`catalog_out` for a listing row from `catalog_rows`."""
    return _catalog_body(row, created_by=row["created_by_name"], updated_by=row["updated_by_name"])


def _catalog_body(row: dict[str, Any], *, created_by: str | None, updated_by: str | None) -> dict[str, Any]:
    configuration, secrets_set = public_stored_configuration(row["configuration"])
    return {
        "catalog_name": row["catalog_name"],
        "catalog_type": row["catalog_type"],
        "description": row["description"],
        "configuration": configuration,
        "secrets_set": secrets_set,
        "version": row["version"],
        "create_time": row["create_time"],
        "update_time": row["update_time"],
        "created_by": created_by,
        "updated_by": updated_by,
    }


def etag(catalog: Catalog) -> str:
    """The strong ETag of a catalog: its quoted version."""
    return f'"{catalog.version}"'


def _with_etag(response: Response, catalog: Catalog) -> Response:
    response["ETag"] = etag(catalog)
    return response


def parse_if_match(request: Request) -> IfMatch:
    """`If-Match` as the set of versions it names, "*", or None when absent; malformed → 400."""
    raw = request.headers.get("If-Match")
    if raw is None:
        return None
    if raw.strip() == "*":
        return "*"
    versions: set[int] = set()
    for part in raw.split(","):
        match = _ETAG_PART.match(part.strip())
        if match is None:
            raise InvalidInput('If-Match must be an ETag from this API, e.g. "3".',
                               {"If-Match": ['Expected an ETag such as "3" or *.']})
        versions.add(int(match.group(1)))
    return versions


class RowPagination(StandardPagination):
    """`?page=&page_size=` like StandardPagination (same body), for selectors that fetch a page and its total
    in one query: the view asks for the window, then builds the response from the rows and the total."""

    def window(self, request: Request) -> tuple[int, int]:
        """(offset, limit) of the requested page; a page that is not a positive number → 404 as in DRF."""
        self.page_size_value = self.get_page_size(request) or 50
        raw = request.query_params.get(self.page_query_param) or "1"
        if not raw.isdigit() or int(raw) < 1:
            raise NotFound(self.invalid_page_message)
        self.number = int(raw)
        return (self.number - 1) * self.page_size_value, self.page_size_value

    def response(self, request: Request, results: list[Any], total: int) -> Response:
        """The paginated body, written by StandardPagination's get_paginated_response as every other list's;
        a page past the end (but not page 1) is 404 as in DRF."""
        self.request = request
        # range(total) stands for the rows: the page's links need only their count, and slicing a range is free.
        paginator: Paginator[int] = Paginator(range(total), self.page_size_value)
        try:
            self.page = paginator.page(self.number)
        except InvalidPage:
            raise NotFound(self.invalid_page_message) from None
        return self.get_paginated_response(results)


class CatalogApiMixin(TeamScopedMixin):
    """Team-scoped (viewers read, admins write); bodies are JSON only."""

    parser_classes: Sequence[type[BaseParser]] = [SafeJSONParser]


class CatalogTypeListApi(CatalogApiMixin, APIView):
    """The catalog types with the JSON Schema of their configuration, for the UI to render forms."""

    pagination_class = StandardPagination  # documents the paginated envelope in the OpenAPI schema

    @extend_schema(responses=s.CatalogTypeOutputSerializer(many=True))
    def get(self, request: Request, team: str) -> Response:
        paginator = StandardPagination()
        page = paginator.paginate_queryset(catalog_types_list(), request, view=self)
        return paginator.get_paginated_response(s.CatalogTypeOutputSerializer(page, many=True).data)


class CatalogListApi(CatalogApiMixin, APIView):
    """List the team's catalogs (filtered, paginated); admins create one."""

    pagination_class = StandardPagination  # documents the paginated envelope in the OpenAPI schema

    @extend_schema(
        parameters=[
            OpenApiParameter("catalog_type", str, enum=list(CATALOG_TYPES)),
            OpenApiParameter("name_prefix", str),
            OpenApiParameter("search", str, description="Substring of the name or description."),
            OpenApiParameter("page", int),
            OpenApiParameter("page_size", int, description="At most 1000."),
        ],
        responses=s.CatalogOutputSerializer(many=True),
    )
    def get(self, request: Request, team: str) -> Response:
        params = {k: request.query_params.get(k) for k in ("catalog_type", "name_prefix", "search")}
        errors = {k: [f"At most {_FILTER_MAX} characters."] for k, v in params.items() if v and len(v) > _FILTER_MAX}
        if params["catalog_type"] and params["catalog_type"] not in CATALOG_TYPES:
            errors["catalog_type"] = [f"Unknown catalog type; use one of: {', '.join(CATALOG_TYPES)}."]
        if errors:
            raise InvalidInput(f"Invalid input: {', '.join(errors)}.", errors)
        paginator = RowPagination()
        offset, limit = paginator.window(request)
        rows, total = catalog_rows(team=self.team, offset=offset, limit=limit, **params,
                                   hidden=catalog_hidden(team=self.team, user=request.user))
        return paginator.response(request, [catalog_row_out(r) for r in rows], total)

    @extend_schema(request=s.CatalogInputSerializer, responses={201: s.CatalogOutputSerializer})
    def post(self, request: Request, team: str) -> Response:
        catalog = catalog_create(team=self.team, actor=request_user(request), data=request.data)
        response = Response(catalog_out(catalog), status=status.HTTP_201_CREATED)
        response["Location"] = request.build_absolute_uri(f"{catalog.catalog_name}/")
        return _with_etag(response, catalog)


class CatalogDetailApi(CatalogApiMixin, APIView):
    """Read, create-or-replace (PUT), patch or delete one catalog; writes honour If-Match (412 when stale)."""

    @extend_schema(responses={200: s.CatalogOutputSerializer, 304: None},
                   parameters=[OpenApiParameter("If-None-Match", OpenApiTypes.STR, OpenApiParameter.HEADER,
                                                description="An ETag from this API: 304 while it is current.")])
    def get(self, request: Request, team: str, name: str) -> Response:
        catalog, _ = catalog_browsable(team=self.team, name=name, user=request.user)  # hidden: 404 as a missing one
        if request.headers.get("If-None-Match", "").strip() == etag(catalog):
            return _with_etag(Response(status=status.HTTP_304_NOT_MODIFIED), catalog)
        return _with_etag(Response(catalog_out(catalog)), catalog)

    @extend_schema(
        request=s.CatalogInputSerializer,
        responses={200: s.CatalogOutputSerializer, 201: s.CatalogOutputSerializer},
        parameters=[OpenApiParameter("If-Match", OpenApiTypes.STR, OpenApiParameter.HEADER),
                    OpenApiParameter("If-None-Match", OpenApiTypes.STR, OpenApiParameter.HEADER,
                                     description="`*`: only create, never replace.")],
    )
    def put(self, request: Request, team: str, name: str) -> Response:
        write = catalog_put(
            team=self.team, name=name, actor=request_user(request), data=request.data, if_match=parse_if_match(request),
            if_none_match=request.headers.get("If-None-Match", "").strip() == "*",
        )
        code = status.HTTP_201_CREATED if write.created else status.HTTP_200_OK
        return _with_etag(Response(catalog_out(write.catalog), status=code), write.catalog)

    @extend_schema(
        request=s.CatalogInputSerializer(partial=True),
        responses=s.CatalogOutputSerializer,
        parameters=[OpenApiParameter("If-Match", OpenApiTypes.STR, OpenApiParameter.HEADER)],
    )
    def patch(self, request: Request, team: str, name: str) -> Response:
        write = catalog_update(team=self.team, name=name, actor=request_user(request), data=request.data, partial=True,
                               if_match=parse_if_match(request))
        return _with_etag(Response(catalog_out(write.catalog)), write.catalog)

    @extend_schema(responses={204: None},
                   parameters=[OpenApiParameter("If-Match", OpenApiTypes.STR, OpenApiParameter.HEADER)])
    def delete(self, request: Request, team: str, name: str) -> Response:
        catalog_delete(team=self.team, name=name, actor=request_user(request), if_match=parse_if_match(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class CatalogHistoryApi(CatalogApiMixin, APIView):
    """The audit trail of one catalog, newest first; still there after the catalog is deleted."""

    pagination_class = StandardPagination  # documents the paginated envelope in the OpenAPI schema

    @extend_schema(responses=s.CatalogChangeOutputSerializer(many=True))
    def get(self, request: Request, team: str, name: str) -> Response:
        paginator = StandardPagination()
        page = paginator.paginate_queryset(catalog_history(team=self.team, name=name), request, view=self)
        return paginator.get_paginated_response(s.CatalogChangeOutputSerializer(page or [], many=True).data)
