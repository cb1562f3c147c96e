from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.preview_error_output import PreviewErrorOutput


T = TypeVar("T", bound="PreviewOutput")


@_attrs_define
class PreviewOutput:
    """
    Attributes:
        cron (str):
        time_zone (str):
        valid (bool):
        next_fire_times (list[str]):
        error (None | PreviewErrorOutput): Why not valid; null when valid.
    """

    cron: str
    time_zone: str
    valid: bool
    next_fire_times: list[str]
    error: None | PreviewErrorOutput
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.preview_error_output import PreviewErrorOutput  # noqa: PLC0415

        cron = self.cron

        time_zone = self.time_zone

        valid = self.valid

        next_fire_times = self.next_fire_times

        error: dict[str, Any] | None
        if isinstance(self.error, PreviewErrorOutput):
            error = self.error.to_dict()
        else:
            error = self.error

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cron": cron,
                "time_zone": time_zone,
                "valid": valid,
                "next_fire_times": next_fire_times,
                "error": error,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.preview_error_output import PreviewErrorOutput  # noqa: PLC0415

        d = dict(src_dict)
        cron = d.pop("cron")

        time_zone = d.pop("time_zone")

        valid = d.pop("valid")

        next_fire_times = cast(list[str], d.pop("next_fire_times"))

        def _parse_error(data: object) -> None | PreviewErrorOutput:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                error_type_1 = PreviewErrorOutput.from_dict(data)

                return error_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PreviewErrorOutput, data)

        error = _parse_error(d.pop("error"))

        preview_output = cls(
            cron=cron,
            time_zone=time_zone,
            valid=valid,
            next_fire_times=next_fire_times,
            error=error,
        )

        preview_output.additional_properties = d
        return preview_output

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
