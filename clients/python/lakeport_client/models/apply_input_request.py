from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.catalog_input_request import CatalogInputRequest


T = TypeVar("T", bound="ApplyInputRequest")


@_attrs_define
class ApplyInputRequest:
    """
    Example:
        {'catalogs': [{'catalog_name': 'lake', 'catalog_type': 'delta', 'configuration': {'warehouse':
            's3a://acme/lake'}}, {'catalog_name': 'sales_pg', 'catalog_type': 'jdbc', 'configuration': {'type':
            'postgresql', 'base-url': 'jdbc:postgresql://db.example.com:5432/', 'default-database': 'sales', 'username':
            'reporting', 'password': 'write-only'}}], 'prune': False, 'dry_run': True}

    Attributes:
        catalogs (list[CatalogInputRequest]):
        prune (bool | Unset): Delete the team's catalogs not listed. Default: False.
        dry_run (bool | Unset): Report what would change; change nothing. Default: False.
    """

    catalogs: list[CatalogInputRequest]
    prune: bool | Unset = False
    dry_run: bool | Unset = False
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        catalogs = []
        for catalogs_item_data in self.catalogs:
            catalogs_item = catalogs_item_data.to_dict()
            catalogs.append(catalogs_item)

        prune = self.prune

        dry_run = self.dry_run

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "catalogs": catalogs,
            }
        )
        if prune is not UNSET:
            field_dict["prune"] = prune
        if dry_run is not UNSET:
            field_dict["dry_run"] = dry_run

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.catalog_input_request import CatalogInputRequest  # noqa: PLC0415

        d = dict(src_dict)
        catalogs = []
        _catalogs = d.pop("catalogs")
        for catalogs_item_data in _catalogs:
            catalogs_item = CatalogInputRequest.from_dict(catalogs_item_data)

            catalogs.append(catalogs_item)

        prune = d.pop("prune", UNSET)

        dry_run = d.pop("dry_run", UNSET)

        apply_input_request = cls(
            catalogs=catalogs,
            prune=prune,
            dry_run=dry_run,
        )

        apply_input_request.additional_properties = d
        return apply_input_request

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
