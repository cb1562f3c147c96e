"""Engine choice with real static conf: a Hive catalog the warm context already serves stays warm; a Hive catalog
on another metastore goes to an isolated driver started with that conf (one SparkContext per process)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from catalogs.models import Catalog
from catalogs.secrets import seal_configuration
from catalogs.types.hive_config import HiveConfig
from jobs.engines import engine_for
from jobs.engines.isolated import IsolatedEngine
from jobs.engines.warm import WarmEngine
from jobs.models import SqlJob
from jobs.services.runs import run_submit
from jobs.spark.errors import CatalogBindingError
from teams.models import Team

pytestmark = [pytest.mark.django_db, pytest.mark.spark]


@pytest.fixture(autouse=True)
def _warm(spark: Any) -> None:
    """This process's warm context is the suite's session: Hive support on the suite's metastore."""


def hive(team: Team, name: str, uri: str) -> Catalog:
    config = HiveConfig.model_validate({"metastore-uris": uri, "default-database": "default"})
    return Catalog.objects.create(team=team, catalog_type="hive", catalog_name=name,
                                  configuration=seal_configuration(config))


def engine(make_job: Callable[..., SqlJob], sql: str, **fields: Any) -> Any:
    run = run_submit(job=make_job(sql, **fields), user=None, enqueue=False).run
    return engine_for(run=run, script=run.sql)


def test_hive_on_the_warm_contexts_metastore_stays_warm(make_job: Callable[..., SqlJob], team: Team,
                                                         hive_metastore: Any) -> None:
    hive(team, "lake", hive_metastore.uri)
    assert isinstance(engine(make_job, "SELECT * FROM lake.default.t"), WarmEngine)
    assert isinstance(engine(make_job, "SELECT 1"), WarmEngine)


def test_hive_on_another_metastore_goes_isolated_with_its_static_conf(make_job: Callable[..., SqlJob],
                                                                      team: Team) -> None:
    hive(team, "other_lake", "thrift://127.0.0.1:1")
    chosen = engine(make_job, "USE CATALOG other_lake;\nSHOW TABLES")
    assert isinstance(chosen, IsolatedEngine)
    assert chosen.static_conf["spark.sql.catalogImplementation"] == "hive"
    assert chosen.static_conf["spark.hadoop.hive.metastore.uris"] == "thrift://127.0.0.1:1"


def test_a_job_may_ask_for_the_isolated_engine(make_job: Callable[..., SqlJob]) -> None:
    assert isinstance(engine(make_job, "SELECT 1", engine="isolated"), IsolatedEngine)


def test_two_hive_catalogs_in_one_script_is_a_clear_error(make_job: Callable[..., SqlJob], team: Team,
                                                          hive_metastore: Any) -> None:
    hive(team, "lake_a", hive_metastore.uri)
    hive(team, "lake_b", "thrift://127.0.0.1:1")
    with pytest.raises(CatalogBindingError, match="one Hive catalog"):
        engine(make_job, "SELECT * FROM lake_a.default.t;\nSELECT * FROM lake_b.default.t")
