from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="StreamAuditOutput")


@_attrs_define
class StreamAuditOutput:
    """
    Attributes:
        action (str): start | stop | restart | reset
        actor (str): The user (through the API, or a shell's `--as`), or `cli:<OS user>` for a shell that named none.
        at (datetime.datetime):
        details (Any): What the action changed, e.g. a reset's checkpoint generations.
    """

    action: str
    actor: str
    at: datetime.datetime
    details: Any
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        action = self.action

        actor = self.actor

        at = self.at.isoformat()

        details = self.details

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "action": action,
                "actor": actor,
                "at": at,
                "details": details,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        action = d.pop("action")

        actor = d.pop("actor")

        at = datetime.datetime.fromisoformat(d.pop("at"))

        details = d.pop("details")

        stream_audit_output = cls(
            action=action,
            actor=actor,
            at=at,
            details=details,
        )

        stream_audit_output.additional_properties = d
        return stream_audit_output

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
