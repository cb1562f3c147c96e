from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.checked_enum import CheckedEnum

if TYPE_CHECKING:
    from ..models.sql_error_output import SqlErrorOutput
    from ..models.statement_span_output import StatementSpanOutput
    from ..models.validation_output_schema_item import ValidationOutputSchemaItem


T = TypeVar("T", bound="ValidationOutput")


@_attrs_define
class ValidationOutput:
    """
    Attributes:
        valid (bool):
        errors (list[SqlErrorOutput]):
        schema (list[ValidationOutputSchemaItem]): Output columns of the last query, [{"name", "type"}], when the script
            analyses cleanly.
        statements (list[StatementSpanOutput]): Every statement of the script as written, split by the server's lexer
            (`;` in strings, quoted names and comments does not split); empty for an empty or oversized script.
        checked (CheckedEnum): * `full` - full
            * `syntax` - syntax
    """

    valid: bool
    errors: list[SqlErrorOutput]
    schema: list[ValidationOutputSchemaItem]
    statements: list[StatementSpanOutput]
    checked: CheckedEnum
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        valid = self.valid

        errors = []
        for errors_item_data in self.errors:
            errors_item = errors_item_data.to_dict()
            errors.append(errors_item)

        schema = []
        for schema_item_data in self.schema:
            schema_item = schema_item_data.to_dict()
            schema.append(schema_item)

        statements = []
        for statements_item_data in self.statements:
            statements_item = statements_item_data.to_dict()
            statements.append(statements_item)

        checked = self.checked.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "valid": valid,
                "errors": errors,
                "schema": schema,
                "statements": statements,
                "checked": checked,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.sql_error_output import SqlErrorOutput  # noqa: PLC0415
        from ..models.statement_span_output import StatementSpanOutput  # noqa: PLC0415
        from ..models.validation_output_schema_item import ValidationOutputSchemaItem  # noqa: PLC0415

        d = dict(src_dict)
        valid = d.pop("valid")

        errors = []
        _errors = d.pop("errors")
        for errors_item_data in _errors:
            errors_item = SqlErrorOutput.from_dict(errors_item_data)

            errors.append(errors_item)

        schema = []
        _schema = d.pop("schema")
        for schema_item_data in _schema:
            schema_item = ValidationOutputSchemaItem.from_dict(schema_item_data)

            schema.append(schema_item)

        statements = []
        _statements = d.pop("statements")
        for statements_item_data in _statements:
            statements_item = StatementSpanOutput.from_dict(statements_item_data)

            statements.append(statements_item)

        checked = CheckedEnum(d.pop("checked"))

        validation_output = cls(
            valid=valid,
            errors=errors,
            schema=schema,
            statements=statements,
            checked=checked,
        )

        validation_output.additional_properties = d
        return validation_output

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
