"""REST endpoints: session login, the current user, teams, members and API tokens."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import authenticate, get_user_model, login, logout
from django.middleware.csrf import get_token
from django.shortcuts import get_object_or_404
from django.utils.decorators import method_decorator
from django.views.decorators.csrf import ensure_csrf_cookie
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import exceptions, serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api.pagination import StandardPagination
from config.api.validation import validated
from teams.models import TEAM_NAME_RE, ApiToken, Membership, Role
from teams.permissions import IsPlatformAdmin, TeamScopedMixin
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
class CsrfApi(APIView):
    """Set the CSRF cookie for the browser app."""

    permission_classes = [AllowAny]
    authentication_classes: list = []

    @extend_schema(responses=inline_serializer("Csrf", {"csrf_token": serializers.CharField()}))
    @method_decorator(ensure_csrf_cookie)
    def get(self, request: Request) -> Response:
        return Response({"csrf_token": get_token(request)})


class LoginApi(APIView):
    """Start a browser session."""

    permission_classes = [AllowAny]

    class InputSerializer(serializers.Serializer):
        username = serializers.CharField(max_length=150)
        password = serializers.CharField(max_length=256, write_only=True)

    @extend_schema(request=InputSerializer, responses={200: None})
    def post(self, request: Request) -> Response:
        data = validated(self.InputSerializer, request.data)
        user = authenticate(request._request, username=data["username"], password=data["password"])
        if user is None and getattr(request._request, "axes_locked_out", False):
            raise exceptions.Throttled(wait=lockout_seconds(), detail=lockout_message())
        if user is None:
            raise exceptions.AuthenticationFailed("Wrong username or password.")
        login(request._request, user)
        return Response(_me(user))


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

    @extend_schema(responses=inline_serializer("Session", {"authenticated": serializers.BooleanField(),
                                                           "user": serializers.DictField(allow_null=True)}))
    def get(self, request: Request) -> Response:
        authenticated = bool(request.user and request.user.is_authenticated)
        return Response({"authenticated": authenticated, "user": _me(request.user) if authenticated else None})


class MeApi(APIView):
    """The signed-in user with their teams and roles."""

    @extend_schema(responses=inline_serializer("Me", {"username": serializers.CharField()}))
    def get(self, request: Request) -> Response:
        return Response(_me(request.user))


def _me(user: Any) -> dict[str, Any]:
    roles = roles_by_team(user=user)
    teams = [
        {"name": t.name, "role": Role.ADMIN if user.is_superuser else roles.get(t.id)}
        for t in teams_visible_to(user=user)
    ]
    return {"username": user.username, "is_platform_admin": user.is_superuser, "teams": teams}


# ---- teams ------------------------------------------------------------------------------------------
class TeamOutputSerializer(serializers.Serializer):
    name = serializers.CharField()
    description = serializers.CharField()
    created_at = serializers.DateTimeField()
    role = serializers.CharField(allow_null=True)


class TeamListApi(APIView):
    """List the caller's teams; platform admins create teams."""

    pagination_class = StandardPagination  # documents the paginated envelope in the OpenAPI schema

    class InputSerializer(serializers.Serializer):
        name = serializers.RegexField(TEAM_NAME_RE, max_length=63)
        description = serializers.CharField(max_length=500, required=False, allow_blank=True, default="")

    def get_permissions(self) -> list:
        return [IsAuthenticated(), IsPlatformAdmin()] if self.request.method == "POST" else [IsAuthenticated()]

    @extend_schema(responses=TeamOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        roles = roles_by_team(user=request.user)
        paginator = StandardPagination()
        page = paginator.paginate_queryset(teams_visible_to(user=request.user), request, view=self)
        rows = [_team_out(t, Role.ADMIN if request.user.is_superuser else roles.get(t.id)) for t in page]
        return paginator.get_paginated_response(rows)

    @extend_schema(request=InputSerializer, responses={201: TeamOutputSerializer})
    def post(self, request: Request) -> Response:
        data = validated(self.InputSerializer, request.data)
        team = team_create(name=data["name"], description=data["description"])
        return Response(_team_out(team, Role.ADMIN), status=status.HTTP_201_CREATED)


class TeamDetailApi(TeamScopedMixin, APIView):
    """One team, as seen by a member."""

    @extend_schema(responses=TeamOutputSerializer)
    def get(self, request: Request, team: str) -> Response:
        return Response(_team_out(self.team, self.team_role))


def _team_out(team: Any, role: str | None) -> dict[str, Any]:
    return {"name": team.name, "description": team.description, "created_at": team.created_at, "role": role}


# ---- members ----------------------------------------------------------------------------------------
class MemberOutputSerializer(serializers.Serializer):
    username = serializers.CharField()
    role = serializers.ChoiceField(choices=Role.choices)
    created_at = serializers.DateTimeField()


class MemberListApi(TeamScopedMixin, APIView):
    """Members of a team; team admins add members."""

    pagination_class = StandardPagination  # documents the paginated envelope in the OpenAPI schema

    class InputSerializer(serializers.Serializer):
        username = serializers.CharField(max_length=150)
        role = serializers.ChoiceField(choices=Role.choices)

    @extend_schema(responses=MemberOutputSerializer(many=True))
    def get(self, request: Request, team: str) -> Response:
        qs = Membership.objects.filter(team=self.team).select_related("user").order_by("user__username")
        paginator = StandardPagination()
        page = paginator.paginate_queryset(qs, request, view=self)
        return paginator.get_paginated_response([_member_out(m) for m in page])

    @extend_schema(request=InputSerializer, responses={201: MemberOutputSerializer})
    def post(self, request: Request, team: str) -> Response:
        data = validated(self.InputSerializer, request.data)
        user = get_user_model().objects.filter(username=data["username"]).first()
        if user is None:
            raise exceptions.ValidationError({"username": [f"No user named '{data['username']}'."]})
        membership = membership_set(team=self.team, user=user, role=data["role"])
        return Response(_member_out(membership), status=status.HTTP_201_CREATED)


class MemberDetailApi(TeamScopedMixin, APIView):
    """Change a member's role or remove them (team admins)."""

    class InputSerializer(serializers.Serializer):
        role = serializers.ChoiceField(choices=Role.choices)

    def _membership(self, username: str) -> Membership:
        return get_object_or_404(Membership.objects.select_related("user"), team=self.team, user__username=username)

    @extend_schema(responses=MemberOutputSerializer)
    def get(self, request: Request, team: str, username: str) -> Response:
        return Response(_member_out(self._membership(username)))

    @extend_schema(request=InputSerializer, responses=MemberOutputSerializer)
    def patch(self, request: Request, team: str, username: str) -> Response:
        membership = self._membership(username)
        data = validated(self.InputSerializer, request.data)
        membership = membership_set(team=self.team, user=membership.user, role=data["role"])
        return Response(_member_out(membership))

    @extend_schema(responses={204: None})
    def delete(self, request: Request, team: str, username: str) -> Response:
        membership_remove(membership=self._membership(username))
        return Response(status=status.HTTP_204_NO_CONTENT)


def _member_out(m: Membership) -> dict[str, Any]:
    return {"username": m.user.username, "role": m.role, "created_at": m.created_at}


# ---- tokens -----------------------------------------------------------------------------------------
class TokenOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    prefix = serializers.CharField()
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField(allow_null=True)
    revoked_at = serializers.DateTimeField(allow_null=True)
    last_used_at = serializers.DateTimeField(allow_null=True)
    active = serializers.BooleanField()


class TokenIssuedOutputSerializer(TokenOutputSerializer):
    token = serializers.CharField(help_text="The token's value: shown only in this answer, store it now.")


class TokenListApi(APIView):
    """The caller's API tokens; creating one returns its value once."""

    pagination_class = StandardPagination  # documents the paginated envelope in the OpenAPI schema

    class InputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=100)
        expires_in_days = serializers.IntegerField(min_value=1, max_value=3650, required=False, allow_null=True)

    @extend_schema(responses=TokenOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        paginator = StandardPagination()
        page = paginator.paginate_queryset(ApiToken.objects.filter(user=request.user), request, view=self)
        return paginator.get_paginated_response([_token_out(t) for t in page])

    @extend_schema(request=InputSerializer, responses={201: TokenIssuedOutputSerializer})
    def post(self, request: Request) -> Response:
        data = validated(self.InputSerializer, request.data)
        issued = api_token_create(user=request.user, name=data["name"], expires_in_days=data.get("expires_in_days"))
        return Response({**_token_out(issued.token), "token": issued.raw}, status=status.HTTP_201_CREATED)


class TokenDetailApi(APIView):
    """Read or revoke one of the caller's tokens."""

    @extend_schema(responses=TokenOutputSerializer)
    def get(self, request: Request, token_id: int) -> Response:
        return Response(_token_out(get_object_or_404(ApiToken, pk=token_id, user=request.user)))

    @extend_schema(responses={204: None})
    def delete(self, request: Request, token_id: int) -> Response:
        api_token_revoke(token=get_object_or_404(ApiToken, pk=token_id, user=request.user))
        return Response(status=status.HTTP_204_NO_CONTENT)


def _token_out(t: ApiToken) -> dict[str, Any]:
    return {
        "id": t.id,
        "name": t.name,
        "prefix": t.prefix,
        "created_at": t.created_at,
        "expires_at": t.expires_at,
        "revoked_at": t.revoked_at,
        "last_used_at": t.last_used_at,
        "active": t.is_active,
    }
