from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.run_error_output import RunErrorOutput
    from ..models.run_summary_output_parameters import RunSummaryOutputParameters
    from ..models.run_summary_output_progress import RunSummaryOutputProgress


T = TypeVar("T", bound="RunSummaryOutput")


@_attrs_define
class RunSummaryOutput:
    """
    Attributes:
        id (int):
        job (int):
        job_name (str):
        status (str):
        progress (RunSummaryOutputProgress):
        error (None | RunErrorOutput):
        attempt (int):
        engine (str):
        engine_used (str):
        worker (str):
        submitted_by (None | str):
        cancel_requested (bool):
        created_at (datetime.datetime):
        started_at (datetime.datetime | None):
        finished_at (datetime.datetime | None):
        spark_app_id (None | str):
        spark_ui_url (None | str): The run's Spark UI through Lakeport (`/t/{team}/runs/{id}/spark/`, for the team's
            members) while the engine that ran it lives; null before the engine reported one.
        catalogs (list[str]):
        parameters (RunSummaryOutputParameters): The values the run used, by name.
    """

    id: int
    job: int
    job_name: str
    status: str
    progress: RunSummaryOutputProgress
    error: None | RunErrorOutput
    attempt: int
    engine: str
    engine_used: str
    worker: str
    submitted_by: None | str
    cancel_requested: bool
    created_at: datetime.datetime
    started_at: datetime.datetime | None
    finished_at: datetime.datetime | None
    spark_app_id: None | str
    spark_ui_url: None | str
    catalogs: list[str]
    parameters: RunSummaryOutputParameters
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.run_error_output import RunErrorOutput  # noqa: PLC0415

        id = self.id

        job = self.job

        job_name = self.job_name

        status = self.status

        progress = self.progress.to_dict()

        error: dict[str, Any] | None
        if isinstance(self.error, RunErrorOutput):
            error = self.error.to_dict()
        else:
            error = self.error

        attempt = self.attempt

        engine = self.engine

        engine_used = self.engine_used

        worker = self.worker

        submitted_by: None | str
        submitted_by = self.submitted_by

        cancel_requested = self.cancel_requested

        created_at = self.created_at.isoformat()

        started_at: None | str
        if isinstance(self.started_at, datetime.datetime):
            started_at = self.started_at.isoformat()
        else:
            started_at = self.started_at

        finished_at: None | str
        if isinstance(self.finished_at, datetime.datetime):
            finished_at = self.finished_at.isoformat()
        else:
            finished_at = self.finished_at

        spark_app_id: None | str
        spark_app_id = self.spark_app_id

        spark_ui_url: None | str
        spark_ui_url = self.spark_ui_url

        catalogs = self.catalogs

        parameters = self.parameters.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "job": job,
                "job_name": job_name,
                "status": status,
                "progress": progress,
                "error": error,
                "attempt": attempt,
                "engine": engine,
                "engine_used": engine_used,
                "worker": worker,
                "submitted_by": submitted_by,
                "cancel_requested": cancel_requested,
                "created_at": created_at,
                "started_at": started_at,
                "finished_at": finished_at,
                "spark_app_id": spark_app_id,
                "spark_ui_url": spark_ui_url,
                "catalogs": catalogs,
                "parameters": parameters,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.run_error_output import RunErrorOutput  # noqa: PLC0415
        from ..models.run_summary_output_parameters import RunSummaryOutputParameters  # noqa: PLC0415
        from ..models.run_summary_output_progress import RunSummaryOutputProgress  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        job = d.pop("job")

        job_name = d.pop("job_name")

        status = d.pop("status")

        progress = RunSummaryOutputProgress.from_dict(d.pop("progress"))

        def _parse_error(data: object) -> None | RunErrorOutput:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                error_type_1 = RunErrorOutput.from_dict(data)

                return error_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RunErrorOutput, data)

        error = _parse_error(d.pop("error"))

        attempt = d.pop("attempt")

        engine = d.pop("engine")

        engine_used = d.pop("engine_used")

        worker = d.pop("worker")

        def _parse_submitted_by(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        submitted_by = _parse_submitted_by(d.pop("submitted_by"))

        cancel_requested = d.pop("cancel_requested")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_started_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                started_at_type_0 = datetime.datetime.fromisoformat(data)

                return started_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        started_at = _parse_started_at(d.pop("started_at"))

        def _parse_finished_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                finished_at_type_0 = datetime.datetime.fromisoformat(data)

                return finished_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        finished_at = _parse_finished_at(d.pop("finished_at"))

        def _parse_spark_app_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        spark_app_id = _parse_spark_app_id(d.pop("spark_app_id"))

        def _parse_spark_ui_url(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        spark_ui_url = _parse_spark_ui_url(d.pop("spark_ui_url"))

        catalogs = cast(list[str], d.pop("catalogs"))

        parameters = RunSummaryOutputParameters.from_dict(d.pop("parameters"))

        run_summary_output = cls(
            id=id,
            job=job,
            job_name=job_name,
            status=status,
            progress=progress,
            error=error,
            attempt=attempt,
            engine=engine,
            engine_used=engine_used,
            worker=worker,
            submitted_by=submitted_by,
            cancel_requested=cancel_requested,
            created_at=created_at,
            started_at=started_at,
            finished_at=finished_at,
            spark_app_id=spark_app_id,
            spark_ui_url=spark_ui_url,
            catalogs=catalogs,
            parameters=parameters,
        )

        run_summary_output.additional_properties = d
        return run_summary_output

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
