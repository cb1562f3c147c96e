from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.view_source_freshness_output import ViewSourceFreshnessOutput


T = TypeVar("T", bound="ViewFreshnessOutput")


@_attrs_define
class ViewFreshnessOutput:
    """
    Attributes:
        name (str): The materialized view (catalog.database.view)
        refresh_mode (str):
        table_version (int | None): The view table's Delta version
        last_refresh_at (None | str): When its last refresh committed
        stale (bool): A source has commits the view does not reflect
        behind (int): Source versions not reflected, summed over the sources
        stale_since (datetime.datetime | None): Oldest unreflected source commit
        sources (list[ViewSourceFreshnessOutput]):
    """

    name: str
    refresh_mode: str
    table_version: int | None
    last_refresh_at: None | str
    stale: bool
    behind: int
    stale_since: datetime.datetime | None
    sources: list[ViewSourceFreshnessOutput]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        refresh_mode = self.refresh_mode

        table_version: int | None
        table_version = self.table_version

        last_refresh_at: None | str
        last_refresh_at = self.last_refresh_at

        stale = self.stale

        behind = self.behind

        stale_since: None | str
        if isinstance(self.stale_since, datetime.datetime):
            stale_since = self.stale_since.isoformat()
        else:
            stale_since = self.stale_since

        sources = []
        for sources_item_data in self.sources:
            sources_item = sources_item_data.to_dict()
            sources.append(sources_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
                "refresh_mode": refresh_mode,
                "table_version": table_version,
                "last_refresh_at": last_refresh_at,
                "stale": stale,
                "behind": behind,
                "stale_since": stale_since,
                "sources": sources,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.view_source_freshness_output import ViewSourceFreshnessOutput  # noqa: PLC0415

        d = dict(src_dict)
        name = d.pop("name")

        refresh_mode = d.pop("refresh_mode")

        def _parse_table_version(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        table_version = _parse_table_version(d.pop("table_version"))

        def _parse_last_refresh_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        last_refresh_at = _parse_last_refresh_at(d.pop("last_refresh_at"))

        stale = d.pop("stale")

        behind = d.pop("behind")

        def _parse_stale_since(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                stale_since_type_0 = datetime.datetime.fromisoformat(data)

                return stale_since_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        stale_since = _parse_stale_since(d.pop("stale_since"))

        sources = []
        _sources = d.pop("sources")
        for sources_item_data in _sources:
            sources_item = ViewSourceFreshnessOutput.from_dict(sources_item_data)

            sources.append(sources_item)

        view_freshness_output = cls(
            name=name,
            refresh_mode=refresh_mode,
            table_version=table_version,
            last_refresh_at=last_refresh_at,
            stale=stale,
            behind=behind,
            stale_since=stale_since,
            sources=sources,
        )

        view_freshness_output.additional_properties = d
        return view_freshness_output

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
