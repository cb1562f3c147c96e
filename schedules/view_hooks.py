"""Schedules' part in materialized views (catalogs/hooks.py) and in runs (jobs/hooks.py): a view's SCHEDULE CRON
is kept as a schedule of its refresh job; a run that committed to a source of a REFRESH ON COMMIT view queues that
view's refresh after the run's end is committed (schedules/services/view_refresh.py)."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from catalogs.models import MaterializedView
from jobs.hooks import RequestExtras
from jobs.models import JobRun
from lakeport_engine.protocol import StatementEvent
from schedules.services.view_refresh import view_next_refresh, view_schedule_sync, views_after_run

logger = logging.getLogger("lakeport.schedules")


class ViewScheduleHook:
    """Keeps each view's schedule in step with its definition (registered by SchedulesConfig.ready())."""

    def view_saved(self, *, view: MaterializedView) -> None:
        view_schedule_sync(view=view)

    def view_details(self, *, view: MaterializedView) -> dict[str, object]:
        return view_next_refresh(view=view)


class RefreshOnCommitRunHook:
    """After a run: the ON COMMIT views over what it committed are refreshed (registered by SchedulesConfig.ready())."""

    def run_started(self, *, run: JobRun) -> None:
        return None

    def request_extras(self, *, run: JobRun) -> RequestExtras:
        return {}

    def run_finishing(self, *, run: JobRun, status: str, statements: Sequence[StatementEvent]) -> object:
        return None

    def run_finished(self, *, run: JobRun, token: object) -> None:
        for view, outcome in views_after_run(run=run):
            logger.info("schedules.on_commit", extra={"run_id": run.id, "view": view, "outcome": outcome})
