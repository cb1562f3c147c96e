from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.privilege_enum import PrivilegeEnum
from ..types import UNSET, Unset

T = TypeVar("T", bound="GrantOutput")


@_attrs_define
class GrantOutput:
    """
    Attributes:
        id (int):
        securable (str): catalog, catalog.schema or catalog.schema.table (* below a level).
        privilege (PrivilegeEnum): * `BROWSE` - Browse
            * `SELECT` - Select
            * `MODIFY` - Modify
            * `CREATE` - Create
            * `MANAGE` - Manage
        principal_type (str):
        principal (str):
        granted_at (datetime.datetime):
        granted_by (None | str | Unset):
    """

    id: int
    securable: str
    privilege: PrivilegeEnum
    principal_type: str
    principal: str
    granted_at: datetime.datetime
    granted_by: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        securable = self.securable

        privilege = self.privilege.value

        principal_type = self.principal_type

        principal = self.principal

        granted_at = self.granted_at.isoformat()

        granted_by: None | str | Unset
        if isinstance(self.granted_by, Unset):
            granted_by = UNSET
        else:
            granted_by = self.granted_by

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "securable": securable,
                "privilege": privilege,
                "principal_type": principal_type,
                "principal": principal,
                "granted_at": granted_at,
            }
        )
        if granted_by is not UNSET:
            field_dict["granted_by"] = granted_by

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        securable = d.pop("securable")

        privilege = PrivilegeEnum(d.pop("privilege"))

        principal_type = d.pop("principal_type")

        principal = d.pop("principal")

        granted_at = datetime.datetime.fromisoformat(d.pop("granted_at"))

        def _parse_granted_by(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        granted_by = _parse_granted_by(d.pop("granted_by", UNSET))

        grant_output = cls(
            id=id,
            securable=securable,
            privilege=privilege,
            principal_type=principal_type,
            principal=principal,
            granted_at=granted_at,
            granted_by=granted_by,
        )

        grant_output.additional_properties = d
        return grant_output

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
