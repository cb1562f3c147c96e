from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.run_input_request_parameters import RunInputRequestParameters
    from ..models.run_input_request_snapshot_type_0 import RunInputRequestSnapshotType0


T = TypeVar("T", bound="RunInputRequest")


@_attrs_define
class RunInputRequest:
    """
    Attributes:
        parameters (RunInputRequestParameters | Unset): Values overriding the defaults.
        snapshot (None | RunInputRequestSnapshotType0 | Unset): Delta inputs read as of one time, {"as_of": "<ISO
            8601>"}, or at the versions an earlier run read, {"like_run": <run id>}, or at one consistent cut of the
            materialized view pipeline it reads, {"consistent": true}.
    """

    parameters: RunInputRequestParameters | Unset = UNSET
    snapshot: None | RunInputRequestSnapshotType0 | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.run_input_request_snapshot_type_0 import (
            RunInputRequestSnapshotType0,  # noqa: PLC0415
        )

        parameters: dict[str, Any] | Unset = UNSET
        if not isinstance(self.parameters, Unset):
            parameters = self.parameters.to_dict()

        snapshot: dict[str, Any] | None | Unset
        if isinstance(self.snapshot, Unset):
            snapshot = UNSET
        elif isinstance(self.snapshot, RunInputRequestSnapshotType0):
            snapshot = self.snapshot.to_dict()
        else:
            snapshot = self.snapshot

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if parameters is not UNSET:
            field_dict["parameters"] = parameters
        if snapshot is not UNSET:
            field_dict["snapshot"] = snapshot

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.run_input_request_parameters import RunInputRequestParameters  # noqa: PLC0415
        from ..models.run_input_request_snapshot_type_0 import (
            RunInputRequestSnapshotType0,  # noqa: PLC0415
        )

        d = dict(src_dict)
        _parameters = d.pop("parameters", UNSET)
        parameters: RunInputRequestParameters | Unset
        if isinstance(_parameters, Unset):
            parameters = UNSET
        else:
            parameters = RunInputRequestParameters.from_dict(_parameters)

        def _parse_snapshot(data: object) -> None | RunInputRequestSnapshotType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                snapshot_type_0 = RunInputRequestSnapshotType0.from_dict(data)

                return snapshot_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RunInputRequestSnapshotType0 | Unset, data)

        snapshot = _parse_snapshot(d.pop("snapshot", UNSET))

        run_input_request = cls(
            parameters=parameters,
            snapshot=snapshot,
        )

        run_input_request.additional_properties = d
        return run_input_request

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
