from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.validate_input_request_parameters import ValidateInputRequestParameters


T = TypeVar("T", bound="ValidateInputRequest")


@_attrs_define
class ValidateInputRequest:
    """
    Attributes:
        sql (str):
        job (int | None | Unset): A job of the team whose `${name}` parameter declarations and defaults the script uses.
        parameters (ValidateInputRequestParameters | Unset): Values for the script's `${name}` parameters (as a run's
            `parameters`); `${ds}`/`${ts}` are now.
        default_catalog (str | Unset): A catalog of the team where unqualified names resolve, as a run of a job with
            this `default_catalog` (the script's own USE CATALOG still wins); an unknown one is a 400 naming this field.
            Default: ''.
        syntax_while_starting (bool | Unset): When the team's engine is still starting, answer at once with Spark's own
            parser alone (`checked` is `"syntax"`: names, types and the platform's rules are checked once the engine is up)
            instead of waiting for the start. The SQL editor sends it and validates again when the answer was syntax only.
            Default: False.
    """

    sql: str
    job: int | None | Unset = UNSET
    parameters: ValidateInputRequestParameters | Unset = UNSET
    default_catalog: str | Unset = ""
    syntax_while_starting: bool | Unset = False
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
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

        syntax_while_starting = self.syntax_while_starting

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
        if syntax_while_starting is not UNSET:
            field_dict["syntax_while_starting"] = syntax_while_starting

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.validate_input_request_parameters import (
            ValidateInputRequestParameters,  # noqa: PLC0415
        )

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
        parameters: ValidateInputRequestParameters | Unset
        if isinstance(_parameters, Unset):
            parameters = UNSET
        else:
            parameters = ValidateInputRequestParameters.from_dict(_parameters)

        default_catalog = d.pop("default_catalog", UNSET)

        syntax_while_starting = d.pop("syntax_while_starting", UNSET)

        validate_input_request = cls(
            sql=sql,
            job=job,
            parameters=parameters,
            default_catalog=default_catalog,
            syntax_while_starting=syntax_while_starting,
        )

        validate_input_request.additional_properties = d
        return validate_input_request

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
