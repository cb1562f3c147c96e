from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="FireOutput")


@_attrs_define
class FireOutput:
    """
    Attributes:
        fire_time (datetime.datetime):
        status (str):
        run (int | None):
        run_status (None | str):
        attempts (int):
        message (str):
    """

    fire_time: datetime.datetime
    status: str
    run: int | None
    run_status: None | str
    attempts: int
    message: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        fire_time = self.fire_time.isoformat()

        status = self.status

        run: int | None
        run = self.run

        run_status: None | str
        run_status = self.run_status

        attempts = self.attempts

        message = self.message

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "fire_time": fire_time,
                "status": status,
                "run": run,
                "run_status": run_status,
                "attempts": attempts,
                "message": message,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        fire_time = datetime.datetime.fromisoformat(d.pop("fire_time"))

        status = d.pop("status")

        def _parse_run(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        run = _parse_run(d.pop("run"))

        def _parse_run_status(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        run_status = _parse_run_status(d.pop("run_status"))

        attempts = d.pop("attempts")

        message = d.pop("message")

        fire_output = cls(
            fire_time=fire_time,
            status=status,
            run=run,
            run_status=run_status,
            attempts=attempts,
            message=message,
        )

        fire_output.additional_properties = d
        return fire_output

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
