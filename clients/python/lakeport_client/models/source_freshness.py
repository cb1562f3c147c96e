from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="SourceFreshness")


@_attrs_define
class SourceFreshness:
    """
    Attributes:
        reflected (int): The source's Delta version the view's data reflects.
        latest (int | None): The source's latest Delta version (null: unknown).
        behind (int | None): Versions committed since (0: fresh).
        since (datetime.datetime | None | Unset): When the first commit the view does not reflect landed (null: fresh).
    """

    reflected: int
    latest: int | None
    behind: int | None
    since: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        reflected = self.reflected

        latest: int | None
        latest = self.latest

        behind: int | None
        behind = self.behind

        since: None | str | Unset
        if isinstance(self.since, Unset):
            since = UNSET
        elif isinstance(self.since, datetime.datetime):
            since = self.since.isoformat()
        else:
            since = self.since

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "reflected": reflected,
                "latest": latest,
                "behind": behind,
            }
        )
        if since is not UNSET:
            field_dict["since"] = since

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

        def _parse_since(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                since_type_0 = datetime.datetime.fromisoformat(data)

                return since_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        since = _parse_since(d.pop("since", UNSET))

        source_freshness = cls(
            reflected=reflected,
            latest=latest,
            behind=behind,
            since=since,
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
