from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.preview_input_request_parameters import PreviewInputRequestParameters
    from ..models.preview_snapshot_input_request import PreviewSnapshotInputRequest


T = TypeVar("T", bound="PreviewInputRequest")


@_attrs_define
class PreviewInputRequest:
    """
    Attributes:
        sql (str):
        job (int | None | Unset): A job of the team whose `${name}` parameter declarations and defaults the script uses.
        parameters (PreviewInputRequestParameters | Unset): Values for the script's `${name}` parameters (as a run's
            `parameters`); `${ds}`/`${ts}` are now.
        default_catalog (str | Unset): A catalog of the team where unqualified names resolve, as a run of a job with
            this `default_catalog` (the script's own USE CATALOG still wins); an unknown one is a 400 naming this field.
            Default: ''.
        limit (int | Unset):  Default: 100.
        snapshot (None | PreviewSnapshotInputRequest | Unset): The editor's consistent-read switch: {"consistent":
            true}.
    """

    sql: str
    job: int | None | Unset = UNSET
    parameters: PreviewInputRequestParameters | Unset = UNSET
    default_catalog: str | Unset = ""
    limit: int | Unset = 100
    snapshot: None | PreviewSnapshotInputRequest | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.preview_snapshot_input_request import PreviewSnapshotInputRequest  # noqa: PLC0415

        sql = self.sql

        job: int | None | Unset
        if isinstance(self.job, Unset):
            job = UNSET
        else:
            job = self.job

        parameters: dict[str, Any] | Unset = UNSET
        if not isinstance(self.parameters, Unset):
            parameters = self.parameters.to_dict()

        default_catalog = self.default_catalog

        limit = self.limit

        snapshot: dict[str, Any] | None | Unset
        if isinstance(self.snapshot, Unset):
            snapshot = UNSET
        elif isinstance(self.snapshot, PreviewSnapshotInputRequest):
            snapshot = self.snapshot.to_dict()
        else:
            snapshot = self.snapshot

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "sql": sql,
            }
        )
        if job is not UNSET:
            field_dict["job"] = job
        if parameters is not UNSET:
            field_dict["parameters"] = parameters
        if default_catalog is not UNSET:
            field_dict["default_catalog"] = default_catalog
        if limit is not UNSET:
            field_dict["limit"] = limit
        if snapshot is not UNSET:
            field_dict["snapshot"] = snapshot

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.preview_input_request_parameters import (
            PreviewInputRequestParameters,  # noqa: PLC0415
        )
        from ..models.preview_snapshot_input_request import PreviewSnapshotInputRequest  # noqa: PLC0415

        d = dict(src_dict)
        sql = d.pop("sql")

        def _parse_job(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        job = _parse_job(d.pop("job", UNSET))

        _parameters = d.pop("parameters", UNSET)
        parameters: PreviewInputRequestParameters | Unset
        if isinstance(_parameters, Unset):
            parameters = UNSET
        else:
            parameters = PreviewInputRequestParameters.from_dict(_parameters)

        default_catalog = d.pop("default_catalog", UNSET)

        limit = d.pop("limit", UNSET)

        def _parse_snapshot(data: object) -> None | PreviewSnapshotInputRequest | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                snapshot_type_1 = PreviewSnapshotInputRequest.from_dict(data)

                return snapshot_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PreviewSnapshotInputRequest | Unset, data)

        snapshot = _parse_snapshot(d.pop("snapshot", UNSET))

        preview_input_request = cls(
            sql=sql,
            job=job,
            parameters=parameters,
            default_catalog=default_catalog,
            limit=limit,
            snapshot=snapshot,
        )

        preview_input_request.additional_properties = d
        return preview_input_request

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
