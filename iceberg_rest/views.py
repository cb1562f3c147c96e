"""Thin views of the Iceberg REST catalog (`/api/iceberg/<team>/<catalog>/v1/…`) over iceberg_rest/services.py.

Each view declares the role each method needs (viewer reads, developer writes, admin drops), and in a catalog
governed by grants checks the privilege on the namespace or table it touches (iceberg_rest/access.py); every answer
that is not a success is the spec's error model `{"error": {"message", "type", "code"}}` — these routes follow the
Iceberg REST OpenAPI document (docs/iceberg-rest/), not Lakeport's own API conventions.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any, ClassVar

from django.contrib.auth.models import User
from django.http import HttpRequest, JsonResponse
from rest_framework import exceptions
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.parsers import BaseParser, FormParser, JSONParser
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.errors import Conflict, DomainError, InvalidInput, NotFound
from iceberg_rest import services
from iceberg_rest.access import authorize, refuse_protected
from iceberg_rest.auth import IcebergTokenAuthentication, OAuthError, oauth_token
from iceberg_rest.services import RestCatalogTarget, namespace_key, table_key
from lakeport_engine.access import BROWSE, CREATE, MANAGE, MODIFY, SELECT
from teams.models import Role
from teams.selectors import role_allows

logger = logging.getLogger("lakeport.iceberg_rest")

_STATUS = ((NotFound, 404), (Conflict, 409), (InvalidInput, 400))


def error_body(status: int, kind: str, message: str) -> dict[str, Any]:
    """The spec's ErrorModel."""
    return {"error": {"message": message, "type": kind, "code": status}}


class _JSONOnly(BaseContentNegotiation):
    # the protocol is JSON whatever a client's Accept header says
    def select_parser(self, request: Request, parsers: Iterable[BaseParser]) -> BaseParser | None:
        content_type = (request.content_type or "").split(";")[0].strip()
        candidates = list(parsers)
        return next((p for p in candidates if p.media_type == content_type), candidates[0] if candidates else None)

    def select_renderer(self, request: Request, renderers: Iterable[BaseRenderer],
                        format_suffix: str | None = None) -> tuple[BaseRenderer, str]:
        first = next(iter(renderers))
        return first, first.media_type


class IcebergApi(APIView):
    """Base of every route: bearer authentication, the team's role per method, the spec's error model."""

    authentication_classes = [IcebergTokenAuthentication]
    permission_classes = []
    parser_classes = [JSONParser]
    renderer_classes = [JSONRenderer]
    content_negotiation_class = _JSONOnly
    throttle_classes = []
    schema = None  # documented by the Iceberg spec, not by Lakeport's OpenAPI schema
    roles: ClassVar[dict[str, str]] = {}  # method → the least role it needs
    target: RestCatalogTarget

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        """Authenticate, find the catalog (404 for another team's, a missing or a non-iceberg one), check the role."""
        super().initial(request, *args, **kwargs)
        user = request.user
        if not isinstance(user, User) or not user.is_authenticated:
            raise exceptions.NotAuthenticated()
        self.target = services.rest_target(user=user, team_name=kwargs["team"], catalog_name=kwargs["catalog"])
        required = self.roles.get((request.method or "").lower(), Role.ADMIN)
        if not role_allows(role=self.target.role, required=required):
            raise exceptions.PermissionDenied(f"This needs the '{required}' role in team "
                                              f"'{self.target.team.name}'; you are '{self.target.role}'.")

    def handle_exception(self, exc: Exception) -> Response:
        """Every refusal as the spec's ErrorModel (401 with a WWW-Authenticate challenge)."""
        if isinstance(exc, (exceptions.NotAuthenticated, exceptions.AuthenticationFailed)):
            response = Response(error_body(401, "NotAuthorizedException", str(exc.detail)), status=401)
            response["WWW-Authenticate"] = 'Bearer realm="lakeport-iceberg"'
            return response
        if isinstance(exc, exceptions.PermissionDenied):
            return Response(error_body(403, "ForbiddenException", str(exc.detail)), status=403)
        if isinstance(exc, (exceptions.ParseError, exceptions.UnsupportedMediaType)):
            return Response(error_body(400, "BadRequestException", f"Malformed request body: {exc.detail}"),
                            status=400)
        if isinstance(exc, exceptions.MethodNotAllowed):
            return Response(error_body(405, "MethodNotAllowedException", str(exc.detail)), status=405)
        if isinstance(exc, DomainError):
            status = next((s for cls, s in _STATUS if isinstance(exc, cls)), 406)
            kind = getattr(exc, "iceberg_type", {404: "NotFoundException", 409: "AlreadyExistsException",
                                                 400: "BadRequestException"}.get(status, "UnsupportedOperationException"))
            return Response(error_body(status, kind, exc.message), status=status)
        logger.exception("iceberg_rest.failed")
        return Response(error_body(500, "ServiceFailureException", "The catalog failed to carry out the request; "
                                   "the platform's log has the details."), status=500)

    def need(self, privilege: str, namespace: str | None = None, table: str | None = None) -> None:
        """The caller's grants allow `privilege` on the catalog, a namespace or a table of it (404/403 otherwise)."""
        parts = [self.target.catalog]
        if namespace is not None:
            parts.append(namespace_key(namespace))
        if table is not None:
            parts.append(table_key(table))
        authorize(self.target.policy, privilege, tuple(parts))

    def unprotected(self, namespace: str, table: str) -> None:
        """403 for a table with a row filter or column mask (its files would bypass them)."""
        refuse_protected(team=self.target.team,
                         securable=(self.target.catalog, namespace_key(namespace), table_key(table)))

    def _body(self, request: Request) -> dict[str, Any]:
        data = request.data
        if not isinstance(data, dict):
            raise exceptions.ParseError("a JSON object is expected")
        return data


class ConfigApi(IcebergApi):
    """`GET /v1/config`."""

    roles = {"get": Role.VIEWER}

    def get(self, request: Request, team: str, catalog: str) -> Response:
        self.need(BROWSE)
        return Response(services.catalog_config(self.target))


class NamespacesApi(IcebergApi):
    """`GET` list, `POST` create namespaces."""

    roles = {"get": Role.VIEWER, "post": Role.DEVELOPER}

    def get(self, request: Request, team: str, catalog: str) -> Response:
        q = request.query_params
        self.need(BROWSE)
        listed = services.namespaces_list(self.target, parent=q.get("parent"), page_token=q.get("pageToken"),
                                          page_size=q.get("pageSize"))
        policy = self.target.policy  # a page may come back shorter: what the caller may not browse is left out
        listed["namespaces"] = [n for n in listed["namespaces"] if policy.allows(BROWSE, (self.target.catalog, *n))]
        return Response(listed)

    def post(self, request: Request, team: str, catalog: str) -> Response:
        self.need(CREATE)
        return Response(services.namespace_create(self.target, self._body(request)))


class NamespaceApi(IcebergApi):
    """`GET` load, `HEAD` exists, `DELETE` drop a namespace."""

    roles = {"get": Role.VIEWER, "head": Role.VIEWER, "delete": Role.ADMIN}

    def get(self, request: Request, team: str, catalog: str, namespace: str) -> Response:
        self.need(BROWSE, namespace)
        return Response(services.namespace_load(self.target, namespace))

    def head(self, request: Request, team: str, catalog: str, namespace: str) -> Response:
        self.need(BROWSE, namespace)
        services.namespace_exists(self.target, namespace)
        return Response(status=204)

    def delete(self, request: Request, team: str, catalog: str, namespace: str) -> Response:
        self.need(MANAGE, namespace)
        services.namespace_drop(self.target, namespace)
        return Response(status=204)


class NamespacePropertiesApi(IcebergApi):
    """`POST` set and remove a namespace's properties."""

    roles = {"post": Role.DEVELOPER}

    def post(self, request: Request, team: str, catalog: str, namespace: str) -> Response:
        self.need(MANAGE, namespace)
        return Response(services.namespace_properties_update(self.target, namespace, self._body(request)))


class TablesApi(IcebergApi):
    """`GET` list, `POST` create (or stage-create) tables."""

    roles = {"get": Role.VIEWER, "post": Role.DEVELOPER}

    def get(self, request: Request, team: str, catalog: str, namespace: str) -> Response:
        q = request.query_params
        self.need(BROWSE, namespace)
        listed = services.tables_list(self.target, namespace, page_token=q.get("pageToken"),
                                      page_size=q.get("pageSize"))
        policy = self.target.policy
        listed["identifiers"] = [i for i in listed["identifiers"]
                                 if policy.allows(BROWSE, (self.target.catalog, *i["namespace"], i["name"]))]
        return Response(listed)

    def post(self, request: Request, team: str, catalog: str, namespace: str) -> Response:
        self.need(CREATE, namespace)
        return Response(services.table_create(self.target, namespace, self._body(request)))


class TableApi(IcebergApi):
    """`GET` load, `HEAD` exists, `POST` commit, `DELETE` drop (`purgeRequested`) a table."""

    roles = {"get": Role.VIEWER, "head": Role.VIEWER, "post": Role.DEVELOPER, "delete": Role.ADMIN}

    def get(self, request: Request, team: str, catalog: str, namespace: str, table: str) -> Response:
        self.need(SELECT, namespace, table)
        self.unprotected(namespace, table)
        return Response(services.table_load(self.target, namespace, table))

    def head(self, request: Request, team: str, catalog: str, namespace: str, table: str) -> Response:
        self.need(BROWSE, namespace, table)
        services.table_exists(self.target, namespace, table)
        return Response(status=204)

    def post(self, request: Request, team: str, catalog: str, namespace: str, table: str) -> Response:
        # a staged create's commit creates the table: CREATE on its namespace; any other commit changes rows
        body = self._body(request)
        requirements = body.get("requirements")  # checked by the service; any shape may arrive here
        creating = isinstance(requirements, list) and any(
            isinstance(r, dict) and r.get("type") == "assert-create" for r in requirements)
        if creating:
            self.need(CREATE, namespace)
        else:
            self.need(MODIFY, namespace, table)
        self.unprotected(namespace, table)
        return Response(services.table_commit(self.target, namespace, table, body))

    def delete(self, request: Request, team: str, catalog: str, namespace: str, table: str) -> Response:
        self.need(MANAGE, namespace, table)
        purge = request.query_params.get("purgeRequested", "false").lower() == "true"
        services.table_drop(self.target, namespace, table, purge=purge)
        return Response(status=204)


class TableMetricsApi(IcebergApi):
    """`POST …/tables/{table}/metrics`: clients' scan and commit reports, accepted and not kept (Java clients send
    them after every scan; refusing would only fill their logs)."""

    roles = {"post": Role.VIEWER}

    def post(self, request: Request, team: str, catalog: str, namespace: str, table: str) -> Response:
        self.need(BROWSE, namespace, table)
        services.table_exists(self.target, namespace, table)
        return Response(status=204)


class RenameApi(IcebergApi):
    """`POST /v1/tables/rename`."""

    roles = {"post": Role.DEVELOPER}

    def post(self, request: Request, team: str, catalog: str) -> Response:
        body = self._body(request)
        source, destination = services.rename_identifiers(body)
        self.need(MANAGE, *source)
        self.need(CREATE, destination[0])
        self.unprotected(*source)
        services.table_rename(self.target, body)
        return Response(status=204)


class OAuthTokensApi(APIView):
    """`POST /v1/oauth/tokens`: a short-lived access token for this catalog from a Lakeport API token."""

    authentication_classes = []
    permission_classes = []
    parser_classes = [FormParser]
    renderer_classes = [JSONRenderer]
    content_negotiation_class = _JSONOnly
    throttle_classes = []
    schema = None

    def post(self, request: Request, team: str, catalog: str) -> Response:
        try:
            return Response(oauth_token(form=request.data, team=team, catalog=catalog))
        except OAuthError as exc:
            return Response({"error": exc.error, "error_description": exc.description}, status=exc.status)

    def handle_exception(self, exc: Exception) -> Response:
        """Malformed token requests answer the OAuth error body."""
        if isinstance(exc, exceptions.APIException):
            return Response({"error": "invalid_request", "error_description": str(exc.detail)},
                            status=400 if exc.status_code != 405 else 405)
        return super().handle_exception(exc)


def not_served(request: HttpRequest, **kwargs: Any) -> JsonResponse:
    """Any other path under a catalog's base: the spec's error model (views, register, scan planning …)."""
    return JsonResponse(error_body(404, "NotFoundException", "Not a route of Lakeport's Iceberg REST catalog; "
                                   "GET <base>/v1/config lists the endpoints served."), status=404)
