from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.alert_event_enum import AlertEventEnum
from ..types import UNSET, Unset

T = TypeVar("T", bound="RuleOutput")


@_attrs_define
class RuleOutput:
    """
    Attributes:
        id (int):
        name (str):
        event (AlertEventEnum): * `run_failed` - A run FAILED (after its retries)
            * `stream_failed` - A stream FAILED (its restart budget exhausted, or refused)
            * `schedule_run_failed` - A schedule's tick failed (its run FAILED after the schedule's retries)
            * `schedule_tick_skipped` - A schedule's tick was skipped, missed or could not be submitted
            * `run_long` - A run has been RUNNING longer than `minutes`
            * `stream_restarting` - A stream restarted more than `count` times within `minutes`
            * `stream_falling_behind` - A stream's source lag has kept growing for `minutes`
        job (int | None):
        channels (list[int]):
        minutes (int | None):
        count (int | None):
        enabled (bool):
        created_at (datetime.datetime):
        updated_at (datetime.datetime):
        job_name (None | str | Unset):
    """

    id: int
    name: str
    event: AlertEventEnum
    job: int | None
    channels: list[int]
    minutes: int | None
    count: int | None
    enabled: bool
    created_at: datetime.datetime
    updated_at: datetime.datetime
    job_name: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        event = self.event.value

        job: int | None
        job = self.job

        channels = self.channels

        minutes: int | None
        minutes = self.minutes

        count: int | None
        count = self.count

        enabled = self.enabled

        created_at = self.created_at.isoformat()

        updated_at = self.updated_at.isoformat()

        job_name: None | str | Unset
        if isinstance(self.job_name, Unset):
            job_name = UNSET
        else:
            job_name = self.job_name

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "name": name,
                "event": event,
                "job": job,
                "channels": channels,
                "minutes": minutes,
                "count": count,
                "enabled": enabled,
                "created_at": created_at,
                "updated_at": updated_at,
            }
        )
        if job_name is not UNSET:
            field_dict["job_name"] = job_name

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        event = AlertEventEnum(d.pop("event"))

        def _parse_job(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        job = _parse_job(d.pop("job"))

        channels = cast(list[int], d.pop("channels"))

        def _parse_minutes(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        minutes = _parse_minutes(d.pop("minutes"))

        def _parse_count(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        count = _parse_count(d.pop("count"))

        enabled = d.pop("enabled")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        def _parse_job_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        job_name = _parse_job_name(d.pop("job_name", UNSET))

        rule_output = cls(
            id=id,
            name=name,
            event=event,
            job=job,
            channels=channels,
            minutes=minutes,
            count=count,
            enabled=enabled,
            created_at=created_at,
            updated_at=updated_at,
            job_name=job_name,
        )

        rule_output.additional_properties = d
        return rule_output

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
