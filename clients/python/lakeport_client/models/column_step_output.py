from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.lineage_job_output import LineageJobOutput


T = TypeVar("T", bound="ColumnStepOutput")


@_attrs_define
class ColumnStepOutput:
    """
    Attributes:
        dataset (str):
        dataset_id (int):
        column (str):
        input_dataset (str):
        input_dataset_id (int):
        input_column (str):
        kind (str): identity | expression | aggregation
        job (LineageJobOutput):
        depth (int):
    """

    dataset: str
    dataset_id: int
    column: str
    input_dataset: str
    input_dataset_id: int
    input_column: str
    kind: str
    job: LineageJobOutput
    depth: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        dataset = self.dataset

        dataset_id = self.dataset_id

        column = self.column

        input_dataset = self.input_dataset

        input_dataset_id = self.input_dataset_id

        input_column = self.input_column

        kind = self.kind

        job = self.job.to_dict()

        depth = self.depth

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "dataset": dataset,
                "dataset_id": dataset_id,
                "column": column,
                "input_dataset": input_dataset,
                "input_dataset_id": input_dataset_id,
                "input_column": input_column,
                "kind": kind,
                "job": job,
                "depth": depth,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.lineage_job_output import LineageJobOutput  # noqa: PLC0415

        d = dict(src_dict)
        dataset = d.pop("dataset")

        dataset_id = d.pop("dataset_id")

        column = d.pop("column")

        input_dataset = d.pop("input_dataset")

        input_dataset_id = d.pop("input_dataset_id")

        input_column = d.pop("input_column")

        kind = d.pop("kind")

        job = LineageJobOutput.from_dict(d.pop("job"))

        depth = d.pop("depth")

        column_step_output = cls(
            dataset=dataset,
            dataset_id=dataset_id,
            column=column,
            input_dataset=input_dataset,
            input_dataset_id=input_dataset_id,
            input_column=input_column,
            kind=kind,
            job=job,
            depth=depth,
        )

        column_step_output.additional_properties = d
        return column_step_output

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
