from __future__ import annotations

from django.urls import path

from teams import apis

urlpatterns = [
    path("auth/csrf/", apis.CsrfApi.as_view(), name="auth-csrf"),
    path("auth/login/", apis.LoginApi.as_view(), name="auth-login"),
    path("auth/logout/", apis.LogoutApi.as_view(), name="auth-logout"),
    path("auth/session/", apis.SessionApi.as_view(), name="auth-session"),
    path("me/", apis.MeApi.as_view(), name="me"),
    path("tokens/", apis.TokenListApi.as_view(), name="token-list"),
    path("tokens/<int:token_id>/", apis.TokenDetailApi.as_view(), name="token-detail"),
    path("teams/", apis.TeamListApi.as_view(), name="team-list"),
    path("teams/<str:team>/", apis.TeamDetailApi.as_view(), name="team-detail"),
    path("teams/<str:team>/members/", apis.MemberListApi.as_view(), name="member-list"),
    path("teams/<str:team>/members/<str:username>/", apis.MemberDetailApi.as_view(), name="member-detail"),
]
