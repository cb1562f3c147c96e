from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.action_enum import ActionEnum

if TYPE_CHECKING:
    from ..models.catalog_change_output_changes import CatalogChangeOutputChanges


T = TypeVar("T", bound="CatalogChangeOutput")


@_attrs_define
class CatalogChangeOutput:
    """
    Attributes:
        catalog_name (str):
        catalog_type (str):
        action (ActionEnum): * `create` - Created
            * `update` - Updated
            * `delete` - Deleted
            * `rotate` - Secrets re-encrypted
            * `grant` - Privilege granted
            * `revoke` - Privilege revoked
            * `refuse` - Access refused
            * `row_filter` - Row filter changed
            * `column_mask` - Column mask changed
        actor (str):
        time (datetime.datetime):
        version (int):
        changes (CatalogChangeOutputChanges): field → {"from", "to"}, or "set"/"changed"/"removed" for secrets.
    """

    catalog_name: str
    catalog_type: str
    action: ActionEnum
    actor: str
    time: datetime.datetime
    version: int
    changes: CatalogChangeOutputChanges
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        catalog_name = self.catalog_name

        catalog_type = self.catalog_type

        action = self.action.value

        actor = self.actor

        time = self.time.isoformat()

        version = self.version

        changes = self.changes.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "catalog_name": catalog_name,
                "catalog_type": catalog_type,
                "action": action,
                "actor": actor,
                "time": time,
                "version": version,
                "changes": changes,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.catalog_change_output_changes import CatalogChangeOutputChanges  # noqa: PLC0415

        d = dict(src_dict)
        catalog_name = d.pop("catalog_name")

        catalog_type = d.pop("catalog_type")

        action = ActionEnum(d.pop("action"))

        actor = d.pop("actor")

        time = datetime.datetime.fromisoformat(d.pop("time"))

        version = d.pop("version")

        changes = CatalogChangeOutputChanges.from_dict(d.pop("changes"))

        catalog_change_output = cls(
            catalog_name=catalog_name,
            catalog_type=catalog_type,
            action=action,
            actor=actor,
            time=time,
            version=version,
            changes=changes,
        )

        catalog_change_output.additional_properties = d
        return catalog_change_output

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
