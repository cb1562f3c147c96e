from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.run_log_line_output import RunLogLineOutput


T = TypeVar("T", bound="RunLogOutput")


@_attrs_define
class RunLogOutput:
    """
    Attributes:
        offset (int):
        next_offset (int):
        finished (bool):
        status (str):
        lines (list[RunLogLineOutput]):
    """

    offset: int
    next_offset: int
    finished: bool
    status: str
    lines: list[RunLogLineOutput]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        offset = self.offset

        next_offset = self.next_offset

        finished = self.finished

        status = self.status

        lines = []
        for lines_item_data in self.lines:
            lines_item = lines_item_data.to_dict()
            lines.append(lines_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "offset": offset,
                "next_offset": next_offset,
                "finished": finished,
                "status": status,
                "lines": lines,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.run_log_line_output import RunLogLineOutput  # noqa: PLC0415

        d = dict(src_dict)
        offset = d.pop("offset")

        next_offset = d.pop("next_offset")

        finished = d.pop("finished")

        status = d.pop("status")

        lines = []
        _lines = d.pop("lines")
        for lines_item_data in _lines:
            lines_item = RunLogLineOutput.from_dict(lines_item_data)

            lines.append(lines_item)

        run_log_output = cls(
            offset=offset,
            next_offset=next_offset,
            finished=finished,
            status=status,
            lines=lines,
        )

        run_log_output.additional_properties = d
        return run_log_output

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
