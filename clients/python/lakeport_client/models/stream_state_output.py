from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.desired_enum import DesiredEnum
from ..models.stream_state_output_status_enum import StreamStateOutputStatusEnum

if TYPE_CHECKING:
    from ..models.stream_metric_output import StreamMetricOutput


T = TypeVar("T", bound="StreamStateOutput")


@_attrs_define
class StreamStateOutput:
    """
    Attributes:
        status (StreamStateOutputStatusEnum): * `STARTING` - Starting
            * `RUNNING` - Running
            * `RESTARTING` - Restarting
            * `STOPPING` - Stopping
            * `STOPPED` - Stopped
            * `FAILED` - Failed
        desired (DesiredEnum): * `running` - Running
            * `stopped` - Stopped
        restarts (int):
        last_error (None | str):
        query_id (None | str):
        started_at (datetime.datetime | None):
        heartbeat_at (datetime.datetime | None):
        checkpoint_generation (int):
        latest (None | StreamMetricOutput):
        falling_behind (bool): The source lag grew over the last N batches.
    """

    status: StreamStateOutputStatusEnum
    desired: DesiredEnum
    restarts: int
    last_error: None | str
    query_id: None | str
    started_at: datetime.datetime | None
    heartbeat_at: datetime.datetime | None
    checkpoint_generation: int
    latest: None | StreamMetricOutput
    falling_behind: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.stream_metric_output import StreamMetricOutput  # noqa: PLC0415

        status = self.status.value

        desired = self.desired.value

        restarts = self.restarts

        last_error: None | str
        last_error = self.last_error

        query_id: None | str
        query_id = self.query_id

        started_at: None | str
        if isinstance(self.started_at, datetime.datetime):
            started_at = self.started_at.isoformat()
        else:
            started_at = self.started_at

        heartbeat_at: None | str
        if isinstance(self.heartbeat_at, datetime.datetime):
            heartbeat_at = self.heartbeat_at.isoformat()
        else:
            heartbeat_at = self.heartbeat_at

        checkpoint_generation = self.checkpoint_generation

        latest: dict[str, Any] | None
        if isinstance(self.latest, StreamMetricOutput):
            latest = self.latest.to_dict()
        else:
            latest = self.latest

        falling_behind = self.falling_behind

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "status": status,
                "desired": desired,
                "restarts": restarts,
                "last_error": last_error,
                "query_id": query_id,
                "started_at": started_at,
                "heartbeat_at": heartbeat_at,
                "checkpoint_generation": checkpoint_generation,
                "latest": latest,
                "falling_behind": falling_behind,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.stream_metric_output import StreamMetricOutput  # noqa: PLC0415

        d = dict(src_dict)
        status = StreamStateOutputStatusEnum(d.pop("status"))

        desired = DesiredEnum(d.pop("desired"))

        restarts = d.pop("restarts")

        def _parse_last_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        last_error = _parse_last_error(d.pop("last_error"))

        def _parse_query_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        query_id = _parse_query_id(d.pop("query_id"))

        def _parse_started_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                started_at_type_0 = datetime.datetime.fromisoformat(data)

                return started_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        started_at = _parse_started_at(d.pop("started_at"))

        def _parse_heartbeat_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                heartbeat_at_type_0 = datetime.datetime.fromisoformat(data)

                return heartbeat_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        heartbeat_at = _parse_heartbeat_at(d.pop("heartbeat_at"))

        checkpoint_generation = d.pop("checkpoint_generation")

        def _parse_latest(data: object) -> None | StreamMetricOutput:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                latest_type_1 = StreamMetricOutput.from_dict(data)

                return latest_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | StreamMetricOutput, data)

        latest = _parse_latest(d.pop("latest"))

        falling_behind = d.pop("falling_behind")

        stream_state_output = cls(
            status=status,
            desired=desired,
            restarts=restarts,
            last_error=last_error,
            query_id=query_id,
            started_at=started_at,
            heartbeat_at=heartbeat_at,
            checkpoint_generation=checkpoint_generation,
            latest=latest,
            falling_behind=falling_behind,
        )

        stream_state_output.additional_properties = d
        return stream_state_output

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
