"""Engine choice with real static conf: runs of a team share its engine; a Hive catalog on a metastore gets an
engine keyed by that conf (one SparkContext per process); a job may ask for an engine of its own."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from catalogs.models import Catalog
from catalogs.secrets import seal_configuration
from jobs.engines import engine_key
from jobs.engines.process import EngineKey
from jobs.models import SqlJob
from jobs.services.runs import run_submit
from lakeport_engine.catalog_types.hive import HiveConfig
from lakeport_engine.errors import CatalogBindingError
from teams.models import Team

pytestmark = [pytest.mark.django_db]


def hive(team: Team, name: str, uri: str) -> Catalog:
    config = HiveConfig.model_validate({"metastore-uris": uri, "default-database": "default"})
    return Catalog.objects.create(team=team, catalog_type="hive", catalog_name=name,
                                  configuration=seal_configuration(config))


def key_for(make_job: Callable[..., SqlJob], sql: str, **fields: Any) -> EngineKey:
    run = run_submit(job=make_job(sql, **fields), user=None, enqueue=False).run
    return engine_key(team=run.team.name, script=run.sql, engine=run.engine, run_id=run.id)


def test_plain_scripts_of_a_team_share_one_engine(make_job: Callable[..., SqlJob], team: Team) -> None:
    first, second = key_for(make_job, "SELECT 1"), key_for(make_job, "SELECT 2")
    assert first == second == EngineKey(team=team.name)


def test_hive_gets_an_engine_keyed_by_its_static_conf(make_job: Callable[..., SqlJob], team: Team) -> None:
    hive(team, "other_lake", "thrift://127.0.0.1:1")
    chosen = key_for(make_job, "USE CATALOG other_lake;\nSHOW TABLES")
    conf = dict(chosen.static_conf)
    assert conf["spark.sql.catalogImplementation"] == "hive"
    assert conf["spark.hadoop.hive.metastore.uris"] == "thrift://127.0.0.1:1"
    assert chosen != key_for(make_job, "SELECT 1")
    assert chosen.team == team.name and not chosen.dedicated


def test_a_job_may_ask_for_an_engine_of_its_own(make_job: Callable[..., SqlJob]) -> None:
    one, two = key_for(make_job, "SELECT 1", engine="isolated"), key_for(make_job, "SELECT 1", engine="isolated")
    assert one.dedicated and two.dedicated and one != two


def test_two_hive_catalogs_in_one_script_is_a_clear_error(make_job: Callable[..., SqlJob], team: Team) -> None:
    hive(team, "lake_a", "thrift://127.0.0.1:2")
    hive(team, "lake_b", "thrift://127.0.0.1:1")
    with pytest.raises(CatalogBindingError, match="one Hive catalog"):
        key_for(make_job, "SELECT * FROM lake_a.default.t;\nSELECT * FROM lake_b.default.t")
