from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.team_role_output import TeamRoleOutput


T = TypeVar("T", bound="Me")


@_attrs_define
class Me:
    """The signed-in user with the teams they see.

    Attributes:
        username (str):
        is_platform_admin (bool):
        teams (list[TeamRoleOutput]): The teams the user sees, with their role in each.
    """

    username: str
    is_platform_admin: bool
    teams: list[TeamRoleOutput]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        username = self.username

        is_platform_admin = self.is_platform_admin

        teams = []
        for teams_item_data in self.teams:
            teams_item = teams_item_data.to_dict()
            teams.append(teams_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "username": username,
                "is_platform_admin": is_platform_admin,
                "teams": teams,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.team_role_output import TeamRoleOutput  # noqa: PLC0415

        d = dict(src_dict)
        username = d.pop("username")

        is_platform_admin = d.pop("is_platform_admin")

        teams = []
        _teams = d.pop("teams")
        for teams_item_data in _teams:
            teams_item = TeamRoleOutput.from_dict(teams_item_data)

            teams.append(teams_item)

        me = cls(
            username=username,
            is_platform_admin=is_platform_admin,
            teams=teams,
        )

        me.additional_properties = d
        return me

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
