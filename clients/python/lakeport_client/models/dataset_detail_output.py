from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.lineage_job_output import LineageJobOutput


T = TypeVar("T", bound="DatasetDetailOutput")


@_attrs_define
class DatasetDetailOutput:
    """
    Attributes:
        id (int):
        name (str): The dataset's name in one of the team's catalogs
        aliases (list[str]):
        namespace (str): OpenLineage namespace: postgres://host:port, hive://…, file
        physical_name (str):
        kind (str):
        columns (list[str]): Columns with column lineage
        writers (list[LineageJobOutput]):
        readers (list[LineageJobOutput]):
    """

    id: int
    name: str
    aliases: list[str]
    namespace: str
    physical_name: str
    kind: str
    columns: list[str]
    writers: list[LineageJobOutput]
    readers: list[LineageJobOutput]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        aliases = self.aliases

        namespace = self.namespace

        physical_name = self.physical_name

        kind = self.kind

        columns = self.columns

        writers = []
        for writers_item_data in self.writers:
            writers_item = writers_item_data.to_dict()
            writers.append(writers_item)

        readers = []
        for readers_item_data in self.readers:
            readers_item = readers_item_data.to_dict()
            readers.append(readers_item)

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
                "columns": columns,
                "writers": writers,
                "readers": readers,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.lineage_job_output import LineageJobOutput  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        aliases = cast(list[str], d.pop("aliases"))

        namespace = d.pop("namespace")

        physical_name = d.pop("physical_name")

        kind = d.pop("kind")

        columns = cast(list[str], d.pop("columns"))

        writers = []
        _writers = d.pop("writers")
        for writers_item_data in _writers:
            writers_item = LineageJobOutput.from_dict(writers_item_data)

            writers.append(writers_item)

        readers = []
        _readers = d.pop("readers")
        for readers_item_data in _readers:
            readers_item = LineageJobOutput.from_dict(readers_item_data)

            readers.append(readers_item)

        dataset_detail_output = cls(
            id=id,
            name=name,
            aliases=aliases,
            namespace=namespace,
            physical_name=physical_name,
            kind=kind,
            columns=columns,
            writers=writers,
            readers=readers,
        )

        dataset_detail_output.additional_properties = d
        return dataset_detail_output

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
