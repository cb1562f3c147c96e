from __future__ import annotations

from django.urls import path

from grants import apis

urlpatterns = [
    path("groups/", apis.GroupListApi.as_view(), name="group-list"),
    path("groups/<str:group>/", apis.GroupDetailApi.as_view(), name="group-detail"),
    path("groups/<str:group>/members/", apis.GroupMemberListApi.as_view(), name="group-member-list"),
    path("groups/<str:group>/members/<str:username>/", apis.GroupMemberDetailApi.as_view(),
         name="group-member-detail"),
    path("grants/", apis.GrantListApi.as_view(), name="grant-list"),
    path("grants/<int:grant_id>/", apis.GrantDetailApi.as_view(), name="grant-detail"),
    path("row-filters/", apis.RowFilterListApi.as_view(), name="row-filter-list"),
    path("row-filters/<int:filter_id>/", apis.RowFilterDetailApi.as_view(), name="row-filter-detail"),
    path("column-masks/", apis.ColumnMaskListApi.as_view(), name="column-mask-list"),
    path("column-masks/<int:mask_id>/", apis.ColumnMaskDetailApi.as_view(), name="column-mask-detail"),
]
