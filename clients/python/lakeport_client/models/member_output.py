from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.role_enum import RoleEnum

T = TypeVar("T", bound="MemberOutput")


@_attrs_define
class MemberOutput:
    """
    Attributes:
        username (str):
        role (RoleEnum): * `viewer` - Viewer
            * `developer` - Developer
            * `admin` - Admin
        created_at (datetime.datetime):
    """

    username: str
    role: RoleEnum
    created_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        username = self.username

        role = self.role.value

        created_at = self.created_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "username": username,
                "role": role,
                "created_at": created_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        username = d.pop("username")

        role = RoleEnum(d.pop("role"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        member_output = cls(
            username=username,
            role=role,
            created_at=created_at,
        )

        member_output.additional_properties = d
        return member_output

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
