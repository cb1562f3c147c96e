from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.view_freshness_output import ViewFreshnessOutput


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
        view (None | ViewFreshnessOutput): Set when the dataset is a materialized view of the team: fresh or stale, and
            how far behind its sources it is
    """

    id: int
    name: str
    aliases: list[str]
    namespace: str
    physical_name: str
    kind: str
    depth: int
    view: None | ViewFreshnessOutput
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.view_freshness_output import ViewFreshnessOutput  # noqa: PLC0415

        id = self.id

        name = self.name

        aliases = self.aliases

        namespace = self.namespace

        physical_name = self.physical_name

        kind = self.kind

        depth = self.depth

        view: dict[str, Any] | None
        if isinstance(self.view, ViewFreshnessOutput):
            view = self.view.to_dict()
        else:
            view = self.view

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
                "view": view,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.view_freshness_output import ViewFreshnessOutput  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        aliases = cast(list[str], d.pop("aliases"))

        namespace = d.pop("namespace")

        physical_name = d.pop("physical_name")

        kind = d.pop("kind")

        depth = d.pop("depth")

        def _parse_view(data: object) -> None | ViewFreshnessOutput:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                view_type_1 = ViewFreshnessOutput.from_dict(data)

                return view_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ViewFreshnessOutput, data)

        view = _parse_view(d.pop("view"))

        reached_dataset_output = cls(
            id=id,
            name=name,
            aliases=aliases,
            namespace=namespace,
            physical_name=physical_name,
            kind=kind,
            depth=depth,
            view=view,
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
