from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.table_summary_output import TableSummaryOutput


T = TypeVar("T", bound="CatalogTables")


@_attrs_define
class CatalogTables:
    """
    Attributes:
        catalog (str):
        database (str):
        tables (list[TableSummaryOutput]):
    """

    catalog: str
    database: str
    tables: list[TableSummaryOutput]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        catalog = self.catalog

        database = self.database

        tables = []
        for tables_item_data in self.tables:
            tables_item = tables_item_data.to_dict()
            tables.append(tables_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "catalog": catalog,
                "database": database,
                "tables": tables,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.table_summary_output import TableSummaryOutput  # noqa: PLC0415

        d = dict(src_dict)
        catalog = d.pop("catalog")

        database = d.pop("database")

        tables = []
        _tables = d.pop("tables")
        for tables_item_data in _tables:
            tables_item = TableSummaryOutput.from_dict(tables_item_data)

            tables.append(tables_item)

        catalog_tables = cls(
            catalog=catalog,
            database=database,
            tables=tables,
        )

        catalog_tables.additional_properties = d
        return catalog_tables

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
