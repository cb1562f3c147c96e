"""Lineage routes under /api/v1/teams/{team}/."""

from __future__ import annotations

from django.urls import path

from lineage import apis

urlpatterns: list = [
    path("lineage/datasets/", apis.DatasetListApi.as_view(), name="lineage-datasets"),
    path("lineage/datasets/<int:dataset_id>/", apis.DatasetDetailApi.as_view(), name="lineage-dataset"),
    path("lineage/datasets/<int:dataset_id>/upstream/", apis.DatasetUpstreamApi.as_view(), name="lineage-upstream"),
    path("lineage/datasets/<int:dataset_id>/downstream/", apis.DatasetDownstreamApi.as_view(),
         name="lineage-downstream"),
    path("lineage/datasets/<int:dataset_id>/impact/", apis.DatasetImpactApi.as_view(), name="lineage-impact"),
    path("lineage/datasets/<int:dataset_id>/columns/<str:column>/", apis.ColumnLineageApi.as_view(),
         name="lineage-column"),
    path("lineage/jobs/<int:job_id>/", apis.JobLineageApi.as_view(), name="lineage-job"),
    path("lineage/runs/<int:run_id>/", apis.RunLineageApi.as_view(), name="lineage-run"),
]
