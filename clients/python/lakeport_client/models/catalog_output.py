from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.catalog_type_enum import CatalogTypeEnum

if TYPE_CHECKING:
    from ..models.catalog_output_configuration import CatalogOutputConfiguration


T = TypeVar("T", bound="CatalogOutput")


@_attrs_define
class CatalogOutput:
    """
    Example:
        {'catalog_name': 'sales_pg', 'catalog_type': 'jdbc', 'description': 'Orders database', 'configuration': {'type':
            'postgresql', 'base-url': 'jdbc:postgresql://db.example.com:5432/', 'default-database': 'sales', 'username':
            'reporting'}, 'secrets_set': ['password'], 'version': 3, 'create_time': '2026-01-31T12:00:00Z', 'update_time':
            '2026-02-01T09:30:00Z', 'created_by': 'ann', 'updated_by': 'bob'}

    Attributes:
        catalog_name (str):
        catalog_type (CatalogTypeEnum): * `jdbc` - JDBC (PostgreSQL, MySQL/MariaDB)
            * `hive` - Hive Metastore
            * `delta` - Delta Lake
            * `redis-streams` - Redis Streams
            * `nats-jetstream` - NATS JetStream
            * `files` - Files (landing directories)
            * `kafka` - Kafka
            * `iceberg` - Apache Iceberg
            * `paimon` - Apache Paimon
        description (str):
        configuration (CatalogOutputConfiguration): Without secret values.
        secrets_set (list[str]): Which secrets are set.
        version (int): Also the ETag; send it back in If-Match.
        create_time (datetime.datetime):
        update_time (datetime.datetime):
        created_by (None | str):
        updated_by (None | str):
    """

    catalog_name: str
    catalog_type: CatalogTypeEnum
    description: str
    configuration: CatalogOutputConfiguration
    secrets_set: list[str]
    version: int
    create_time: datetime.datetime
    update_time: datetime.datetime
    created_by: None | str
    updated_by: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        catalog_name = self.catalog_name

        catalog_type = self.catalog_type.value

        description = self.description

        configuration = self.configuration.to_dict()

        secrets_set = self.secrets_set

        version = self.version

        create_time = self.create_time.isoformat()

        update_time = self.update_time.isoformat()

        created_by: None | str
        created_by = self.created_by

        updated_by: None | str
        updated_by = self.updated_by

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "catalog_name": catalog_name,
                "catalog_type": catalog_type,
                "description": description,
                "configuration": configuration,
                "secrets_set": secrets_set,
                "version": version,
                "create_time": create_time,
                "update_time": update_time,
                "created_by": created_by,
                "updated_by": updated_by,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.catalog_output_configuration import CatalogOutputConfiguration  # noqa: PLC0415

        d = dict(src_dict)
        catalog_name = d.pop("catalog_name")

        catalog_type = CatalogTypeEnum(d.pop("catalog_type"))

        description = d.pop("description")

        configuration = CatalogOutputConfiguration.from_dict(d.pop("configuration"))

        secrets_set = cast(list[str], d.pop("secrets_set"))

        version = d.pop("version")

        create_time = datetime.datetime.fromisoformat(d.pop("create_time"))

        update_time = datetime.datetime.fromisoformat(d.pop("update_time"))

        def _parse_created_by(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        created_by = _parse_created_by(d.pop("created_by"))

        def _parse_updated_by(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        updated_by = _parse_updated_by(d.pop("updated_by"))

        catalog_output = cls(
            catalog_name=catalog_name,
            catalog_type=catalog_type,
            description=description,
            configuration=configuration,
            secrets_set=secrets_set,
            version=version,
            create_time=create_time,
            update_time=update_time,
            created_by=created_by,
            updated_by=updated_by,
        )

        catalog_output.additional_properties = d
        return catalog_output

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
