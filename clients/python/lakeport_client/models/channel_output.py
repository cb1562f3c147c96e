from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.alert_channel_kind_enum import AlertChannelKindEnum

if TYPE_CHECKING:
    from ..models.delivery_output import DeliveryOutput


T = TypeVar("T", bound="ChannelOutput")


@_attrs_define
class ChannelOutput:
    """
    Attributes:
        id (int):
        name (str):
        kind (AlertChannelKindEnum): * `webhook` - Webhook (JSON body, HMAC-SHA256 signature header)
            * `slack` - Slack-compatible incoming webhook
            * `email` - E-mail
        url (None | str): webhook: the URL; null for Slack (its URL is the secret)
        recipients (list[str]):
        secret_set (bool): Whether a secret is stored (it is never shown)
        enabled (bool):
        last_error (str): Why the last failed send failed
        last_error_at (datetime.datetime | None):
        last_sent_at (datetime.datetime | None):
        recent_deliveries (list[DeliveryOutput]):
        created_at (datetime.datetime):
        updated_at (datetime.datetime):
    """

    id: int
    name: str
    kind: AlertChannelKindEnum
    url: None | str
    recipients: list[str]
    secret_set: bool
    enabled: bool
    last_error: str
    last_error_at: datetime.datetime | None
    last_sent_at: datetime.datetime | None
    recent_deliveries: list[DeliveryOutput]
    created_at: datetime.datetime
    updated_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        kind = self.kind.value

        url: None | str
        url = self.url

        recipients = self.recipients

        secret_set = self.secret_set

        enabled = self.enabled

        last_error = self.last_error

        last_error_at: None | str
        if isinstance(self.last_error_at, datetime.datetime):
            last_error_at = self.last_error_at.isoformat()
        else:
            last_error_at = self.last_error_at

        last_sent_at: None | str
        if isinstance(self.last_sent_at, datetime.datetime):
            last_sent_at = self.last_sent_at.isoformat()
        else:
            last_sent_at = self.last_sent_at

        recent_deliveries = []
        for recent_deliveries_item_data in self.recent_deliveries:
            recent_deliveries_item = recent_deliveries_item_data.to_dict()
            recent_deliveries.append(recent_deliveries_item)

        created_at = self.created_at.isoformat()

        updated_at = self.updated_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "name": name,
                "kind": kind,
                "url": url,
                "recipients": recipients,
                "secret_set": secret_set,
                "enabled": enabled,
                "last_error": last_error,
                "last_error_at": last_error_at,
                "last_sent_at": last_sent_at,
                "recent_deliveries": recent_deliveries,
                "created_at": created_at,
                "updated_at": updated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.delivery_output import DeliveryOutput  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        kind = AlertChannelKindEnum(d.pop("kind"))

        def _parse_url(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        url = _parse_url(d.pop("url"))

        recipients = cast(list[str], d.pop("recipients"))

        secret_set = d.pop("secret_set")

        enabled = d.pop("enabled")

        last_error = d.pop("last_error")

        def _parse_last_error_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_error_at_type_0 = datetime.datetime.fromisoformat(data)

                return last_error_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        last_error_at = _parse_last_error_at(d.pop("last_error_at"))

        def _parse_last_sent_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_sent_at_type_0 = datetime.datetime.fromisoformat(data)

                return last_sent_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        last_sent_at = _parse_last_sent_at(d.pop("last_sent_at"))

        recent_deliveries = []
        _recent_deliveries = d.pop("recent_deliveries")
        for recent_deliveries_item_data in _recent_deliveries:
            recent_deliveries_item = DeliveryOutput.from_dict(recent_deliveries_item_data)

            recent_deliveries.append(recent_deliveries_item)

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        channel_output = cls(
            id=id,
            name=name,
            kind=kind,
            url=url,
            recipients=recipients,
            secret_set=secret_set,
            enabled=enabled,
            last_error=last_error,
            last_error_at=last_error_at,
            last_sent_at=last_sent_at,
            recent_deliveries=recent_deliveries,
            created_at=created_at,
            updated_at=updated_at,
        )

        channel_output.additional_properties = d
        return channel_output

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
