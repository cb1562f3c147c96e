from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.engine_enum import EngineEnum
from ..models.kind_enum import KindEnum
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.job_input_request_parameters import JobInputRequestParameters
    from ..models.job_input_request_spark_conf import JobInputRequestSparkConf


T = TypeVar("T", bound="JobInputRequest")


@_attrs_define
class JobInputRequest:
    """
    Example:
        {'name': 'daily orders', 'sql': 'SELECT customer, sum(amount) AS total FROM sales_pg.public.orders GROUP BY 1',
            'default_catalog': 'sales_pg', 'engine': 'default', 'max_retries': 1, 'spark_conf': {}}

    Attributes:
        name (str):
        sql (str):
        spark_conf (JobInputRequestSparkConf | Unset):
        default_catalog (str | Unset):  Default: ''.
        engine (EngineEnum | Unset): * `default` - Platform default
            * `warm` - Team engine (long-lived driver of the team, new session per run)
            * `isolated` - Isolated engine (a driver of the run's own) Default: EngineEnum.DEFAULT.
        kind (KindEnum | Unset): * `batch` - Batch
            * `streaming` - Streaming Default: KindEnum.BATCH.
        max_retries (int | Unset):  Default: 0.
        parameters (JobInputRequestParameters | Unset): `${name}` parameters: {name: {"type": "date", "default": "…"}}.
    """

    name: str
    sql: str
    spark_conf: JobInputRequestSparkConf | Unset = UNSET
    default_catalog: str | Unset = ""
    engine: EngineEnum | Unset = EngineEnum.DEFAULT
    kind: KindEnum | Unset = KindEnum.BATCH
    max_retries: int | Unset = 0
    parameters: JobInputRequestParameters | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        sql = self.sql

        spark_conf: dict[str, Any] | Unset = UNSET
        if not isinstance(self.spark_conf, Unset):
            spark_conf = self.spark_conf.to_dict()

        default_catalog = self.default_catalog

        engine: str | Unset = UNSET
        if not isinstance(self.engine, Unset):
            engine = self.engine.value

        kind: str | Unset = UNSET
        if not isinstance(self.kind, Unset):
            kind = self.kind.value

        max_retries = self.max_retries

        parameters: dict[str, Any] | Unset = UNSET
        if not isinstance(self.parameters, Unset):
            parameters = self.parameters.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
                "sql": sql,
            }
        )
        if spark_conf is not UNSET:
            field_dict["spark_conf"] = spark_conf
        if default_catalog is not UNSET:
            field_dict["default_catalog"] = default_catalog
        if engine is not UNSET:
            field_dict["engine"] = engine
        if kind is not UNSET:
            field_dict["kind"] = kind
        if max_retries is not UNSET:
            field_dict["max_retries"] = max_retries
        if parameters is not UNSET:
            field_dict["parameters"] = parameters

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.job_input_request_parameters import JobInputRequestParameters  # noqa: PLC0415
        from ..models.job_input_request_spark_conf import JobInputRequestSparkConf  # noqa: PLC0415

        d = dict(src_dict)
        name = d.pop("name")

        sql = d.pop("sql")

        _spark_conf = d.pop("spark_conf", UNSET)
        spark_conf: JobInputRequestSparkConf | Unset
        if isinstance(_spark_conf, Unset):
            spark_conf = UNSET
        else:
            spark_conf = JobInputRequestSparkConf.from_dict(_spark_conf)

        default_catalog = d.pop("default_catalog", UNSET)

        _engine = d.pop("engine", UNSET)
        engine: EngineEnum | Unset
        if isinstance(_engine, Unset):
            engine = UNSET
        else:
            engine = EngineEnum(_engine)

        _kind = d.pop("kind", UNSET)
        kind: KindEnum | Unset
        if isinstance(_kind, Unset):
            kind = UNSET
        else:
            kind = KindEnum(_kind)

        max_retries = d.pop("max_retries", UNSET)

        _parameters = d.pop("parameters", UNSET)
        parameters: JobInputRequestParameters | Unset
        if isinstance(_parameters, Unset):
            parameters = UNSET
        else:
            parameters = JobInputRequestParameters.from_dict(_parameters)

        job_input_request = cls(
            name=name,
            sql=sql,
            spark_conf=spark_conf,
            default_catalog=default_catalog,
            engine=engine,
            kind=kind,
            max_retries=max_retries,
            parameters=parameters,
        )

        job_input_request.additional_properties = d
        return job_input_request

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
