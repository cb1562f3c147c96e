from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.engine_enum import EngineEnum
from ..models.kind_enum import KindEnum

if TYPE_CHECKING:
    from ..models.job_output_parameters import JobOutputParameters
    from ..models.job_output_spark_conf import JobOutputSparkConf


T = TypeVar("T", bound="JobOutput")


@_attrs_define
class JobOutput:
    """
    Attributes:
        id (int):
        name (str):
        sql (str):
        spark_conf (JobOutputSparkConf):
        default_catalog (str):
        engine (EngineEnum): * `default` - Platform default
            * `warm` - Team engine (long-lived driver of the team, new session per run)
            * `isolated` - Isolated engine (a driver of the run's own)
        kind (KindEnum): * `batch` - Batch
            * `streaming` - Streaming
        max_retries (int):
        parameters (JobOutputParameters):
        created_by (None | str):
        created_at (datetime.datetime):
        updated_at (datetime.datetime):
    """

    id: int
    name: str
    sql: str
    spark_conf: JobOutputSparkConf
    default_catalog: str
    engine: EngineEnum
    kind: KindEnum
    max_retries: int
    parameters: JobOutputParameters
    created_by: None | str
    created_at: datetime.datetime
    updated_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        sql = self.sql

        spark_conf = self.spark_conf.to_dict()

        default_catalog = self.default_catalog

        engine = self.engine.value

        kind = self.kind.value

        max_retries = self.max_retries

        parameters = self.parameters.to_dict()

        created_by: None | str
        created_by = self.created_by

        created_at = self.created_at.isoformat()

        updated_at = self.updated_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "name": name,
                "sql": sql,
                "spark_conf": spark_conf,
                "default_catalog": default_catalog,
                "engine": engine,
                "kind": kind,
                "max_retries": max_retries,
                "parameters": parameters,
                "created_by": created_by,
                "created_at": created_at,
                "updated_at": updated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.job_output_parameters import JobOutputParameters  # noqa: PLC0415
        from ..models.job_output_spark_conf import JobOutputSparkConf  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        sql = d.pop("sql")

        spark_conf = JobOutputSparkConf.from_dict(d.pop("spark_conf"))

        default_catalog = d.pop("default_catalog")

        engine = EngineEnum(d.pop("engine"))

        kind = KindEnum(d.pop("kind"))

        max_retries = d.pop("max_retries")

        parameters = JobOutputParameters.from_dict(d.pop("parameters"))

        def _parse_created_by(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        created_by = _parse_created_by(d.pop("created_by"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        job_output = cls(
            id=id,
            name=name,
            sql=sql,
            spark_conf=spark_conf,
            default_catalog=default_catalog,
            engine=engine,
            kind=kind,
            max_retries=max_retries,
            parameters=parameters,
            created_by=created_by,
            created_at=created_at,
            updated_at=updated_at,
        )

        job_output.additional_properties = d
        return job_output

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
