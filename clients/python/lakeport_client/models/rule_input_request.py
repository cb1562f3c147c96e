from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.alert_event_enum import AlertEventEnum
from ..types import UNSET, Unset

T = TypeVar("T", bound="RuleInputRequest")


@_attrs_define
class RuleInputRequest:
    """
    Attributes:
        name (str):
        event (AlertEventEnum): * `run_failed` - A run FAILED (after its retries)
            * `stream_failed` - A stream FAILED (its restart budget exhausted, or refused)
            * `schedule_run_failed` - A schedule's tick failed (its run FAILED after the schedule's retries)
            * `schedule_tick_skipped` - A schedule's tick was skipped, missed or could not be submitted
            * `run_long` - A run has been RUNNING longer than `minutes`
            * `stream_restarting` - A stream restarted more than `count` times within `minutes`
            * `stream_falling_behind` - A stream's source lag has kept growing for `minutes`
        channels (list[int]):
        job (int | None | Unset): A job id; null: every job of the team
        minutes (int | None | Unset): run_long: minutes RUNNING; stream_restarting: the window
        count (int | None | Unset): stream_restarting: restarts allowed within `minutes`
        enabled (bool | Unset):  Default: True.
    """

    name: str
    event: AlertEventEnum
    channels: list[int]
    job: int | None | Unset = UNSET
    minutes: int | None | Unset = UNSET
    count: int | None | Unset = UNSET
    enabled: bool | Unset = True
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        event = self.event.value

        channels = self.channels

        job: int | None | Unset
        if isinstance(self.job, Unset):
            job = UNSET
        else:
            job = self.job

        minutes: int | None | Unset
        if isinstance(self.minutes, Unset):
            minutes = UNSET
        else:
            minutes = self.minutes

        count: int | None | Unset
        if isinstance(self.count, Unset):
            count = UNSET
        else:
            count = self.count

        enabled = self.enabled

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
                "event": event,
                "channels": channels,
            }
        )
        if job is not UNSET:
            field_dict["job"] = job
        if minutes is not UNSET:
            field_dict["minutes"] = minutes
        if count is not UNSET:
            field_dict["count"] = count
        if enabled is not UNSET:
            field_dict["enabled"] = enabled

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        event = AlertEventEnum(d.pop("event"))

        channels = cast(list[int], d.pop("channels"))

        def _parse_job(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        job = _parse_job(d.pop("job", UNSET))

        def _parse_minutes(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        minutes = _parse_minutes(d.pop("minutes", UNSET))

        def _parse_count(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        count = _parse_count(d.pop("count", UNSET))

        enabled = d.pop("enabled", UNSET)

        rule_input_request = cls(
            name=name,
            event=event,
            channels=channels,
            job=job,
            minutes=minutes,
            count=count,
            enabled=enabled,
        )

        rule_input_request.additional_properties = d
        return rule_input_request

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
