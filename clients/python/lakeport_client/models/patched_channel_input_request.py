from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.alert_channel_kind_enum import AlertChannelKindEnum
from ..types import UNSET, Unset

T = TypeVar("T", bound="PatchedChannelInputRequest")


@_attrs_define
class PatchedChannelInputRequest:
    """
    Attributes:
        name (str | Unset):
        kind (AlertChannelKindEnum | Unset): * `webhook` - Webhook (JSON body, HMAC-SHA256 signature header)
            * `slack` - Slack-compatible incoming webhook
            * `email` - E-mail
        url (str | Unset): webhook: where alerts are POSTed; slack: the incoming-webhook URL (secret: write-only)
        secret (str | Unset): webhook: the HMAC-SHA256 signing key (write-only)
        recipients (list[str] | Unset): email: the addresses
        enabled (bool | Unset):  Default: True.
    """

    name: str | Unset = UNSET
    kind: AlertChannelKindEnum | Unset = UNSET
    url: str | Unset = UNSET
    secret: str | Unset = UNSET
    recipients: list[str] | Unset = UNSET
    enabled: bool | Unset = True
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        kind: str | Unset = UNSET
        if not isinstance(self.kind, Unset):
            kind = self.kind.value

        url = self.url

        secret = self.secret

        recipients: list[str] | Unset = UNSET
        if not isinstance(self.recipients, Unset):
            recipients = self.recipients

        enabled = self.enabled

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if name is not UNSET:
            field_dict["name"] = name
        if kind is not UNSET:
            field_dict["kind"] = kind
        if url is not UNSET:
            field_dict["url"] = url
        if secret is not UNSET:
            field_dict["secret"] = secret
        if recipients is not UNSET:
            field_dict["recipients"] = recipients
        if enabled is not UNSET:
            field_dict["enabled"] = enabled

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name", UNSET)

        _kind = d.pop("kind", UNSET)
        kind: AlertChannelKindEnum | Unset
        if isinstance(_kind, Unset):
            kind = UNSET
        else:
            kind = AlertChannelKindEnum(_kind)

        url = d.pop("url", UNSET)

        secret = d.pop("secret", UNSET)

        recipients = cast(list[str], d.pop("recipients", UNSET))

        enabled = d.pop("enabled", UNSET)

        patched_channel_input_request = cls(
            name=name,
            kind=kind,
            url=url,
            secret=secret,
            recipients=recipients,
            enabled=enabled,
        )

        patched_channel_input_request.additional_properties = d
        return patched_channel_input_request

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
