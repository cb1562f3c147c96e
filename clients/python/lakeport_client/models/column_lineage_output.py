from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.column_step_output import ColumnStepOutput
    from ..models.dataset_output import DatasetOutput


T = TypeVar("T", bound="ColumnLineageOutput")


@_attrs_define
class ColumnLineageOutput:
    """
    Attributes:
        dataset (DatasetOutput):
        column (str):
        edges (list[ColumnStepOutput]):
    """

    dataset: DatasetOutput
    column: str
    edges: list[ColumnStepOutput]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        dataset = self.dataset.to_dict()

        column = self.column

        edges = []
        for edges_item_data in self.edges:
            edges_item = edges_item_data.to_dict()
            edges.append(edges_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "dataset": dataset,
                "column": column,
                "edges": edges,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.column_step_output import ColumnStepOutput  # noqa: PLC0415
        from ..models.dataset_output import DatasetOutput  # noqa: PLC0415

        d = dict(src_dict)
        dataset = DatasetOutput.from_dict(d.pop("dataset"))

        column = d.pop("column")

        edges = []
        _edges = d.pop("edges")
        for edges_item_data in _edges:
            edges_item = ColumnStepOutput.from_dict(edges_item_data)

            edges.append(edges_item)

        column_lineage_output = cls(
            dataset=dataset,
            column=column,
            edges=edges,
        )

        column_lineage_output.additional_properties = d
        return column_lineage_output

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
