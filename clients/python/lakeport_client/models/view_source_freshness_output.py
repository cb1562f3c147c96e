from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ViewSourceFreshnessOutput")


@_attrs_define
class ViewSourceFreshnessOutput:
    """
    Attributes:
        name (str): A source table of the view
        reflected (int): The source's Delta version the view's data reflects
        latest (int | None): The source's newest Delta version (null: unknown)
        behind (int | None): Versions the view does not reflect (0: fresh)
        since (datetime.datetime | None): When the first unreflected commit landed
    """

    name: str
    reflected: int
    latest: int | None
    behind: int | None
    since: datetime.datetime | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        reflected = self.reflected

        latest: int | None
        latest = self.latest

        behind: int | None
        behind = self.behind

        since: None | str
        if isinstance(self.since, datetime.datetime):
            since = self.since.isoformat()
        else:
            since = self.since

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
                "reflected": reflected,
                "latest": latest,
                "behind": behind,
                "since": since,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

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

        def _parse_since(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                since_type_0 = datetime.datetime.fromisoformat(data)

                return since_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        since = _parse_since(d.pop("since"))

        view_source_freshness_output = cls(
            name=name,
            reflected=reflected,
            latest=latest,
            behind=behind,
            since=since,
        )

        view_source_freshness_output.additional_properties = d
        return view_source_freshness_output

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
