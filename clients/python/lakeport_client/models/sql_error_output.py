from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="SqlErrorOutput")


@_attrs_define
class SqlErrorOutput:
    """
    Attributes:
        statement (int | None): 0-based index into `statements`, if known.
        line (int | None): 1-based line in the script as written.
        column (int | None): 1-based column, in characters of that line.
        message (str):
    """

    statement: int | None
    line: int | None
    column: int | None
    message: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        statement: int | None
        statement = self.statement

        line: int | None
        line = self.line

        column: int | None
        column = self.column

        message = self.message

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "statement": statement,
                "line": line,
                "column": column,
                "message": message,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_statement(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        statement = _parse_statement(d.pop("statement"))

        def _parse_line(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        line = _parse_line(d.pop("line"))

        def _parse_column(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        column = _parse_column(d.pop("column"))

        message = d.pop("message")

        sql_error_output = cls(
            statement=statement,
            line=line,
            column=column,
            message=message,
        )

        sql_error_output.additional_properties = d
        return sql_error_output

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
