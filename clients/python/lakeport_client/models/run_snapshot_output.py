from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.run_snapshot_output_versions import RunSnapshotOutputVersions


T = TypeVar("T", bound="RunSnapshotOutput")


@_attrs_define
class RunSnapshotOutput:
    """
    Attributes:
        as_of (datetime.datetime | None): Delta inputs read as of this instant
        like_run (int | None): The earlier run whose versions it read
        versions (RunSnapshotOutputVersions): {table path: version} to read
        consistent (bool): Asked for one consistent cut of the pipeline (`versions`: the cut chosen, once the run ended)
    """

    as_of: datetime.datetime | None
    like_run: int | None
    versions: RunSnapshotOutputVersions
    consistent: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        as_of: None | str
        if isinstance(self.as_of, datetime.datetime):
            as_of = self.as_of.isoformat()
        else:
            as_of = self.as_of

        like_run: int | None
        like_run = self.like_run

        versions = self.versions.to_dict()

        consistent = self.consistent

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "as_of": as_of,
                "like_run": like_run,
                "versions": versions,
                "consistent": consistent,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.run_snapshot_output_versions import RunSnapshotOutputVersions  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_as_of(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                as_of_type_0 = datetime.datetime.fromisoformat(data)

                return as_of_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        as_of = _parse_as_of(d.pop("as_of"))

        def _parse_like_run(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        like_run = _parse_like_run(d.pop("like_run"))

        versions = RunSnapshotOutputVersions.from_dict(d.pop("versions"))

        consistent = d.pop("consistent")

        run_snapshot_output = cls(
            as_of=as_of,
            like_run=like_run,
            versions=versions,
            consistent=consistent,
        )

        run_snapshot_output.additional_properties = d
        return run_snapshot_output

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
