from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="PreviewSnapshotInputRequest")


@_attrs_define
class PreviewSnapshotInputRequest:
    """
    Attributes:
        consistent (bool): true: read the query's Delta tables at one consistent cut of their materialized view
            pipeline, as a run's {"snapshot": {"consistent": true}} (docs/materialized-views.md).
    """

    consistent: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        consistent = self.consistent

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "consistent": consistent,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        consistent = d.pop("consistent")

        preview_snapshot_input_request = cls(
            consistent=consistent,
        )

        preview_snapshot_input_request.additional_properties = d
        return preview_snapshot_input_request

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
