"""REST endpoints: session login, the current user, teams, members and API tokens."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import authenticate, get_user_model, login, logout
from django.middleware.csrf import get_token
from django.shortcuts import get_object_or_404
from django.utils.decorators import method_decorator
from django.views.decorators.csrf import ensure_csrf_cookie
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, serializers, status
from rest_framework.authentication import BaseAuthentication
from rest_framework.permissions import AllowAny, BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api.pagination import StandardPagination
from core.api.validation import validated
from teams.models import TEAM_NAME_RE, ApiToken, Membership, Role, Team
from teams.permissions import IsPlatformAdmin, TeamScopedMixin, request_user
from teams.selectors import roles_by_team, teams_visible_to
from teams.services import (
    api_token_create,
    api_token_revoke,
    membership_remove,
    membership_set,
    team_create,
)
from teams.throttling import lockout_message, lockout_seconds


# ---- auth -------------------------------------------------------------------------------------------
# No docstring: it would become the schema's description. ref_name keeps the component name clients import.
class CsrfOutput(serializers.Serializer[Any]):
    csrf_token = serializers.CharField()

    class Meta:
        ref_name = "Csrf"


class CsrfApi(APIView):
    """Set the CSRF cookie for the browser app."""

    permission_classes = [AllowAny]
    authentication_classes: list[type[BaseAuthentication]] = []

    @extend_schema(responses=CsrfOutput)
    @method_decorator(ensure_csrf_cookie)
    def get(self, request: Request) -> Response:
        return Response(CsrfOutput({"csrf_token": get_token(request)}).data)


# ---- the signed-in user ------------------------------------------------------------------------------
class TeamRoleOutput(serializers.Serializer[Any]):
    name = serializers.CharField()
    role = serializers.ChoiceField(choices=Role.choices, help_text="A platform admin is admin of every team.")


class MyTeams(serializers.ListSerializer[Any]):
    """The teams the user sees, with their role in each (the field's source is the user; admins see every team)."""

    def to_representation(self, data: Any) -> list[dict[str, Any]]:
        roles = roles_by_team(user=data)
        return super().to_representation([
            {"name": t.name, "role": Role.ADMIN if data.is_superuser else roles.get(t.id)}
            for t in teams_visible_to(user=data)
        ])


# Named *Serializer so its schema component stays `Me`, the model name generated clients already import.
class MeSerializer(serializers.Serializer[Any]):
    """The signed-in user with the teams they see."""

    username = serializers.CharField()
    is_platform_admin = serializers.BooleanField(source="is_superuser")
    teams = MyTeams(child=TeamRoleOutput(), source="*", help_text="The teams the user sees, with their role in each.")


# No docstring: it would become the schema's description. ref_name keeps the component name clients import.
class SessionOutput(serializers.Serializer[Any]):
    authenticated = serializers.BooleanField()
    user = MeSerializer(allow_null=True)

    class Meta:
        ref_name = "Session"


class LoginApi(APIView):
    """Start a browser session."""

    permission_classes = [AllowAny]

    class InputSerializer(serializers.Serializer[Any]):
        username = serializers.CharField(max_length=150)
        password = serializers.CharField(max_length=256, write_only=True)

    @extend_schema(request=InputSerializer, responses={200: MeSerializer})
    def post(self, request: Request) -> Response:
        data = validated(self.InputSerializer, request.data)
        user = authenticate(request._request, username=data["username"], password=data["password"])
        if user is None and getattr(request._request, "axes_locked_out", False):
            raise exceptions.Throttled(wait=lockout_seconds(), detail=lockout_message())
        if user is None:
            raise exceptions.AuthenticationFailed("Wrong username or password.")
        login(request._request, user)
        return Response(MeSerializer(user).data)


class LogoutApi(APIView):
    """End the browser session."""

    permission_classes = [AllowAny]

    @extend_schema(request=None, responses={204: None})
    def post(self, request: Request) -> Response:
        logout(request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class SessionApi(APIView):
    """Who is signed in, answered 200 for everyone: the browser app's first call, so a signed-out visit logs no
    failed request (a 401 from /me/ shows up as a console error)."""

    permission_classes = [AllowAny]

    @extend_schema(responses=SessionOutput)
    def get(self, request: Request) -> Response:
        user = request.user if request.user and request.user.is_authenticated else None
        return Response(SessionOutput({"authenticated": user is not None, "user": user}).data)


class MeApi(APIView):
    """The signed-in user with their teams and roles."""

    @extend_schema(responses=MeSerializer)
    def get(self, request: Request) -> Response:
        return Response(MeSerializer(request.user).data)


# ---- teams ------------------------------------------------------------------------------------------
class CallerRole(serializers.CharField):
    """The caller's role in the team (its source is the team): context["roles"] maps team id → role."""

    def to_representation(self, value: Team) -> str | None:  # type: ignore[override]  # its source is a Team
        role: str | None = self.context["roles"].get(value.id)
        return role


class TeamOutputSerializer(serializers.Serializer[Any]):
    name = serializers.CharField()
    description = serializers.CharField()
    created_at = serializers.DateTimeField()
    role = CallerRole(source="*", allow_null=True)


class TeamListApi(APIView):
    """List the caller's teams; platform admins create teams."""

    pagination_class = StandardPagination  # documents the paginated envelope in the OpenAPI schema

    class InputSerializer(serializers.Serializer[Any]):
        name = serializers.RegexField(TEAM_NAME_RE, max_length=63)
        description = serializers.CharField(max_length=500, required=False, allow_blank=True, default="")

    def get_permissions(self) -> list[BasePermission]:
        return [IsAuthenticated(), IsPlatformAdmin()] if self.request.method == "POST" else [IsAuthenticated()]

    @extend_schema(responses=TeamOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        user = request_user(request)
        roles = roles_by_team(user=user)
        paginator = StandardPagination()
        page = paginator.paginate_queryset(teams_visible_to(user=user), request, view=self) or []
        if user.is_superuser:
            roles = {t.id: Role.ADMIN for t in page}
        return paginator.get_paginated_response(TeamOutputSerializer(page, many=True, context={"roles": roles}).data)

    @extend_schema(request=InputSerializer, responses={201: TeamOutputSerializer})
    def post(self, request: Request) -> Response:
        data = validated(self.InputSerializer, request.data)
        team = team_create(name=data["name"], description=data["description"])
        body = TeamOutputSerializer(team, context={"roles": {team.id: Role.ADMIN}}).data
        return Response(body, status=status.HTTP_201_CREATED)


class TeamDetailApi(TeamScopedMixin, APIView):
    """One team, as seen by a member."""

    @extend_schema(responses=TeamOutputSerializer)
    def get(self, request: Request, team: str) -> Response:
        return Response(TeamOutputSerializer(self.team, context={"roles": {self.team.id: self.team_role}}).data)


# ---- members ----------------------------------------------------------------------------------------
class MemberOutputSerializer(serializers.Serializer[Any]):
    username = serializers.CharField(source="user.username")
    role = serializers.ChoiceField(choices=Role.choices)
    created_at = serializers.DateTimeField()


class MemberListApi(TeamScopedMixin, APIView):
    """Members of a team; team admins add members."""

    pagination_class = StandardPagination  # documents the paginated envelope in the OpenAPI schema

    class InputSerializer(serializers.Serializer[Any]):
        username = serializers.CharField(max_length=150)
        role = serializers.ChoiceField(choices=Role.choices)

    @extend_schema(responses=MemberOutputSerializer(many=True))
    def get(self, request: Request, team: str) -> Response:
        qs = Membership.objects.filter(team=self.team).select_related("user").order_by("user__username")
        paginator = StandardPagination()
        page = paginator.paginate_queryset(qs, request, view=self)
        return paginator.get_paginated_response(MemberOutputSerializer(page, many=True).data)

    @extend_schema(request=InputSerializer, responses={201: MemberOutputSerializer})
    def post(self, request: Request, team: str) -> Response:
        data = validated(self.InputSerializer, request.data)
        user = get_user_model().objects.filter(username=data["username"]).first()
        if user is None:
            raise exceptions.ValidationError({"username": [f"No user named '{data['username']}'."]})
        membership = membership_set(team=self.team, user=user, role=data["role"])
        return Response(MemberOutputSerializer(membership).data, status=status.HTTP_201_CREATED)


class MemberDetailApi(TeamScopedMixin, APIView):
    """Change a member's role or remove them (team admins)."""

    class InputSerializer(serializers.Serializer[Any]):
        role = serializers.ChoiceField(choices=Role.choices)

    def _membership(self, username: str) -> Membership:
        return get_object_or_404(Membership.objects.select_related("user"), team=self.team, user__username=username)

    @extend_schema(responses=MemberOutputSerializer)
    def get(self, request: Request, team: str, username: str) -> Response:
        return Response(MemberOutputSerializer(self._membership(username)).data)

    @extend_schema(request=InputSerializer, responses=MemberOutputSerializer)
    def patch(self, request: Request, team: str, username: str) -> Response:
        membership = self._membership(username)
        data = validated(self.InputSerializer, request.data)
        membership = membership_set(team=self.team, user=membership.user, role=data["role"])
        return Response(MemberOutputSerializer(membership).data)

    @extend_schema(responses={204: None})
    def delete(self, request: Request, team: str, username: str) -> Response:
        membership_remove(membership=self._membership(username))
        return Response(status=status.HTTP_204_NO_CONTENT)


# ---- tokens -----------------------------------------------------------------------------------------
class TokenOutputSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField()
    prefix = serializers.CharField()
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField(allow_null=True)
    revoked_at = serializers.DateTimeField(allow_null=True)
    last_used_at = serializers.DateTimeField(allow_null=True)
    active = serializers.BooleanField(source="is_active")


class TokenIssuedOutputSerializer(TokenOutputSerializer):
    token = serializers.CharField(source="raw", help_text="The token's value: shown only in this answer, store it now.")

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        # It writes an IssuedToken: the stored token's fields come from `.token`, the value (never stored) from `.raw`.
        fields = super().get_fields()
        for name, field in fields.items():
            if name != "token":
                field.source = f"token.{field.source or name}"
        return fields


class TokenListApi(APIView):
    """The caller's API tokens; creating one returns its value once."""

    pagination_class = StandardPagination  # documents the paginated envelope in the OpenAPI schema

    class InputSerializer(serializers.Serializer[Any]):
        name = serializers.CharField(max_length=100)
        expires_in_days = serializers.IntegerField(min_value=1, max_value=3650, required=False, allow_null=True)

    @extend_schema(responses=TokenOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        paginator = StandardPagination()
        page = paginator.paginate_queryset(ApiToken.objects.filter(user=request_user(request)), request, view=self)
        return paginator.get_paginated_response(TokenOutputSerializer(page, many=True).data)

    @extend_schema(request=InputSerializer, responses={201: TokenIssuedOutputSerializer})
    def post(self, request: Request) -> Response:
        data = validated(self.InputSerializer, request.data)
        issued = api_token_create(user=request_user(request), name=data["name"], expires_in_days=data.get("expires_in_days"))
        # The value exists only here (the stored digest cannot give it back), so it joins the token's body once.
        return Response(TokenIssuedOutputSerializer(issued).data, status=status.HTTP_201_CREATED)


class TokenDetailApi(APIView):
    """Read or revoke one of the caller's tokens."""

    @extend_schema(responses=TokenOutputSerializer)
    def get(self, request: Request, token_id: int) -> Response:
        return Response(TokenOutputSerializer(get_object_or_404(ApiToken, pk=token_id, user=request.user)).data)

    @extend_schema(responses={204: None})
    def delete(self, request: Request, token_id: int) -> Response:
        api_token_revoke(token=get_object_or_404(ApiToken, pk=token_id, user=request.user))
        return Response(status=status.HTTP_204_NO_CONTENT)
