from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ParameterDeclarationOutput")


@_attrs_define
class ParameterDeclarationOutput:
    """
    Attributes:
        type_ (str): string | int | bigint | double | decimal | boolean | date | timestamp
        default (None | str):
    """

    type_: str
    default: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_

        default: None | str
        default = self.default

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "default": default,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = d.pop("type")

        def _parse_default(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        default = _parse_default(d.pop("default"))

        parameter_declaration_output = cls(
            type_=type_,
            default=default,
        )

        parameter_declaration_output.additional_properties = d
        return parameter_declaration_output

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
