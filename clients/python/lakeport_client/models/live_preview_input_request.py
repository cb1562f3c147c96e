from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="LivePreviewInputRequest")


@_attrs_define
class LivePreviewInputRequest:
    """
    Attributes:
        sql (str):
        default_catalog (str | Unset): A catalog of the team where unqualified names resolve, as a run of a job with
            this `default_catalog` (the script's own USE CATALOG still wins); an unknown one is a 400 naming this field.
            Default: ''.
    """

    sql: str
    default_catalog: str | Unset = ""
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        sql = self.sql

        default_catalog = self.default_catalog

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "sql": sql,
            }
        )
        if default_catalog is not UNSET:
            field_dict["default_catalog"] = default_catalog

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        sql = d.pop("sql")

        default_catalog = d.pop("default_catalog", UNSET)

        live_preview_input_request = cls(
            sql=sql,
            default_catalog=default_catalog,
        )

        live_preview_input_request.additional_properties = d
        return live_preview_input_request

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
