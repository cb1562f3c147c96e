from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.run_edge_dataset_output import RunEdgeDatasetOutput
    from ..models.run_snapshot_output import RunSnapshotOutput


T = TypeVar("T", bound="RunLineageOutput")


@_attrs_define
class RunLineageOutput:
    """
    Attributes:
        run (int):
        status (str):
        inputs (list[RunEdgeDatasetOutput]):
        outputs (list[RunEdgeDatasetOutput]):
        snapshot (None | RunSnapshotOutput): What the run asked of its Delta inputs, if anything
    """

    run: int
    status: str
    inputs: list[RunEdgeDatasetOutput]
    outputs: list[RunEdgeDatasetOutput]
    snapshot: None | RunSnapshotOutput
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.run_snapshot_output import RunSnapshotOutput  # noqa: PLC0415

        run = self.run

        status = self.status

        inputs = []
        for inputs_item_data in self.inputs:
            inputs_item = inputs_item_data.to_dict()
            inputs.append(inputs_item)

        outputs = []
        for outputs_item_data in self.outputs:
            outputs_item = outputs_item_data.to_dict()
            outputs.append(outputs_item)

        snapshot: dict[str, Any] | None
        if isinstance(self.snapshot, RunSnapshotOutput):
            snapshot = self.snapshot.to_dict()
        else:
            snapshot = self.snapshot

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "run": run,
                "status": status,
                "inputs": inputs,
                "outputs": outputs,
                "snapshot": snapshot,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.run_edge_dataset_output import RunEdgeDatasetOutput  # noqa: PLC0415
        from ..models.run_snapshot_output import RunSnapshotOutput  # noqa: PLC0415

        d = dict(src_dict)
        run = d.pop("run")

        status = d.pop("status")

        inputs = []
        _inputs = d.pop("inputs")
        for inputs_item_data in _inputs:
            inputs_item = RunEdgeDatasetOutput.from_dict(inputs_item_data)

            inputs.append(inputs_item)

        outputs = []
        _outputs = d.pop("outputs")
        for outputs_item_data in _outputs:
            outputs_item = RunEdgeDatasetOutput.from_dict(outputs_item_data)

            outputs.append(outputs_item)

        def _parse_snapshot(data: object) -> None | RunSnapshotOutput:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                snapshot_type_1 = RunSnapshotOutput.from_dict(data)

                return snapshot_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RunSnapshotOutput, data)

        snapshot = _parse_snapshot(d.pop("snapshot"))

        run_lineage_output = cls(
            run=run,
            status=status,
            inputs=inputs,
            outputs=outputs,
            snapshot=snapshot,
        )

        run_lineage_output.additional_properties = d
        return run_lineage_output

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
