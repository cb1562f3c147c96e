from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.catalog_type_enum import CatalogTypeEnum
from ..types import UNSET, Unset

T = TypeVar("T", bound="PatchedCatalogInputRequest")


@_attrs_define
class PatchedCatalogInputRequest:
    """
    Attributes:
        catalog_name (str | Unset): Unique in the team; cannot change.
        catalog_type (CatalogTypeEnum | Unset): * `jdbc` - JDBC (PostgreSQL, MySQL/MariaDB)
            * `hive` - Hive Metastore
            * `delta` - Delta Lake
            * `redis-streams` - Redis Streams
            * `nats-jetstream` - NATS JetStream
            * `files` - Files (landing directories)
            * `kafka` - Kafka
            * `iceberg` - Apache Iceberg
            * `paimon` - Apache Paimon
        configuration (Any | Unset): The type's configuration (see catalog-types/). Secret values are write-only: omit
            one (or send null) to keep the stored value; in `storage-options` a key set to null is removed.
        description (str | Unset):
    """

    catalog_name: str | Unset = UNSET
    catalog_type: CatalogTypeEnum | Unset = UNSET
    configuration: Any | Unset = UNSET
    description: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        catalog_name = self.catalog_name

        catalog_type: str | Unset = UNSET
        if not isinstance(self.catalog_type, Unset):
            catalog_type = self.catalog_type.value

        configuration = self.configuration

        description = self.description

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if catalog_name is not UNSET:
            field_dict["catalog_name"] = catalog_name
        if catalog_type is not UNSET:
            field_dict["catalog_type"] = catalog_type
        if configuration is not UNSET:
            field_dict["configuration"] = configuration
        if description is not UNSET:
            field_dict["description"] = description

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        catalog_name = d.pop("catalog_name", UNSET)

        _catalog_type = d.pop("catalog_type", UNSET)
        catalog_type: CatalogTypeEnum | Unset
        if isinstance(_catalog_type, Unset):
            catalog_type = UNSET
        else:
            catalog_type = CatalogTypeEnum(_catalog_type)

        configuration = d.pop("configuration", UNSET)

        description = d.pop("description", UNSET)

        patched_catalog_input_request = cls(
            catalog_name=catalog_name,
            catalog_type=catalog_type,
            configuration=configuration,
            description=description,
        )

        patched_catalog_input_request.additional_properties = d
        return patched_catalog_input_request

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
