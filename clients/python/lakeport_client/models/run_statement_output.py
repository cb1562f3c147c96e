from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="RunStatementOutput")


@_attrs_define
class RunStatementOutput:
    """
    Attributes:
        index (int): 0-based, as the run error's `statement`.
        sql (str): The statement's text (secrets masked, at most 2,000 characters).
        status (str): running, succeeded, failed or skipped.
        started_at (None | str):
        elapsed_ms (int | None):
        rows (int | None): Rows of its result kept for the preview.
        truncated (bool):
        line (int | None): 1-based line of the run's script where the statement starts (the run's `error` has where it
            failed); null while it has not finished, and for a failed statement of a run recorded before API 1.2.0.
        column (int | None): 1-based column where it starts (as `line`).
        start (int | None): Offset of its first character in the run's script, in UTF-16 code units (JavaScript string
            indices; character offsets unless an emoji comes before); null for runs recorded before 1.2.0.
        end (int | None): Offset just past its last character (no `;`).
        error (None | str):
    """

    index: int
    sql: str
    status: str
    started_at: None | str
    elapsed_ms: int | None
    rows: int | None
    truncated: bool
    line: int | None
    column: int | None
    start: int | None
    end: int | None
    error: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        index = self.index

        sql = self.sql

        status = self.status

        started_at: None | str
        started_at = self.started_at

        elapsed_ms: int | None
        elapsed_ms = self.elapsed_ms

        rows: int | None
        rows = self.rows

        truncated = self.truncated

        line: int | None
        line = self.line

        column: int | None
        column = self.column

        start: int | None
        start = self.start

        end: int | None
        end = self.end

        error: None | str
        error = self.error

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "index": index,
                "sql": sql,
                "status": status,
                "started_at": started_at,
                "elapsed_ms": elapsed_ms,
                "rows": rows,
                "truncated": truncated,
                "line": line,
                "column": column,
                "start": start,
                "end": end,
                "error": error,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        index = d.pop("index")

        sql = d.pop("sql")

        status = d.pop("status")

        def _parse_started_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        started_at = _parse_started_at(d.pop("started_at"))

        def _parse_elapsed_ms(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        elapsed_ms = _parse_elapsed_ms(d.pop("elapsed_ms"))

        def _parse_rows(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        rows = _parse_rows(d.pop("rows"))

        truncated = d.pop("truncated")

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

        def _parse_start(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        start = _parse_start(d.pop("start"))

        def _parse_end(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        end = _parse_end(d.pop("end"))

        def _parse_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error = _parse_error(d.pop("error"))

        run_statement_output = cls(
            index=index,
            sql=sql,
            status=status,
            started_at=started_at,
            elapsed_ms=elapsed_ms,
            rows=rows,
            truncated=truncated,
            line=line,
            column=column,
            start=start,
            end=end,
            error=error,
        )

        run_statement_output.additional_properties = d
        return run_statement_output

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
