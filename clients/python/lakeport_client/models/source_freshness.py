from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="SourceFreshness")


@_attrs_define
class SourceFreshness:
    """
    Attributes:
        reflected (int): The source's Delta version the view's data reflects.
        latest (int | None): The source's latest Delta version (null: unknown).
        behind (int | None): Versions committed since (0: fresh).
    """

    reflected: int
    latest: int | None
    behind: int | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        reflected = self.reflected

        latest: int | None
        latest = self.latest

        behind: int | None
        behind = self.behind

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "reflected": reflected,
                "latest": latest,
                "behind": behind,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        reflected = d.pop("reflected")

        def _parse_latest(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        latest = _parse_latest(d.pop("latest"))

        def _parse_behind(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        behind = _parse_behind(d.pop("behind"))

        source_freshness = cls(
            reflected=reflected,
            latest=latest,
            behind=behind,
        )

        source_freshness.additional_properties = d
        return source_freshness

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
