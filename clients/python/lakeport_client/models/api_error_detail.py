from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ApiErrorDetail")


@_attrs_define
class ApiErrorDetail:
    """What went wrong: a stable `code`, a `message` for people and `details` (field → messages for `invalid`).

    Attributes:
        code (str): Stable, machine-readable: `invalid`, `not_found`, `conflict`, …
        message (str): For people; may change between releases.
        details (Any): Field → messages for `invalid`; otherwise usually empty.
    """

    code: str
    message: str
    details: Any
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        code = self.code

        message = self.message

        details = self.details

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "code": code,
                "message": message,
                "details": details,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        code = d.pop("code")

        message = d.pop("message")

        details = d.pop("details")

        api_error_detail = cls(
            code=code,
            message=message,
            details=details,
        )

        api_error_detail.additional_properties = d
        return api_error_detail

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
