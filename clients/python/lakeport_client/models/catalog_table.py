from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.catalog_table_properties import CatalogTableProperties
    from ..models.table_column_output import TableColumnOutput


T = TypeVar("T", bound="CatalogTable")


@_attrs_define
class CatalogTable:
    """
    Attributes:
        catalog (str):
        database (str):
        name (str):
        kind (str):
        columns (list[TableColumnOutput]):
        partition_columns (list[str]):
        location (None | str):
        version (int | None):
        row_count (int | None):
        properties (CatalogTableProperties):
    """

    catalog: str
    database: str
    name: str
    kind: str
    columns: list[TableColumnOutput]
    partition_columns: list[str]
    location: None | str
    version: int | None
    row_count: int | None
    properties: CatalogTableProperties
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        catalog = self.catalog

        database = self.database

        name = self.name

        kind = self.kind

        columns = []
        for columns_item_data in self.columns:
            columns_item = columns_item_data.to_dict()
            columns.append(columns_item)

        partition_columns = self.partition_columns

        location: None | str
        location = self.location

        version: int | None
        version = self.version

        row_count: int | None
        row_count = self.row_count

        properties = self.properties.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "catalog": catalog,
                "database": database,
                "name": name,
                "kind": kind,
                "columns": columns,
                "partition_columns": partition_columns,
                "location": location,
                "version": version,
                "row_count": row_count,
                "properties": properties,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.catalog_table_properties import CatalogTableProperties  # noqa: PLC0415
        from ..models.table_column_output import TableColumnOutput  # noqa: PLC0415

        d = dict(src_dict)
        catalog = d.pop("catalog")

        database = d.pop("database")

        name = d.pop("name")

        kind = d.pop("kind")

        columns = []
        _columns = d.pop("columns")
        for columns_item_data in _columns:
            columns_item = TableColumnOutput.from_dict(columns_item_data)

            columns.append(columns_item)

        partition_columns = cast(list[str], d.pop("partition_columns"))

        def _parse_location(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        location = _parse_location(d.pop("location"))

        def _parse_version(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        version = _parse_version(d.pop("version"))

        def _parse_row_count(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        row_count = _parse_row_count(d.pop("row_count"))

        properties = CatalogTableProperties.from_dict(d.pop("properties"))

        catalog_table = cls(
            catalog=catalog,
            database=database,
            name=name,
            kind=kind,
            columns=columns,
            partition_columns=partition_columns,
            location=location,
            version=version,
            row_count=row_count,
            properties=properties,
        )

        catalog_table.additional_properties = d
        return catalog_table

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
