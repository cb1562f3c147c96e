from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.live_preview_status_enum import LivePreviewStatusEnum

if TYPE_CHECKING:
    from ..models.result_column_output import ResultColumnOutput
    from ..models.run_error_output import RunErrorOutput


T = TypeVar("T", bound="LivePreview")


@_attrs_define
class LivePreview:
    """
    Attributes:
        id (str):
        status (LivePreviewStatusEnum): * `STARTING` - STARTING
            * `RUNNING` - RUNNING
            * `STOPPED` - STOPPED
            * `FAILED` - FAILED
        columns (list[ResultColumnOutput]):
        rows (list[list[Any]]):
        stopped (None | str): seconds | rows | cancelled | failed
        error (None | RunErrorOutput):
        seconds (float): It stops by itself after this many seconds …
        max_rows (int): … or this many rows.
    """

    id: str
    status: LivePreviewStatusEnum
    columns: list[ResultColumnOutput]
    rows: list[list[Any]]
    stopped: None | str
    error: None | RunErrorOutput
    seconds: float
    max_rows: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.run_error_output import RunErrorOutput  # noqa: PLC0415

        id = self.id

        status = self.status.value

        columns = []
        for columns_item_data in self.columns:
            columns_item = columns_item_data.to_dict()
            columns.append(columns_item)

        rows = []
        for rows_item_data in self.rows:
            rows_item = rows_item_data

            rows.append(rows_item)

        stopped: None | str
        stopped = self.stopped

        error: dict[str, Any] | None
        if isinstance(self.error, RunErrorOutput):
            error = self.error.to_dict()
        else:
            error = self.error

        seconds = self.seconds

        max_rows = self.max_rows

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "status": status,
                "columns": columns,
                "rows": rows,
                "stopped": stopped,
                "error": error,
                "seconds": seconds,
                "max_rows": max_rows,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.result_column_output import ResultColumnOutput  # noqa: PLC0415
        from ..models.run_error_output import RunErrorOutput  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        status = LivePreviewStatusEnum(d.pop("status"))

        columns = []
        _columns = d.pop("columns")
        for columns_item_data in _columns:
            columns_item = ResultColumnOutput.from_dict(columns_item_data)

            columns.append(columns_item)

        rows = []
        _rows = d.pop("rows")
        for rows_item_data in _rows:
            rows_item = cast(list[Any], rows_item_data)

            rows.append(rows_item)

        def _parse_stopped(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        stopped = _parse_stopped(d.pop("stopped"))

        def _parse_error(data: object) -> None | RunErrorOutput:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                error_type_1 = RunErrorOutput.from_dict(data)

                return error_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RunErrorOutput, data)

        error = _parse_error(d.pop("error"))

        seconds = d.pop("seconds")

        max_rows = d.pop("max_rows")

        live_preview = cls(
            id=id,
            status=status,
            columns=columns,
            rows=rows,
            stopped=stopped,
            error=error,
            seconds=seconds,
            max_rows=max_rows,
        )

        live_preview.additional_properties = d
        return live_preview

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
