"""REST endpoints of fine-grained access (docs/access.md): a team's groups and their members, its grants, and its
row filters and column masks.

Groups are managed by team admins; grants are listed by any member and made or revoked by team admins and by
holders of MANAGE on the securable (the service decides, a developer without it gets 403).
"""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api.pagination import StandardPagination
from core.api.validation import validated
from core.errors import InvalidInput, NotFound
from grants.models import GROUP_NAME_RE, ColumnMask, Grant, Group, Privilege, RowFilter
from grants.row_policies import (
    column_mask_create,
    column_mask_delete,
    column_mask_update,
    row_filter_create,
    row_filter_delete,
    row_filter_update,
)
from grants.selectors import (
    access_policy,
    column_mask_list,
    expression_visible,
    grant_visible,
    grants_visible,
    group_list,
    row_filter_list,
)
from grants.services import (
    grant_create,
    grant_delete,
    group_create,
    group_delete,
    group_member_add,
    group_member_remove,
    group_update,
)
from lakeport_engine.access import BROWSE, securable_parts
from teams.models import Role
from teams.permissions import TeamScopedMixin, request_user


class GroupOutput(serializers.Serializer[Any]):
    name = serializers.CharField()
    description = serializers.CharField()
    members = serializers.SerializerMethodField()
    created_at = serializers.DateTimeField()

    class Meta:
        ref_name = "AccessGroup"

    def get_members(self, group: Group) -> list[str]:
        return sorted(u.username for u in group.members.all())


class GrantOutput(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    securable = serializers.CharField(help_text="catalog, catalog.schema or catalog.schema.table (* below a level).")
    privilege = serializers.ChoiceField(choices=Privilege.choices)
    principal_type = serializers.SerializerMethodField()
    principal = serializers.SerializerMethodField()
    granted_by = serializers.CharField(source="granted_by.username", allow_null=True, default=None)
    granted_at = serializers.DateTimeField()

    def get_principal_type(self, grant: Grant) -> str:
        return "group" if grant.group_id else "user"

    def get_principal(self, grant: Grant) -> str:
        return grant.group.name if grant.group is not None else (grant.user.username if grant.user else "")


class GroupListApi(TeamScopedMixin, APIView):
    """A team's groups (principals of grants); team admins create them."""

    pagination_class = StandardPagination
    write_role = Role.ADMIN

    class InputSerializer(serializers.Serializer[Any]):
        name = serializers.RegexField(GROUP_NAME_RE, max_length=63)
        description = serializers.CharField(max_length=500, required=False, allow_blank=True, default="")
        members = serializers.ListField(child=serializers.CharField(max_length=150), required=False, default=list)

    @extend_schema(responses=GroupOutput(many=True))
    def get(self, request: Request, team: str) -> Response:
        paginator = StandardPagination()
        page = paginator.paginate_queryset(group_list(team=self.team), request, view=self)
        return paginator.get_paginated_response(GroupOutput(page, many=True).data)

    @extend_schema(request=InputSerializer, responses={201: GroupOutput})
    def post(self, request: Request, team: str) -> Response:
        data = validated(self.InputSerializer, request.data)
        group = group_create(team=self.team, name=data["name"], description=data["description"],
                             members=data["members"])
        return Response(GroupOutput(group).data, status=status.HTTP_201_CREATED)


class GroupDetailApi(TeamScopedMixin, APIView):
    """One group: read it, change its description or members, delete it (and its grants)."""

    write_role = Role.ADMIN

    class InputSerializer(serializers.Serializer[Any]):
        description = serializers.CharField(max_length=500, required=False, allow_blank=True)
        members = serializers.ListField(child=serializers.CharField(max_length=150), required=False)

    def _group(self, name: str) -> Group:
        return get_object_or_404(Group, team=self.team, name=name)

    @extend_schema(responses=GroupOutput)
    def get(self, request: Request, team: str, group: str) -> Response:
        return Response(GroupOutput(self._group(group)).data)

    @extend_schema(request=InputSerializer, responses=GroupOutput)
    def patch(self, request: Request, team: str, group: str) -> Response:
        found = self._group(group)
        data = validated(self.InputSerializer, request.data)
        return Response(GroupOutput(group_update(group=found, description=data.get("description"),
                                                 members=data.get("members"))).data)

    @extend_schema(responses={204: None})
    def delete(self, request: Request, team: str, group: str) -> Response:
        group_delete(group=self._group(group), actor=request_user(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class GroupMemberListApi(TeamScopedMixin, APIView):
    """Add a team member to a group (team admins)."""

    write_role = Role.ADMIN

    class InputSerializer(serializers.Serializer[Any]):
        username = serializers.CharField(max_length=150)

    @extend_schema(operation_id="groups_members_add", request=InputSerializer, responses={201: GroupOutput})
    def post(self, request: Request, team: str, group: str) -> Response:
        found = get_object_or_404(Group, team=self.team, name=group)
        data = validated(self.InputSerializer, request.data)
        return Response(GroupOutput(group_member_add(group=found, username=data["username"])).data,
                        status=status.HTTP_201_CREATED)


class GroupMemberDetailApi(TeamScopedMixin, APIView):
    """Remove a user from a group (team admins)."""

    write_role = Role.ADMIN

    @extend_schema(operation_id="groups_members_remove", responses={204: None})
    def delete(self, request: Request, team: str, group: str, username: str) -> Response:
        group_member_remove(group=get_object_or_404(Group, team=self.team, name=group), username=username)
        return Response(status=status.HTTP_204_NO_CONTENT)


class GrantListApi(TeamScopedMixin, APIView):
    """A team's grants (`?securable=` those that hold on it); team admins and MANAGE holders grant."""

    pagination_class = StandardPagination
    write_role = Role.DEVELOPER  # the service requires a team admin or MANAGE on the securable

    class InputSerializer(serializers.Serializer[Any]):
        securable = serializers.CharField(max_length=200)
        privilege = serializers.ChoiceField(choices=Privilege.choices)
        principal_type = serializers.ChoiceField(choices=[("user", "user"), ("group", "group")])
        principal = serializers.CharField(max_length=150)

    @extend_schema(parameters=[OpenApiParameter("securable", str, description="Only grants that hold on it.")],
                   responses=GrantOutput(many=True))
    def get(self, request: Request, team: str) -> Response:
        try:
            qs = grants_visible(team=self.team, user=request.user,
                                securable=request.query_params.get("securable") or None)
        except ValueError as exc:
            raise InvalidInput.of({"securable": [str(exc)]}) from None
        paginator = StandardPagination()
        page = paginator.paginate_queryset(qs, request, view=self)
        return paginator.get_paginated_response(GrantOutput(page, many=True).data)

    @extend_schema(request=InputSerializer, responses={201: GrantOutput})
    def post(self, request: Request, team: str) -> Response:
        data = validated(self.InputSerializer, request.data)
        grant = grant_create(team=self.team, actor=request_user(request), **data)
        return Response(GrantOutput(grant).data, status=status.HTTP_201_CREATED)


class GrantDetailApi(TeamScopedMixin, APIView):
    """One grant: read it or revoke it (team admins, or MANAGE on its securable)."""

    write_role = Role.DEVELOPER

    def _grant(self, grant_id: int) -> Grant:
        grant = get_object_or_404(Grant.objects.select_related("user", "group", "granted_by", "team"),
                                  team=self.team, pk=grant_id)
        if not grant_visible(grant, access_policy(team=self.team, user=self.request.user)):
            raise NotFound("No such grant.")  # a grant on a securable the caller may not browse is not shown
        return grant

    @extend_schema(responses=GrantOutput)
    def get(self, request: Request, team: str, grant_id: int) -> Response:
        return Response(GrantOutput(self._grant(grant_id)).data)

    @extend_schema(responses={204: None})
    def delete(self, request: Request, team: str, grant_id: int) -> Response:
        grant_delete(grant=self._grant(grant_id), actor=request_user(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


# ---- row filters and column masks (docs/access.md, "Row filters and column masks") ---------------------------
class _PolicyOutput(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    table = serializers.CharField(help_text="catalog.schema.table")
    expression = serializers.SerializerMethodField(
        help_text="The SQL expression; null unless the caller may change it (team admin, MANAGE on the table).")
    description = serializers.CharField()
    created_by = serializers.CharField(source="created_by.username", allow_null=True, default=None)
    created_at = serializers.DateTimeField()
    updated_by = serializers.CharField(source="updated_by.username", allow_null=True, default=None)
    updated_at = serializers.DateTimeField()

    def get_expression(self, item: RowFilter | ColumnMask) -> str | None:
        policy = self.context.get("policy")
        if policy is None or not expression_visible(table=item.table, policy=policy):
            return None
        return item.expression


class RowFilterOutput(_PolicyOutput):
    pass


class ColumnMaskOutput(_PolicyOutput):
    column = serializers.CharField()


def _table_param(request: Request) -> str | None:
    table = request.query_params.get("table") or None
    if table is not None:
        try:
            securable_parts(table)
        except ValueError as exc:
            raise InvalidInput.of({"table": [str(exc)]}) from None
    return table


class RowFilterListApi(TeamScopedMixin, APIView):
    """A team's row filters (`?table=` one table's); team admins and MANAGE holders attach them."""

    pagination_class = StandardPagination
    write_role = Role.DEVELOPER  # the service requires a team admin or MANAGE on the table

    class InputSerializer(serializers.Serializer[Any]):
        table = serializers.CharField(max_length=200)
        expression = serializers.CharField(max_length=4000, trim_whitespace=True)
        description = serializers.CharField(max_length=500, required=False, allow_blank=True, default="")

    @extend_schema(parameters=[OpenApiParameter("table", str, description="Only this table's (cat.db.t).")],
                   responses=RowFilterOutput(many=True))
    def get(self, request: Request, team: str) -> Response:
        items = row_filter_list(team=self.team, user=request.user, table=_table_param(request))
        paginator = StandardPagination()
        page = paginator.paginate_queryset(items, request, view=self)
        context = {"policy": access_policy(team=self.team, user=request.user)}
        return paginator.get_paginated_response(RowFilterOutput(page, many=True, context=context).data)

    @extend_schema(request=InputSerializer, responses={201: RowFilterOutput})
    def post(self, request: Request, team: str) -> Response:
        data = validated(self.InputSerializer, request.data)
        found = row_filter_create(team=self.team, actor=request_user(request), **data)
        context = {"policy": access_policy(team=self.team, user=request.user)}
        return Response(RowFilterOutput(found, context=context).data, status=status.HTTP_201_CREATED)


class RowFilterDetailApi(TeamScopedMixin, APIView):
    """One row filter: read, change or remove it (team admins, or MANAGE on its table)."""

    write_role = Role.DEVELOPER

    class InputSerializer(serializers.Serializer[Any]):
        expression = serializers.CharField(max_length=4000, required=False)
        description = serializers.CharField(max_length=500, required=False, allow_blank=True)

    def _item(self, filter_id: int) -> RowFilter:
        found = get_object_or_404(RowFilter.objects.select_related("team", "created_by", "updated_by"),
                                  team=self.team, pk=filter_id)
        if not access_policy(team=self.team, user=self.request.user).allows(BROWSE, securable_parts(found.table)):
            raise NotFound("No such row filter.")  # a filter on a table the caller may not browse is not shown
        return found

    def _out(self, item: RowFilter) -> dict[str, Any]:
        return RowFilterOutput(item, context={"policy": access_policy(team=self.team, user=self.request.user)}).data

    @extend_schema(responses=RowFilterOutput)
    def get(self, request: Request, team: str, filter_id: int) -> Response:
        return Response(self._out(self._item(filter_id)))

    @extend_schema(request=InputSerializer, responses=RowFilterOutput)
    def patch(self, request: Request, team: str, filter_id: int) -> Response:
        found = self._item(filter_id)
        data = validated(self.InputSerializer, request.data)
        return Response(self._out(row_filter_update(row_filter=found, actor=request_user(request), **data)))

    @extend_schema(responses={204: None})
    def delete(self, request: Request, team: str, filter_id: int) -> Response:
        row_filter_delete(row_filter=self._item(filter_id), actor=request_user(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class ColumnMaskListApi(TeamScopedMixin, APIView):
    """A team's column masks (`?table=` one table's); team admins and MANAGE holders attach them."""

    pagination_class = StandardPagination
    write_role = Role.DEVELOPER

    class InputSerializer(serializers.Serializer[Any]):
        table = serializers.CharField(max_length=200)
        column = serializers.CharField(max_length=128)
        expression = serializers.CharField(max_length=4000, trim_whitespace=True)
        description = serializers.CharField(max_length=500, required=False, allow_blank=True, default="")

    @extend_schema(parameters=[OpenApiParameter("table", str, description="Only this table's (cat.db.t).")],
                   responses=ColumnMaskOutput(many=True))
    def get(self, request: Request, team: str) -> Response:
        items = column_mask_list(team=self.team, user=request.user, table=_table_param(request))
        paginator = StandardPagination()
        page = paginator.paginate_queryset(items, request, view=self)
        context = {"policy": access_policy(team=self.team, user=request.user)}
        return paginator.get_paginated_response(ColumnMaskOutput(page, many=True, context=context).data)

    @extend_schema(request=InputSerializer, responses={201: ColumnMaskOutput})
    def post(self, request: Request, team: str) -> Response:
        data = validated(self.InputSerializer, request.data)
        mask = column_mask_create(team=self.team, actor=request_user(request), **data)
        context = {"policy": access_policy(team=self.team, user=request.user)}
        return Response(ColumnMaskOutput(mask, context=context).data, status=status.HTTP_201_CREATED)


class ColumnMaskDetailApi(TeamScopedMixin, APIView):
    """One column mask: read, change or remove it (team admins, or MANAGE on its table)."""

    write_role = Role.DEVELOPER

    class InputSerializer(serializers.Serializer[Any]):
        expression = serializers.CharField(max_length=4000, required=False)
        description = serializers.CharField(max_length=500, required=False, allow_blank=True)

    def _item(self, mask_id: int) -> ColumnMask:
        found = get_object_or_404(ColumnMask.objects.select_related("team", "created_by", "updated_by"),
                                  team=self.team, pk=mask_id)
        if not access_policy(team=self.team, user=self.request.user).allows(BROWSE, securable_parts(found.table)):
            raise NotFound("No such column mask.")
        return found

    def _out(self, item: ColumnMask) -> dict[str, Any]:
        return ColumnMaskOutput(item, context={"policy": access_policy(team=self.team, user=self.request.user)}).data

    @extend_schema(responses=ColumnMaskOutput)
    def get(self, request: Request, team: str, mask_id: int) -> Response:
        return Response(self._out(self._item(mask_id)))

    @extend_schema(request=InputSerializer, responses=ColumnMaskOutput)
    def patch(self, request: Request, team: str, mask_id: int) -> Response:
        found = self._item(mask_id)
        data = validated(self.InputSerializer, request.data)
        return Response(self._out(column_mask_update(mask=found, actor=request_user(request), **data)))

    @extend_schema(responses={204: None})
    def delete(self, request: Request, team: str, mask_id: int) -> Response:
        column_mask_delete(mask=self._item(mask_id), actor=request_user(request))
        return Response(status=status.HTTP_204_NO_CONTENT)
