from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="StreamMetricOutput")


@_attrs_define
class StreamMetricOutput:
    """
    Attributes:
        batch_id (int):
        ts (datetime.datetime):
        input_rows (int):
        input_rows_per_second (float | None):
        processed_rows_per_second (float | None):
        output_rows (int | None):
        output_rows_per_second (float | None):
        duration_ms (int):
        watermark (datetime.datetime | None):
        state_rows (int | None):
        state_memory_bytes (int | None):
        lag (int | None): Records the sources hold beyond this batch.
    """

    batch_id: int
    ts: datetime.datetime
    input_rows: int
    input_rows_per_second: float | None
    processed_rows_per_second: float | None
    output_rows: int | None
    output_rows_per_second: float | None
    duration_ms: int
    watermark: datetime.datetime | None
    state_rows: int | None
    state_memory_bytes: int | None
    lag: int | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        batch_id = self.batch_id

        ts = self.ts.isoformat()

        input_rows = self.input_rows

        input_rows_per_second: float | None
        input_rows_per_second = self.input_rows_per_second

        processed_rows_per_second: float | None
        processed_rows_per_second = self.processed_rows_per_second

        output_rows: int | None
        output_rows = self.output_rows

        output_rows_per_second: float | None
        output_rows_per_second = self.output_rows_per_second

        duration_ms = self.duration_ms

        watermark: None | str
        if isinstance(self.watermark, datetime.datetime):
            watermark = self.watermark.isoformat()
        else:
            watermark = self.watermark

        state_rows: int | None
        state_rows = self.state_rows

        state_memory_bytes: int | None
        state_memory_bytes = self.state_memory_bytes

        lag: int | None
        lag = self.lag

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "batch_id": batch_id,
                "ts": ts,
                "input_rows": input_rows,
                "input_rows_per_second": input_rows_per_second,
                "processed_rows_per_second": processed_rows_per_second,
                "output_rows": output_rows,
                "output_rows_per_second": output_rows_per_second,
                "duration_ms": duration_ms,
                "watermark": watermark,
                "state_rows": state_rows,
                "state_memory_bytes": state_memory_bytes,
                "lag": lag,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        batch_id = d.pop("batch_id")

        ts = datetime.datetime.fromisoformat(d.pop("ts"))

        input_rows = d.pop("input_rows")

        def _parse_input_rows_per_second(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        input_rows_per_second = _parse_input_rows_per_second(d.pop("input_rows_per_second"))

        def _parse_processed_rows_per_second(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        processed_rows_per_second = _parse_processed_rows_per_second(d.pop("processed_rows_per_second"))

        def _parse_output_rows(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        output_rows = _parse_output_rows(d.pop("output_rows"))

        def _parse_output_rows_per_second(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        output_rows_per_second = _parse_output_rows_per_second(d.pop("output_rows_per_second"))

        duration_ms = d.pop("duration_ms")

        def _parse_watermark(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                watermark_type_0 = datetime.datetime.fromisoformat(data)

                return watermark_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        watermark = _parse_watermark(d.pop("watermark"))

        def _parse_state_rows(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        state_rows = _parse_state_rows(d.pop("state_rows"))

        def _parse_state_memory_bytes(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        state_memory_bytes = _parse_state_memory_bytes(d.pop("state_memory_bytes"))

        def _parse_lag(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        lag = _parse_lag(d.pop("lag"))

        stream_metric_output = cls(
            batch_id=batch_id,
            ts=ts,
            input_rows=input_rows,
            input_rows_per_second=input_rows_per_second,
            processed_rows_per_second=processed_rows_per_second,
            output_rows=output_rows,
            output_rows_per_second=output_rows_per_second,
            duration_ms=duration_ms,
            watermark=watermark,
            state_rows=state_rows,
            state_memory_bytes=state_memory_bytes,
            lag=lag,
        )

        stream_metric_output.additional_properties = d
        return stream_metric_output

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
