from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.job_edge_dataset_output import JobEdgeDatasetOutput
    from ..models.lineage_job_output import LineageJobOutput


T = TypeVar("T", bound="JobLineageOutput")


@_attrs_define
class JobLineageOutput:
    """
    Attributes:
        job (LineageJobOutput):
        inputs (list[JobEdgeDatasetOutput]):
        outputs (list[JobEdgeDatasetOutput]):
    """

    job: LineageJobOutput
    inputs: list[JobEdgeDatasetOutput]
    outputs: list[JobEdgeDatasetOutput]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        job = self.job.to_dict()

        inputs = []
        for inputs_item_data in self.inputs:
            inputs_item = inputs_item_data.to_dict()
            inputs.append(inputs_item)

        outputs = []
        for outputs_item_data in self.outputs:
            outputs_item = outputs_item_data.to_dict()
            outputs.append(outputs_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "job": job,
                "inputs": inputs,
                "outputs": outputs,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.job_edge_dataset_output import JobEdgeDatasetOutput  # noqa: PLC0415
        from ..models.lineage_job_output import LineageJobOutput  # noqa: PLC0415

        d = dict(src_dict)
        job = LineageJobOutput.from_dict(d.pop("job"))

        inputs = []
        _inputs = d.pop("inputs")
        for inputs_item_data in _inputs:
            inputs_item = JobEdgeDatasetOutput.from_dict(inputs_item_data)

            inputs.append(inputs_item)

        outputs = []
        _outputs = d.pop("outputs")
        for outputs_item_data in _outputs:
            outputs_item = JobEdgeDatasetOutput.from_dict(outputs_item_data)

            outputs.append(outputs_item)

        job_lineage_output = cls(
            job=job,
            inputs=inputs,
            outputs=outputs,
        )

        job_lineage_output.additional_properties = d
        return job_lineage_output

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
