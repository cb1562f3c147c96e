from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.catchup_enum import CatchupEnum
from ..models.concurrency_enum import ConcurrencyEnum
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.schedule_input_request_parameters import ScheduleInputRequestParameters


T = TypeVar("T", bound="ScheduleInputRequest")


@_attrs_define
class ScheduleInputRequest:
    """
    Attributes:
        job (int): Id of the job the schedule runs.
        name (str):
        cron (str): minute hour day-of-month month day-of-week
        time_zone (str | Unset): IANA, e.g. Europe/Berlin Default: 'UTC'.
        enabled (bool | Unset):  Default: True.
        catchup (CatchupEnum | Unset): * `skip` - Skip missed ticks (fire only a tick that is due now)
            * `latest` - Run the latest missed tick once Default: CatchupEnum.SKIP.
        concurrency (ConcurrencyEnum | Unset): * `skip` - Skip this tick
            * `queue` - Queue this tick until the previous run finishes Default: ConcurrencyEnum.SKIP.
        max_retries (int | Unset):  Default: 0.
        retry_backoff_seconds (int | Unset):  Default: 60.
        parameters (ScheduleInputRequestParameters | Unset): Overrides of the job's defaults.
    """

    job: int
    name: str
    cron: str
    time_zone: str | Unset = "UTC"
    enabled: bool | Unset = True
    catchup: CatchupEnum | Unset = CatchupEnum.SKIP
    concurrency: ConcurrencyEnum | Unset = ConcurrencyEnum.SKIP
    max_retries: int | Unset = 0
    retry_backoff_seconds: int | Unset = 60
    parameters: ScheduleInputRequestParameters | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        job = self.job

        name = self.name

        cron = self.cron

        time_zone = self.time_zone

        enabled = self.enabled

        catchup: str | Unset = UNSET
        if not isinstance(self.catchup, Unset):
            catchup = self.catchup.value

        concurrency: str | Unset = UNSET
        if not isinstance(self.concurrency, Unset):
            concurrency = self.concurrency.value

        max_retries = self.max_retries

        retry_backoff_seconds = self.retry_backoff_seconds

        parameters: dict[str, Any] | Unset = UNSET
        if not isinstance(self.parameters, Unset):
            parameters = self.parameters.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "job": job,
                "name": name,
                "cron": cron,
            }
        )
        if time_zone is not UNSET:
            field_dict["time_zone"] = time_zone
        if enabled is not UNSET:
            field_dict["enabled"] = enabled
        if catchup is not UNSET:
            field_dict["catchup"] = catchup
        if concurrency is not UNSET:
            field_dict["concurrency"] = concurrency
        if max_retries is not UNSET:
            field_dict["max_retries"] = max_retries
        if retry_backoff_seconds is not UNSET:
            field_dict["retry_backoff_seconds"] = retry_backoff_seconds
        if parameters is not UNSET:
            field_dict["parameters"] = parameters

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.schedule_input_request_parameters import (
            ScheduleInputRequestParameters,  # noqa: PLC0415
        )

        d = dict(src_dict)
        job = d.pop("job")

        name = d.pop("name")

        cron = d.pop("cron")

        time_zone = d.pop("time_zone", UNSET)

        enabled = d.pop("enabled", UNSET)

        _catchup = d.pop("catchup", UNSET)
        catchup: CatchupEnum | Unset
        if isinstance(_catchup, Unset):
            catchup = UNSET
        else:
            catchup = CatchupEnum(_catchup)

        _concurrency = d.pop("concurrency", UNSET)
        concurrency: ConcurrencyEnum | Unset
        if isinstance(_concurrency, Unset):
            concurrency = UNSET
        else:
            concurrency = ConcurrencyEnum(_concurrency)

        max_retries = d.pop("max_retries", UNSET)

        retry_backoff_seconds = d.pop("retry_backoff_seconds", UNSET)

        _parameters = d.pop("parameters", UNSET)
        parameters: ScheduleInputRequestParameters | Unset
        if isinstance(_parameters, Unset):
            parameters = UNSET
        else:
            parameters = ScheduleInputRequestParameters.from_dict(_parameters)

        schedule_input_request = cls(
            job=job,
            name=name,
            cron=cron,
            time_zone=time_zone,
            enabled=enabled,
            catchup=catchup,
            concurrency=concurrency,
            max_retries=max_retries,
            retry_backoff_seconds=retry_backoff_seconds,
            parameters=parameters,
        )

        schedule_input_request.additional_properties = d
        return schedule_input_request

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
