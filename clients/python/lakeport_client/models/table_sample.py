from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.schema_enum import SchemaEnum

if TYPE_CHECKING:
    from ..models.result_column_output import ResultColumnOutput


T = TypeVar("T", bound="TableSample")


@_attrs_define
class TableSample:
    """
    Attributes:
        columns (list[ResultColumnOutput]):
        rows (list[list[Any]]):
        schema (SchemaEnum): * `declared` - declared
            * `inferred` - inferred
    """

    columns: list[ResultColumnOutput]
    rows: list[list[Any]]
    schema: SchemaEnum
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        columns = []
        for columns_item_data in self.columns:
            columns_item = columns_item_data.to_dict()
            columns.append(columns_item)

        rows = []
        for rows_item_data in self.rows:
            rows_item = rows_item_data

            rows.append(rows_item)

        schema = self.schema.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "columns": columns,
                "rows": rows,
                "schema": schema,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.result_column_output import ResultColumnOutput  # noqa: PLC0415

        d = dict(src_dict)
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

        schema = SchemaEnum(d.pop("schema"))

        table_sample = cls(
            columns=columns,
            rows=rows,
            schema=schema,
        )

        table_sample.additional_properties = d
        return table_sample

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
