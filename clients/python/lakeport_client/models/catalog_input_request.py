from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.catalog_type_enum import CatalogTypeEnum
from ..types import UNSET, Unset

T = TypeVar("T", bound="CatalogInputRequest")


@_attrs_define
class CatalogInputRequest:
    """
    Example:
        {'catalog_name': 'sales_pg', 'catalog_type': 'jdbc', 'description': 'Orders database', 'configuration': {'type':
            'postgresql', 'base-url': 'jdbc:postgresql://db.example.com:5432/', 'default-database': 'sales', 'username':
            'reporting', 'password': 'write-only; never returned'}}

    Attributes:
        catalog_name (str): Unique in the team; cannot change.
        catalog_type (CatalogTypeEnum): * `jdbc` - JDBC (PostgreSQL, MySQL/MariaDB)
            * `hive` - Hive Metastore
            * `delta` - Delta Lake
            * `redis-streams` - Redis Streams
            * `nats-jetstream` - NATS JetStream
            * `files` - Files (landing directories)
            * `kafka` - Kafka
            * `iceberg` - Apache Iceberg
            * `paimon` - Apache Paimon
        configuration (Any): The type's configuration (see catalog-types/). Secret values are write-only: omit one (or
            send null) to keep the stored value; in `storage-options` a key set to null is removed.
        description (str | Unset):
    """

    catalog_name: str
    catalog_type: CatalogTypeEnum
    configuration: Any
    description: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        catalog_name = self.catalog_name

        catalog_type = self.catalog_type.value

        configuration = self.configuration

        description = self.description

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "catalog_name": catalog_name,
                "catalog_type": catalog_type,
                "configuration": configuration,
            }
        )
        if description is not UNSET:
            field_dict["description"] = description

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        catalog_name = d.pop("catalog_name")

        catalog_type = CatalogTypeEnum(d.pop("catalog_type"))

        configuration = d.pop("configuration")

        description = d.pop("description", UNSET)

        catalog_input_request = cls(
            catalog_name=catalog_name,
            catalog_type=catalog_type,
            configuration=configuration,
            description=description,
        )

        catalog_input_request.additional_properties = d
        return catalog_input_request

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
