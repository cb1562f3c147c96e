from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.lineage_job_output import LineageJobOutput
    from ..models.reached_dataset_output import ReachedDatasetOutput


T = TypeVar("T", bound="ImpactOutput")


@_attrs_define
class ImpactOutput:
    """
    Attributes:
        dataset (ReachedDatasetOutput):
        jobs (list[LineageJobOutput]):
        datasets (list[ReachedDatasetOutput]):
    """

    dataset: ReachedDatasetOutput
    jobs: list[LineageJobOutput]
    datasets: list[ReachedDatasetOutput]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        dataset = self.dataset.to_dict()

        jobs = []
        for jobs_item_data in self.jobs:
            jobs_item = jobs_item_data.to_dict()
            jobs.append(jobs_item)

        datasets = []
        for datasets_item_data in self.datasets:
            datasets_item = datasets_item_data.to_dict()
            datasets.append(datasets_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "dataset": dataset,
                "jobs": jobs,
                "datasets": datasets,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.lineage_job_output import LineageJobOutput  # noqa: PLC0415
        from ..models.reached_dataset_output import ReachedDatasetOutput  # noqa: PLC0415

        d = dict(src_dict)
        dataset = ReachedDatasetOutput.from_dict(d.pop("dataset"))

        jobs = []
        _jobs = d.pop("jobs")
        for jobs_item_data in _jobs:
            jobs_item = LineageJobOutput.from_dict(jobs_item_data)

            jobs.append(jobs_item)

        datasets = []
        _datasets = d.pop("datasets")
        for datasets_item_data in _datasets:
            datasets_item = ReachedDatasetOutput.from_dict(datasets_item_data)

            datasets.append(datasets_item)

        impact_output = cls(
            dataset=dataset,
            jobs=jobs,
            datasets=datasets,
        )

        impact_output.additional_properties = d
        return impact_output

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
