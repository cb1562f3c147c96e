from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.principal_type_enum import PrincipalTypeEnum
from ..models.privilege_enum import PrivilegeEnum

T = TypeVar("T", bound="GrantListApiInputRequest")


@_attrs_define
class GrantListApiInputRequest:
    """
    Attributes:
        securable (str):
        privilege (PrivilegeEnum): * `BROWSE` - Browse
            * `SELECT` - Select
            * `MODIFY` - Modify
            * `CREATE` - Create
            * `MANAGE` - Manage
        principal_type (PrincipalTypeEnum): * `user` - user
            * `group` - group
        principal (str):
    """

    securable: str
    privilege: PrivilegeEnum
    principal_type: PrincipalTypeEnum
    principal: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        securable = self.securable

        privilege = self.privilege.value

        principal_type = self.principal_type.value

        principal = self.principal

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "securable": securable,
                "privilege": privilege,
                "principal_type": principal_type,
                "principal": principal,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        securable = d.pop("securable")

        privilege = PrivilegeEnum(d.pop("privilege"))

        principal_type = PrincipalTypeEnum(d.pop("principal_type"))

        principal = d.pop("principal")

        grant_list_api_input_request = cls(
            securable=securable,
            privilege=privilege,
            principal_type=principal_type,
            principal=principal,
        )

        grant_list_api_input_request.additional_properties = d
        return grant_list_api_input_request

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
