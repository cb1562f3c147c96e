from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.direction_enum import DirectionEnum

T = TypeVar("T", bound="LineageEdgeOutput")


@_attrs_define
class LineageEdgeOutput:
    """
    Attributes:
        job (int):
        dataset (int):
        direction (DirectionEnum): * `in` - in
            * `out` - out
        last_run (int | None):
        last_status (str):
    """

    job: int
    dataset: int
    direction: DirectionEnum
    last_run: int | None
    last_status: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        job = self.job

        dataset = self.dataset

        direction = self.direction.value

        last_run: int | None
        last_run = self.last_run

        last_status = self.last_status

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "job": job,
                "dataset": dataset,
                "direction": direction,
                "last_run": last_run,
                "last_status": last_status,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        job = d.pop("job")

        dataset = d.pop("dataset")

        direction = DirectionEnum(d.pop("direction"))

        def _parse_last_run(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        last_run = _parse_last_run(d.pop("last_run"))

        last_status = d.pop("last_status")

        lineage_edge_output = cls(
            job=job,
            dataset=dataset,
            direction=direction,
            last_run=last_run,
            last_status=last_status,
        )

        lineage_edge_output.additional_properties = d
        return lineage_edge_output

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
