from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ReachedDatasetOutput")


@_attrs_define
class ReachedDatasetOutput:
    """
    Attributes:
        id (int):
        name (str): The dataset's name in one of the team's catalogs
        aliases (list[str]):
        namespace (str): OpenLineage namespace: postgres://host:port, hive://…, file
        physical_name (str):
        kind (str):
        depth (int): Job hops from the start dataset
    """

    id: int
    name: str
    aliases: list[str]
    namespace: str
    physical_name: str
    kind: str
    depth: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        aliases = self.aliases

        namespace = self.namespace

        physical_name = self.physical_name

        kind = self.kind

        depth = self.depth

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "name": name,
                "aliases": aliases,
                "namespace": namespace,
                "physical_name": physical_name,
                "kind": kind,
                "depth": depth,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        aliases = cast(list[str], d.pop("aliases"))

        namespace = d.pop("namespace")

        physical_name = d.pop("physical_name")

        kind = d.pop("kind")

        depth = d.pop("depth")

        reached_dataset_output = cls(
            id=id,
            name=name,
            aliases=aliases,
            namespace=namespace,
            physical_name=physical_name,
            kind=kind,
            depth=depth,
        )

        reached_dataset_output.additional_properties = d
        return reached_dataset_output

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
