from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="StatementSpanOutput")


@_attrs_define
class StatementSpanOutput:
    """
    Attributes:
        index (int): 0-based, as an error's `statement`.
        start (int): Offset of its first character in the submitted `sql`, in UTF-16 code units (JavaScript string
            indices; character offsets unless an emoji comes before).
        end (int): Offset just past its last character (the `;` is not part of it).
        line (int): 1-based line where it starts.
    """

    index: int
    start: int
    end: int
    line: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        index = self.index

        start = self.start

        end = self.end

        line = self.line

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "index": index,
                "start": start,
                "end": end,
                "line": line,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        index = d.pop("index")

        start = d.pop("start")

        end = d.pop("end")

        line = d.pop("line")

        statement_span_output = cls(
            index=index,
            start=start,
            end=end,
            line=line,
        )

        statement_span_output.additional_properties = d
        return statement_span_output

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
