from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.catchup_enum import CatchupEnum
from ..models.concurrency_enum import ConcurrencyEnum

if TYPE_CHECKING:
    from ..models.fire_output import FireOutput
    from ..models.schedule_output_parameters import ScheduleOutputParameters


T = TypeVar("T", bound="ScheduleOutput")


@_attrs_define
class ScheduleOutput:
    """
    Attributes:
        id (int):
        name (str):
        job (int):
        job_name (str):
        cron (str):
        time_zone (str):
        enabled (bool):
        catchup (CatchupEnum): * `skip` - Skip missed ticks (fire only a tick that is due now)
            * `latest` - Run the latest missed tick once
        concurrency (ConcurrencyEnum): * `skip` - Skip this tick
            * `queue` - Queue this tick until the previous run finishes
        max_retries (int):
        retry_backoff_seconds (int):
        parameters (ScheduleOutputParameters):
        next_fire_at (datetime.datetime | None):
        next_fire_times (list[str]): The next five, local ISO 8601.
        last_fire_at (datetime.datetime | None):
        recent_fires (list[FireOutput]):
        created_by (None | str):
        created_at (datetime.datetime):
        updated_at (datetime.datetime):
    """

    id: int
    name: str
    job: int
    job_name: str
    cron: str
    time_zone: str
    enabled: bool
    catchup: CatchupEnum
    concurrency: ConcurrencyEnum
    max_retries: int
    retry_backoff_seconds: int
    parameters: ScheduleOutputParameters
    next_fire_at: datetime.datetime | None
    next_fire_times: list[str]
    last_fire_at: datetime.datetime | None
    recent_fires: list[FireOutput]
    created_by: None | str
    created_at: datetime.datetime
    updated_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        job = self.job

        job_name = self.job_name

        cron = self.cron

        time_zone = self.time_zone

        enabled = self.enabled

        catchup = self.catchup.value

        concurrency = self.concurrency.value

        max_retries = self.max_retries

        retry_backoff_seconds = self.retry_backoff_seconds

        parameters = self.parameters.to_dict()

        next_fire_at: None | str
        if isinstance(self.next_fire_at, datetime.datetime):
            next_fire_at = self.next_fire_at.isoformat()
        else:
            next_fire_at = self.next_fire_at

        next_fire_times = self.next_fire_times

        last_fire_at: None | str
        if isinstance(self.last_fire_at, datetime.datetime):
            last_fire_at = self.last_fire_at.isoformat()
        else:
            last_fire_at = self.last_fire_at

        recent_fires = []
        for recent_fires_item_data in self.recent_fires:
            recent_fires_item = recent_fires_item_data.to_dict()
            recent_fires.append(recent_fires_item)

        created_by: None | str
        created_by = self.created_by

        created_at = self.created_at.isoformat()

        updated_at = self.updated_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "name": name,
                "job": job,
                "job_name": job_name,
                "cron": cron,
                "time_zone": time_zone,
                "enabled": enabled,
                "catchup": catchup,
                "concurrency": concurrency,
                "max_retries": max_retries,
                "retry_backoff_seconds": retry_backoff_seconds,
                "parameters": parameters,
                "next_fire_at": next_fire_at,
                "next_fire_times": next_fire_times,
                "last_fire_at": last_fire_at,
                "recent_fires": recent_fires,
                "created_by": created_by,
                "created_at": created_at,
                "updated_at": updated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.fire_output import FireOutput  # noqa: PLC0415
        from ..models.schedule_output_parameters import ScheduleOutputParameters  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        job = d.pop("job")

        job_name = d.pop("job_name")

        cron = d.pop("cron")

        time_zone = d.pop("time_zone")

        enabled = d.pop("enabled")

        catchup = CatchupEnum(d.pop("catchup"))

        concurrency = ConcurrencyEnum(d.pop("concurrency"))

        max_retries = d.pop("max_retries")

        retry_backoff_seconds = d.pop("retry_backoff_seconds")

        parameters = ScheduleOutputParameters.from_dict(d.pop("parameters"))

        def _parse_next_fire_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                next_fire_at_type_0 = datetime.datetime.fromisoformat(data)

                return next_fire_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        next_fire_at = _parse_next_fire_at(d.pop("next_fire_at"))

        next_fire_times = cast(list[str], d.pop("next_fire_times"))

        def _parse_last_fire_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_fire_at_type_0 = datetime.datetime.fromisoformat(data)

                return last_fire_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        last_fire_at = _parse_last_fire_at(d.pop("last_fire_at"))

        recent_fires = []
        _recent_fires = d.pop("recent_fires")
        for recent_fires_item_data in _recent_fires:
            recent_fires_item = FireOutput.from_dict(recent_fires_item_data)

            recent_fires.append(recent_fires_item)

        def _parse_created_by(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        created_by = _parse_created_by(d.pop("created_by"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        schedule_output = cls(
            id=id,
            name=name,
            job=job,
            job_name=job_name,
            cron=cron,
            time_zone=time_zone,
            enabled=enabled,
            catchup=catchup,
            concurrency=concurrency,
            max_retries=max_retries,
            retry_backoff_seconds=retry_backoff_seconds,
            parameters=parameters,
            next_fire_at=next_fire_at,
            next_fire_times=next_fire_times,
            last_fire_at=last_fire_at,
            recent_fires=recent_fires,
            created_by=created_by,
            created_at=created_at,
            updated_at=updated_at,
        )

        schedule_output.additional_properties = d
        return schedule_output

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
