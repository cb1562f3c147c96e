"""REST endpoints for alert channels and rules under /api/v1/teams/{team}/ (thin views over services/selectors).

Viewers read, admins write. A channel's secret (a webhook's signing key, a Slack URL) is write-only: the answer says
whether one is set, never what it is.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from alerts.models import AlertChannel, AlertEvent, ChannelKind
from alerts.selectors import channel_get, channel_list, channel_recent_deliveries, rule_get, rule_list
from alerts.services.channels import channel_create, channel_delete, channel_send_test, channel_update
from alerts.services.rules import rule_create, rule_delete, rule_update
from core.api.pagination import StandardPagination
from core.api.validation import validated
from teams.models import Role
from teams.permissions import TeamScopedMixin

TAGS = ["alerts"]
NAME = r"^[A-Za-z0-9][A-Za-z0-9 _.-]{0,99}$"
NAME_HELP = "Use up to 100 letters, digits, spaces, '_', '.', '-', starting with a letter or digit."


class AlertsMixin(TeamScopedMixin):
    """Viewers read; admins write (a channel sends the team's alerts out of the platform)."""

    read_role = Role.VIEWER
    write_role = Role.ADMIN


# ---- schemas --------------------------------------------------------------------------------------------
class ChannelInput(serializers.Serializer[Any]):
    name = serializers.RegexField(NAME, max_length=100, error_messages={"invalid": NAME_HELP})
    kind = serializers.ChoiceField(choices=ChannelKind.choices)
    url = serializers.CharField(max_length=1000, required=False,
                                help_text="webhook: where alerts are POSTed; slack: the incoming-webhook URL "
                                          "(secret: write-only)")
    secret = serializers.CharField(max_length=500, required=False, write_only=True,
                                   help_text="webhook: the HMAC-SHA256 signing key (write-only)")
    recipients = serializers.ListField(child=serializers.CharField(max_length=254), required=False, max_length=50,
                                       help_text="email: the addresses")
    enabled = serializers.BooleanField(required=False, default=True)


class DeliveryOutput(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    kind = serializers.CharField()
    status = serializers.CharField()
    title = serializers.CharField(source="message.title")
    attempts = serializers.IntegerField()
    last_error = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()
    sent_at = serializers.DateTimeField(allow_null=True)


class RecentDeliveries(serializers.ListSerializer[Any]):
    """The channel's ten latest deliveries (the field's source is the channel)."""

    def to_representation(self, data: AlertChannel) -> list[dict[str, Any]]:  # type: ignore[override]  # a channel
        return super().to_representation(channel_recent_deliveries(channel=data))


# The body of every channel answer (and its OpenAPI schema).
class ChannelOutput(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.ChoiceField(choices=ChannelKind.choices)
    url = serializers.SerializerMethodField(help_text="webhook: the URL; null for Slack (its URL is the secret)")
    recipients = serializers.ListField(child=serializers.CharField())
    secret_set = serializers.SerializerMethodField(help_text="Whether a secret is stored (it is never shown)")
    enabled = serializers.BooleanField()
    last_error = serializers.CharField(allow_blank=True, help_text="Why the last failed send failed")
    last_error_at = serializers.DateTimeField(allow_null=True)
    last_sent_at = serializers.DateTimeField(allow_null=True)
    recent_deliveries = RecentDeliveries(child=DeliveryOutput(), source="*")
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()

    def get_url(self, channel: AlertChannel) -> str | None:
        return channel.url if channel.kind == ChannelKind.WEBHOOK else None

    def get_secret_set(self, channel: AlertChannel) -> bool:
        return bool(channel.secret)


class TestOutput(serializers.Serializer[Any]):
    ok = serializers.BooleanField()
    error = serializers.CharField(allow_blank=True, help_text="The channel's answer when not ok")
    delivery = serializers.IntegerField()


class RuleInput(serializers.Serializer[Any]):
    name = serializers.RegexField(NAME, max_length=100, error_messages={"invalid": NAME_HELP})
    event = serializers.ChoiceField(choices=AlertEvent.choices)
    job = serializers.IntegerField(required=False, allow_null=True, default=None,
                                   help_text="A job id; null: every job of the team")
    channels = serializers.ListField(child=serializers.IntegerField(), max_length=20, allow_empty=False)
    minutes = serializers.IntegerField(required=False, allow_null=True, default=None, min_value=1, max_value=10080,
                                       help_text="run_long: minutes RUNNING; stream_restarting: the window")
    count = serializers.IntegerField(required=False, allow_null=True, default=None, min_value=1, max_value=1000,
                                     help_text="stream_restarting: restarts allowed within `minutes`")
    enabled = serializers.BooleanField(required=False, default=True)


class RuleOutput(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField()
    event = serializers.ChoiceField(choices=AlertEvent.choices)
    job = serializers.IntegerField(source="job_id", allow_null=True)
    job_name = serializers.CharField(source="job.name", allow_null=True, default=None)
    channels = serializers.ListField(child=serializers.IntegerField(), source="channel_ids")
    minutes = serializers.IntegerField(allow_null=True)
    count = serializers.IntegerField(allow_null=True)
    enabled = serializers.BooleanField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


def _present(request: Request, data: dict[str, Any]) -> dict[str, Any]:
    """A partial update's fields the caller sent (defaults must not overwrite)."""
    return {k: v for k, v in data.items() if k in request.data}


# ---- views ----------------------------------------------------------------------------------------------
class ChannelListApi(AlertsMixin, APIView):
    """The team's alert channels; admins create them."""

    pagination_class = StandardPagination

    @extend_schema(operation_id="alert_channels_list", tags=TAGS, responses=ChannelOutput(many=True))
    def get(self, request: Request, team: str) -> Response:
        paginator = StandardPagination()
        page = paginator.paginate_queryset(channel_list(team=self.team), request, view=self)
        return paginator.get_paginated_response(ChannelOutput(page, many=True).data)

    @extend_schema(operation_id="alert_channels_create", tags=TAGS, request=ChannelInput,
                   responses={201: ChannelOutput})
    def post(self, request: Request, team: str) -> Response:
        channel = channel_create(team=self.team, **validated(ChannelInput, request.data))
        return Response(ChannelOutput(channel).data, status=status.HTTP_201_CREATED)


class ChannelDetailApi(AlertsMixin, APIView):
    """Read, change (an omitted secret is kept) or delete one channel."""

    @extend_schema(operation_id="alert_channels_get", tags=TAGS, responses=ChannelOutput)
    def get(self, request: Request, team: str, channel_id: int) -> Response:
        return Response(ChannelOutput(channel_get(team=self.team, channel_id=channel_id)).data)

    @extend_schema(operation_id="alert_channels_update", tags=TAGS, request=ChannelInput, responses=ChannelOutput)
    def patch(self, request: Request, team: str, channel_id: int) -> Response:
        channel = channel_get(team=self.team, channel_id=channel_id)
        data = _present(request, validated(ChannelInput, request.data, partial=True))
        return Response(ChannelOutput(channel_update(channel=channel, data=data)).data)

    @extend_schema(operation_id="alert_channels_delete", tags=TAGS, responses={204: None})
    def delete(self, request: Request, team: str, channel_id: int) -> Response:
        channel_delete(channel=channel_get(team=self.team, channel_id=channel_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class ChannelTestApi(AlertsMixin, APIView):
    """"Send test": one test alert through the channel now; 200 with `ok` and the channel's answer."""

    @extend_schema(operation_id="alert_channels_test", tags=TAGS, request=None, responses=TestOutput)
    def post(self, request: Request, team: str, channel_id: int) -> Response:
        result = channel_send_test(channel=channel_get(team=self.team, channel_id=channel_id))
        return Response(TestOutput(result).data)


class RuleListApi(AlertsMixin, APIView):
    """The team's alert rules; admins create them."""

    pagination_class = StandardPagination

    @extend_schema(operation_id="alert_rules_list", tags=TAGS, responses=RuleOutput(many=True))
    def get(self, request: Request, team: str) -> Response:
        paginator = StandardPagination()
        page = paginator.paginate_queryset(rule_list(team=self.team), request, view=self)
        return paginator.get_paginated_response(RuleOutput(page, many=True).data)

    @extend_schema(operation_id="alert_rules_create", tags=TAGS, request=RuleInput, responses={201: RuleOutput})
    def post(self, request: Request, team: str) -> Response:
        rule = rule_create(team=self.team, **validated(RuleInput, request.data))
        return Response(RuleOutput(rule).data, status=status.HTTP_201_CREATED)


class RuleDetailApi(AlertsMixin, APIView):
    """Read, change or delete one rule."""

    @extend_schema(operation_id="alert_rules_get", tags=TAGS, responses=RuleOutput)
    def get(self, request: Request, team: str, rule_id: int) -> Response:
        return Response(RuleOutput(rule_get(team=self.team, rule_id=rule_id)).data)

    @extend_schema(operation_id="alert_rules_update", tags=TAGS, request=RuleInput, responses=RuleOutput)
    def patch(self, request: Request, team: str, rule_id: int) -> Response:
        rule = rule_get(team=self.team, rule_id=rule_id)
        data = _present(request, validated(RuleInput, request.data, partial=True))
        return Response(RuleOutput(rule_update(rule=rule, data=data)).data)

    @extend_schema(operation_id="alert_rules_delete", tags=TAGS, responses={204: None})
    def delete(self, request: Request, team: str, rule_id: int) -> Response:
        rule_delete(rule=rule_get(team=self.team, rule_id=rule_id))
        return Response(status=status.HTTP_204_NO_CONTENT)
