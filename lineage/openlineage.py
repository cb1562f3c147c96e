"""OpenLineage RunEvents for Lakeport runs (START, COMPLETE, FAIL), sent from the worker to a configurable transport.

`LAKEPORT_OPENLINEAGE_TRANSPORT` is the openlineage-python transport config (`{"type": "file", "log_file_path": …,
"append": true}`, `{"type": "http", "url": …}`, `{"type": "console"}`); empty (the default) sends nothing.
Dataset namespaces and names follow the OpenLineage naming spec; the Lakeport catalog name travels in the symlinks
facet and column lineage in the columnLineage facet.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Iterable
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from django.conf import settings
from openlineage.client import OpenLineageClient
from openlineage.client.event_v2 import InputDataset, Job, OutputDataset, Run, RunEvent, RunState, set_producer
from openlineage.client.facet_v2 import (
    column_lineage_dataset,
    error_message_run,
    job_type_job,
    sql_job,
    symlinks_dataset,
)

from catalogs.services.masking import team_secrets_register
from jobs.models import JobRun, SqlJob
from lakeport_kernel.redaction import redact

logger = logging.getLogger("lakeport.lineage")

PRODUCER = "https://github.com/lakeport/lakeport"
JOB_NAMESPACE_PREFIX = "lakeport"
set_producer(PRODUCER)  # facets carry the producer of the events they are part of


@lru_cache(maxsize=4)
def _client(transport: str) -> OpenLineageClient:
    return OpenLineageClient(config={"transport": json.loads(transport)})


def transport_config() -> dict[str, Any]:
    """The configured transport (empty: emission is off)."""
    return dict(getattr(settings, "LAKEPORT_OPENLINEAGE_TRANSPORT", None) or {})


def run_uuid(run: JobRun) -> str:
    """A stable UUID for a Lakeport run (OpenLineage wants a UUID; the run id alone is not one)."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"lakeport:run:{run.id}"))


def stream_run_uuid(job: SqlJob, query_run_id: str) -> str:
    """A stable UUID for one run of a streaming job's query (Spark's run id changes with every driver start)."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"lakeport:stream:{job.id}:{query_run_id}"))


def job_namespace(job: SqlJob) -> str:
    """Jobs of a team live in `lakeport.<team>`."""
    return f"{JOB_NAMESPACE_PREFIX}.{job.team.name}"


def _dataset_facets(entry: dict[str, Any], columns: list[dict[str, Any]] | None) -> dict[str, Any]:
    facets: dict[str, Any] = {"symlinks": symlinks_dataset.SymlinksDatasetFacet(identifiers=[
        symlinks_dataset.Identifier(namespace=f"lakeport://{entry['catalog']}", name=entry["name"], type="TABLE")])}
    if columns:
        fields = {}
        for column in columns:
            fields[column["column"]] = column_lineage_dataset.Fields(
                inputFields=[column_lineage_dataset.InputField(
                    namespace=namespace, name=name, field=field,
                    transformations=[column_lineage_dataset.Transformation(
                        type="DIRECT",
                        subtype={"identity": "IDENTITY", "expression": "TRANSFORMATION",
                                 "aggregation": "AGGREGATION"}[column["kind"]])])
                    for namespace, name, field in column["inputs"]],
                transformationType="IDENTITY" if column["kind"] == "identity" else "TRANSFORMATION",
                transformationDescription=column["kind"])
        facets["columnLineage"] = column_lineage_dataset.ColumnLineageDatasetFacet(fields=fields)
    return facets


def run_event(*, run: JobRun, state: str, inputs: Iterable[dict[str, Any]] = (),
              outputs: Iterable[dict[str, Any]] = (), error: str | None = None) -> RunEvent:
    """The RunEvent of a batch run."""
    return build_event(job=run.job, run_id=run_uuid(run), sql=run.sql, state=state, inputs=inputs, outputs=outputs,
                       error=error)


def build_event(*, job: SqlJob, run_id: str, sql: str, state: str, processing: str = "BATCH",
                inputs: Iterable[dict[str, Any]] = (), outputs: Iterable[dict[str, Any]] = (),
                error: str | None = None) -> RunEvent:
    """One RunEvent. `inputs`/`outputs`: `{"namespace", "name", "catalog", "columns"?}` (alias name in `name`);
    `processing` is the jobType facet's BATCH or STREAMING."""
    run_facets: dict[str, Any] = {}
    # a lineage backend is another audience: the SQL and error carry no secret a user typed (as results do not)
    _register_team_secrets(job.team_id)
    if error:
        run_facets["errorMessage"] = error_message_run.ErrorMessageRunFacet(message=redact(error)[:2000],
                                                                            programmingLanguage="SQL")
    job_facets = {"jobType": job_type_job.JobTypeJobFacet(processingType=processing, integration="LAKEPORT",
                                                          jobType="SQL_JOB"),
                  "sql": sql_job.SQLJobFacet(query=redact(sql)[:20000])}
    return RunEvent(
        eventType=getattr(RunState, state),
        eventTime=datetime.now(UTC).isoformat(),
        run=Run(runId=run_id, facets=run_facets),
        job=Job(namespace=job_namespace(job), name=job.name, facets=job_facets),
        inputs=[InputDataset(namespace=d["namespace"], name=d["physical_name"],
                             facets=_dataset_facets(d, None)) for d in inputs],
        outputs=[OutputDataset(namespace=d["namespace"], name=d["physical_name"],
                               facets=_dataset_facets(d, d.get("columns"))) for d in outputs],
        producer=PRODUCER,
    )


def _register_team_secrets(team_id: int) -> None:
    """Open the team's catalog secrets (registering them for redaction): a START event may leave before the run's
    engine asked for any catalog."""
    if transport_config():  # nothing is sent: nothing to mask
        team_secrets_register(team_id=team_id)


def emit(event: RunEvent) -> None:
    """Send `event` to the configured transport; a transport failure is logged, never raised into the run."""
    config = transport_config()
    if not config:
        return
    try:
        _client(json.dumps(config, sort_keys=True)).emit(event)
    except Exception as exc:  # noqa: BLE001 - lineage delivery must not fail a run
        logger.warning("lineage.openlineage_failed", extra={"error_class": type(exc).__name__})
