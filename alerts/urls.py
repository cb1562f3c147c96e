"""Alert routes under /api/v1/teams/{team}/."""

from __future__ import annotations

from django.urls import URLPattern, path

from alerts import apis

urlpatterns: list[URLPattern] = [
    path("alert-channels/", apis.ChannelListApi.as_view(), name="alert-channel-list"),
    path("alert-channels/<int:channel_id>/", apis.ChannelDetailApi.as_view(), name="alert-channel-detail"),
    path("alert-channels/<int:channel_id>/test/", apis.ChannelTestApi.as_view(), name="alert-channel-test"),
    path("alert-rules/", apis.RuleListApi.as_view(), name="alert-rule-list"),
    path("alert-rules/<int:rule_id>/", apis.RuleDetailApi.as_view(), name="alert-rule-detail"),
]
