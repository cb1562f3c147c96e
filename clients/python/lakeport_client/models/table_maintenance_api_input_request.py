from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.operation_enum import OperationEnum
from ..types import UNSET, Unset

T = TypeVar("T", bound="TableMaintenanceApiInputRequest")


@_attrs_define
class TableMaintenanceApiInputRequest:
    """
    Attributes:
        operation (OperationEnum): * `optimize` - optimize
            * `vacuum` - vacuum
        retain_hours (int | None | Unset): VACUUM only: RETAIN n HOURS (at least the table's
            delta.deletedFileRetentionDuration, else the run fails)
    """

    operation: OperationEnum
    retain_hours: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        operation = self.operation.value

        retain_hours: int | None | Unset
        if isinstance(self.retain_hours, Unset):
            retain_hours = UNSET
        else:
            retain_hours = self.retain_hours

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "operation": operation,
            }
        )
        if retain_hours is not UNSET:
            field_dict["retain_hours"] = retain_hours

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        operation = OperationEnum(d.pop("operation"))

        def _parse_retain_hours(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        retain_hours = _parse_retain_hours(d.pop("retain_hours", UNSET))

        table_maintenance_api_input_request = cls(
            operation=operation,
            retain_hours=retain_hours,
        )

        table_maintenance_api_input_request.additional_properties = d
        return table_maintenance_api_input_request

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
