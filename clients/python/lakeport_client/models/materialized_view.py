from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.refresh_mode_enum import RefreshModeEnum

if TYPE_CHECKING:
    from ..models.materialized_view_sources import MaterializedViewSources


T = TypeVar("T", bound="MaterializedView")


@_attrs_define
class MaterializedView:
    """
    Attributes:
        catalog (str):
        database (str):
        name (str):
        query (str):
        refresh_mode (RefreshModeEnum): * `manual` - manual
            * `schedule` - schedule
            * `on_commit` - on_commit
        schedule_cron (str):
        schedule_timezone (str):
        partition_by (list[str]):
        comment (str):
        table_version (int | None):
        state (str):
        stale (bool):
        sources (MaterializedViewSources):
        last_refresh (Any):
        refresh_again (bool): ON COMMIT: a source committed during the running refresh; one more refresh follows it.
        schedule_id (int | None): The schedule firing its SCHEDULE CRON.
        next_refresh (datetime.datetime | None): The schedule's next tick (null: none).
        update_time (datetime.datetime):
    """

    catalog: str
    database: str
    name: str
    query: str
    refresh_mode: RefreshModeEnum
    schedule_cron: str
    schedule_timezone: str
    partition_by: list[str]
    comment: str
    table_version: int | None
    state: str
    stale: bool
    sources: MaterializedViewSources
    last_refresh: Any
    refresh_again: bool
    schedule_id: int | None
    next_refresh: datetime.datetime | None
    update_time: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        catalog = self.catalog

        database = self.database

        name = self.name

        query = self.query

        refresh_mode = self.refresh_mode.value

        schedule_cron = self.schedule_cron

        schedule_timezone = self.schedule_timezone

        partition_by = self.partition_by

        comment = self.comment

        table_version: int | None
        table_version = self.table_version

        state = self.state

        stale = self.stale

        sources = self.sources.to_dict()

        last_refresh = self.last_refresh

        refresh_again = self.refresh_again

        schedule_id: int | None
        schedule_id = self.schedule_id

        next_refresh: None | str
        if isinstance(self.next_refresh, datetime.datetime):
            next_refresh = self.next_refresh.isoformat()
        else:
            next_refresh = self.next_refresh

        update_time = self.update_time.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "catalog": catalog,
                "database": database,
                "name": name,
                "query": query,
                "refresh_mode": refresh_mode,
                "schedule_cron": schedule_cron,
                "schedule_timezone": schedule_timezone,
                "partition_by": partition_by,
                "comment": comment,
                "table_version": table_version,
                "state": state,
                "stale": stale,
                "sources": sources,
                "last_refresh": last_refresh,
                "refresh_again": refresh_again,
                "schedule_id": schedule_id,
                "next_refresh": next_refresh,
                "update_time": update_time,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.materialized_view_sources import MaterializedViewSources  # noqa: PLC0415

        d = dict(src_dict)
        catalog = d.pop("catalog")

        database = d.pop("database")

        name = d.pop("name")

        query = d.pop("query")

        refresh_mode = RefreshModeEnum(d.pop("refresh_mode"))

        schedule_cron = d.pop("schedule_cron")

        schedule_timezone = d.pop("schedule_timezone")

        partition_by = cast(list[str], d.pop("partition_by"))

        comment = d.pop("comment")

        def _parse_table_version(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        table_version = _parse_table_version(d.pop("table_version"))

        state = d.pop("state")

        stale = d.pop("stale")

        sources = MaterializedViewSources.from_dict(d.pop("sources"))

        last_refresh = d.pop("last_refresh")

        refresh_again = d.pop("refresh_again")

        def _parse_schedule_id(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        schedule_id = _parse_schedule_id(d.pop("schedule_id"))

        def _parse_next_refresh(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                next_refresh_type_0 = datetime.datetime.fromisoformat(data)

                return next_refresh_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        next_refresh = _parse_next_refresh(d.pop("next_refresh"))

        update_time = datetime.datetime.fromisoformat(d.pop("update_time"))

        materialized_view = cls(
            catalog=catalog,
            database=database,
            name=name,
            query=query,
            refresh_mode=refresh_mode,
            schedule_cron=schedule_cron,
            schedule_timezone=schedule_timezone,
            partition_by=partition_by,
            comment=comment,
            table_version=table_version,
            state=state,
            stale=stale,
            sources=sources,
            last_refresh=last_refresh,
            refresh_again=refresh_again,
            schedule_id=schedule_id,
            next_refresh=next_refresh,
            update_time=update_time,
        )

        materialized_view.additional_properties = d
        return materialized_view

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
