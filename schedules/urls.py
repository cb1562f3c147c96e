"""Schedule routes under /api/v1/teams/{team}/."""

from __future__ import annotations

from django.urls import URLPattern, path

from schedules import apis

urlpatterns: list[URLPattern] = [
    path("schedules/", apis.ScheduleListApi.as_view(), name="schedule-list"),
    path("schedules/preview/", apis.SchedulePreviewApi.as_view(), name="schedule-preview"),
    path("schedules/<int:schedule_id>/", apis.ScheduleDetailApi.as_view(), name="schedule-detail"),
    path("schedules/<int:schedule_id>/pause/", apis.SchedulePauseApi.as_view(), name="schedule-pause"),
    path("schedules/<int:schedule_id>/resume/", apis.ScheduleResumeApi.as_view(), name="schedule-resume"),
]
