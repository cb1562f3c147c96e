"""Reads of the lineage app, always for one team: its jobs, and the datasets its catalogs name.

The graph is walked in the database with recursive CTEs over the job-level edges (`JobEdge`) of the team's jobs, so
another team's jobs never appear, even where two teams' catalogs share a dataset. The SQL is portable (PostgreSQL
and `make run`'s SQLite; tests/lineage/test_portable_sql.py checks raw SQL for vendor-only syntax): no casts, the
start row comes from the dataset table so its id has the column's own type on every backend.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Self

from django.db import connection
from django.db.models import QuerySet

from core.errors import NotFound
from jobs.models import JobRun, SqlJob
from lakeport_engine.access import BROWSE, AccessPolicy
from lineage.models import ColumnEdge, Dataset, DatasetAlias, Direction, JobEdge, RunEdge, RunSnapshot
from teams.models import Team

MAX_DEPTH = 20


# ---- what the reads return (lineage/apis.py serializes each with one output serializer) -----------------------
@dataclass(slots=True)
class TeamDataset:
    """A dataset as one team sees it: its names in the team's catalogs (sorted) and its physical identity."""

    id: int
    namespace: str
    physical_name: str
    kind: str
    aliases: list[str]

    @property
    def name(self) -> str:
        """The first of the team's names for it; its physical name if the team has none."""
        return self.aliases[0] if self.aliases else self.physical_name

    @classmethod
    def of(cls, dataset: Dataset, aliases: list[str], **extra: Any) -> Self:
        """`dataset` under the team's names for it, `aliases` (sorted), with a subclass's own fields `extra`."""
        return cls(id=dataset.id, namespace=dataset.namespace, physical_name=dataset.name, kind=dataset.kind,
                   aliases=aliases, **extra)


@dataclass(slots=True)
class ReachedDataset(TeamDataset):
    """A dataset of a walk, `depth` job hops from the start; `view` its freshness when it is a materialized view."""

    depth: int
    view: dict[str, Any] | None = None


@dataclass(slots=True)
class LineageJob:
    """A job of the team, by id and name."""

    id: int
    name: str


@dataclass(slots=True)
class LineageEdge:
    """`job` reads (`in`) or writes (`out`) `dataset`, as of its run `last_run` that ended `last_status`."""

    job: int
    dataset: int
    direction: str
    last_run: int | None
    last_status: str


@dataclass
class Graph:
    """Datasets and jobs reached from a start dataset, and the job ↔ dataset edges between them."""

    start: int
    direction: str
    depth: int
    datasets: list[ReachedDataset] = field(default_factory=list)
    jobs: list[LineageJob] = field(default_factory=list)
    edges: list[LineageEdge] = field(default_factory=list)


@dataclass
class DatasetDetail(TeamDataset):
    """One dataset with its columns that have column lineage and the team's jobs that write and read it."""

    columns: list[str]
    writers: list[LineageJob]
    readers: list[LineageJob]


@dataclass
class Impact:
    """What a dataset affects: the start (depth 0), and the jobs and datasets downstream of it."""

    dataset: ReachedDataset | None
    jobs: list[LineageJob]
    datasets: list[ReachedDataset]


@dataclass(slots=True)
class JobEdgeDataset(TeamDataset):
    """A dataset a job reads or writes, with the job's last run that did and how it ended."""

    last_run: int | None
    last_status: str


@dataclass
class JobLineage:
    """What a job reads and writes (as of its latest runs)."""

    job: LineageJob
    inputs: list[JobEdgeDataset] = field(default_factory=list)
    outputs: list[JobEdgeDataset] = field(default_factory=list)


@dataclass(slots=True)
class RunEdgeDataset(TeamDataset):
    """A dataset a run read or wrote in `statement`, at Delta `version`, and the run's final status then."""

    statement: int
    version: int | None
    run_status: str


@dataclass
class RunLineage:
    """What a run read and wrote, and the Delta snapshot it asked for."""

    run: int
    status: str
    inputs: list[RunEdgeDataset] = field(default_factory=list)
    outputs: list[RunEdgeDataset] = field(default_factory=list)
    snapshot: RunSnapshot | None = None


@dataclass(slots=True)
class ColumnStep:
    """Column `column` of `dataset` is computed by `job` from `input_column` of `input_dataset` (names by the team)."""

    dataset: str
    dataset_id: int
    column: str
    input_dataset: str
    input_dataset_id: int
    input_column: str
    kind: str
    job: LineageJob
    depth: int


@dataclass
class ColumnLineage:
    """Where `column` of `dataset` comes from, step by step (`depth` 1 is the nearest)."""

    dataset: TeamDataset
    column: str
    edges: list[ColumnStep]


def browsable(aliases: list[str], policy: AccessPolicy | None) -> bool:
    """True when the caller may see a dataset named `aliases` in the team's catalogs (docs/access.md: BROWSE on one
    of its names; a dataset the team has no name for is not a securable)."""
    if policy is None or policy.unrestricted or not aliases:
        return True
    for alias in aliases:
        parts = alias.lower().split(".")
        target = (parts[0], ".".join(parts[1:-1]), parts[-1]) if len(parts) >= 3 else tuple(parts)
        if policy.allows(BROWSE, target):
            return True
    return False


def datasets_visible(*, team: Team) -> QuerySet[Dataset]:
    """Datasets some catalog of `team` names."""
    return Dataset.objects.filter(aliases__team=team).distinct()


def dataset_get(*, team: Team, dataset_id: int, policy: AccessPolicy | None = None) -> Dataset:
    """A dataset the team's catalogs name (and the caller may browse, with `policy`); 404 otherwise."""
    dataset = datasets_visible(team=team).filter(id=dataset_id).first()
    if dataset is None or not browsable(_aliases(team, [dataset.id]).get(dataset.id, []), policy):
        raise NotFound("Dataset not found.")
    return dataset


def dataset_list(*, team: Team, name: str | None = None, search: str | None = None,
                 policy: AccessPolicy | None = None) -> list[TeamDataset]:
    """The team's datasets (in the order of their first name), by exact `name` or names containing `search`."""
    aliases = DatasetAlias.objects.filter(team=team).select_related("dataset").order_by("name")
    if name:
        ids = aliases.filter(name=name).values("dataset_id")
        aliases = aliases.filter(dataset_id__in=ids)
    elif search:
        ids = aliases.filter(name__icontains=search).values("dataset_id")
        aliases = aliases.filter(dataset_id__in=ids)
    found: dict[int, TeamDataset] = {}
    for alias in aliases[:1000]:
        found.setdefault(alias.dataset_id, TeamDataset.of(alias.dataset, [])).aliases.append(alias.name)
    return [d for d in found.values() if browsable(d.aliases, policy)]


def dataset_detail(*, team: Team, dataset: Dataset) -> DatasetDetail:
    """One dataset: the team's names for it, its columns with lineage, the team's jobs that write and read it."""
    up = lineage_graph(team=team, dataset=dataset, direction="upstream", depth=1)
    down = lineage_graph(team=team, dataset=dataset, direction="downstream", depth=1)
    return DatasetDetail.of(dataset, _aliases(team, [dataset.id]).get(dataset.id, []),
                            columns=dataset_columns(team=team, dataset=dataset), writers=up.jobs, readers=down.jobs)


def _aliases(team: Team, ids: list[int]) -> dict[int, list[str]]:
    names: dict[int, list[str]] = {}
    for dataset_id, name in DatasetAlias.objects.filter(team=team, dataset_id__in=ids).order_by("name").values_list(
            "dataset_id", "name"):
        names.setdefault(dataset_id, []).append(name)
    return names


_WALK = {
    # upstream: from a dataset to the datasets read by the jobs that write it
    "upstream": ("out", "in"),
    # downstream: from a dataset to the datasets written by the jobs that read it
    "downstream": ("in", "out"),
}


def lineage_graph(*, team: Team, dataset: Dataset, direction: str, depth: int,
                  policy: AccessPolicy | None = None) -> Graph:
    """The datasets and jobs `depth` job-hops up- or downstream of `dataset`, through the team's jobs only; with
    `policy`, without the datasets (and their edges) the caller may not browse."""
    depth = max(0, min(depth, MAX_DEPTH))
    graph = graph_of(team=team, start=dataset.id, direction=direction, depth=depth,
                     reached=reach(team=team, dataset_id=dataset.id, direction=direction, depth=depth))
    if policy is not None and not policy.unrestricted:
        graph.datasets = [d for d in graph.datasets if browsable(d.aliases, policy)]
        shown = {d.id for d in graph.datasets}
        graph.edges = [e for e in graph.edges if e.dataset in shown]
    return graph


def reach(*, team: Team, dataset_id: int, direction: str, depth: int) -> dict[int, int]:
    """Dataset id → fewest job hops from the start, walked in one recursive CTE over the team's job edges."""
    near, far = _WALK[direction]
    table, datasets = JobEdge._meta.db_table, Dataset._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            WITH RECURSIVE walk(dataset_id, depth) AS (
                SELECT d.id, 0 FROM {datasets} d WHERE d.id = %(start)s
                UNION
                SELECT f.dataset_id, w.depth + 1
                FROM walk w
                JOIN {table} n ON n.team_id = %(team)s AND n.dataset_id = w.dataset_id AND n.direction = %(near)s
                JOIN {table} f ON f.job_id = n.job_id AND f.direction = %(far)s
                WHERE w.depth < %(depth)s
            )
            SELECT dataset_id, min(depth) FROM walk GROUP BY dataset_id
            """,
            {"start": dataset_id, "near": near, "far": far, "team": team.id, "depth": depth},
        )
        return dict(cursor.fetchall())


def graph_of(*, team: Team, start: int, direction: str, depth: int, reached: dict[int, int]) -> Graph:
    """The nodes and edges of a walk from `start`: `reached` datasets, the team's jobs between them, their names."""
    near, _ = _WALK[direction]
    inner = [d for d, level in reached.items() if level < depth]
    ids = list(reached)
    job_ids = set(JobEdge.objects.filter(team=team, dataset_id__in=inner, direction=near).values_list("job_id",
                                                                                                      flat=True))
    aliases = _aliases(team, ids)
    graph = Graph(start=start, direction=direction, depth=depth)
    graph.datasets = [ReachedDataset(id=id_, namespace=namespace, physical_name=name, kind=kind,
                                     aliases=aliases.get(id_, []), depth=reached[id_])
                      for id_, namespace, name, kind in Dataset.objects.filter(id__in=ids).values_list(
                          "id", "namespace", "name", "kind")]
    _mark_views(team, graph.datasets)
    graph.jobs = [LineageJob(id=job_id, name=name)
                  for job_id, name in SqlJob.objects.filter(id__in=job_ids, team=team).values_list("id", "name")]
    edges = JobEdge.objects.filter(team=team, job_id__in=job_ids, dataset_id__in=ids).values_list(
        "job_id", "dataset_id", "direction", "last_run_id", "last_status")
    graph.edges = [LineageEdge(job=j, dataset=d, direction=dr, last_run=r, last_status=st) for j, d, dr, r, st in edges]
    return graph


def _mark_views(team: Team, datasets: list[ReachedDataset]) -> None:
    """Mark the datasets that are materialized views of the team with their freshness (read from the sources'
    Delta logs: which versions the view reflects against the newest, and since when it is behind)."""
    from catalogs.models import MaterializedView
    from catalogs.services.materialized_views import freshness

    by_alias = {alias: d for d in datasets for alias in d.aliases}
    if not by_alias:
        return
    for view in MaterializedView.objects.select_related("catalog").filter(catalog__team=team):
        dataset = by_alias.get(f"{view.catalog.catalog_name}.{view.database}.{view.name}")
        if dataset is None:
            continue
        fresh = freshness(view)
        dataset.view = {"name": f"{view.catalog.catalog_name}.{view.database}.{view.name}",
                        "refresh_mode": view.refresh_mode, "table_version": view.table_version,
                        "last_refresh_at": (view.last_refresh or {}).get("at"), **fresh,
                        "sources": [{"name": k, **v} for k, v in fresh["sources"].items()]}


def job_lineage(*, team: Team, job: SqlJob, policy: AccessPolicy | None = None) -> JobLineage:
    """What a job reads and writes (as of its latest runs), with the last run and status of each edge; with
    `policy`, without the datasets the caller may not browse."""
    edges = list(JobEdge.objects.filter(team=team, job=job).select_related("dataset").order_by("direction", "id"))
    aliases = _aliases(team, [e.dataset_id for e in edges])
    out = JobLineage(job=LineageJob(id=job.id, name=job.name))
    for edge in edges:
        if not browsable(aliases.get(edge.dataset_id, []), policy):
            continue
        (out.inputs if edge.direction == Direction.IN else out.outputs).append(JobEdgeDataset.of(
            edge.dataset, aliases.get(edge.dataset_id, []), last_run=edge.last_run_id, last_status=edge.last_status))
    return out


def run_lineage(*, team: Team, run: JobRun, policy: AccessPolicy | None = None) -> RunLineage:
    """What one run read and wrote, statement by statement, with Delta versions, and its snapshot request; with
    `policy`, without the datasets the caller may not browse."""
    edges = list(RunEdge.objects.filter(team=team, run=run).select_related("dataset").order_by("statement", "id"))
    aliases = _aliases(team, [e.dataset_id for e in edges])
    out = RunLineage(run=run.id, status=run.status)
    for edge in edges:
        if not browsable(aliases.get(edge.dataset_id, []), policy):
            continue
        (out.inputs if edge.direction == Direction.IN else out.outputs).append(RunEdgeDataset.of(
            edge.dataset, aliases.get(edge.dataset_id, []), statement=edge.statement, version=edge.version,
            run_status=edge.run_status))
    out.snapshot = getattr(run, "snapshot", None)
    return out


def column_lineage(*, team: Team, dataset: Dataset, column: str, depth: int,
                   policy: AccessPolicy | None = None) -> ColumnLineage:
    """Where `column` of `dataset` comes from, `depth` hops up, through the team's jobs only; with `policy`, without
    the steps that name a dataset the caller may not browse."""
    depth = max(1, min(depth, MAX_DEPTH))
    table, col = ColumnEdge._meta.db_table, connection.ops.quote_name("column")  # a reserved word everywhere
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            WITH RECURSIVE walk(dataset_id, col, input_dataset_id, input_col, kind, job_id, depth) AS (
                SELECT dataset_id, {col}, input_dataset_id, input_column, kind, job_id, 1
                FROM {table} WHERE team_id = %(team)s AND dataset_id = %(start)s AND {col} = %(column)s
                UNION
                SELECT c.dataset_id, c.{col}, c.input_dataset_id, c.input_column, c.kind, c.job_id, w.depth + 1
                FROM walk w JOIN {table} c
                  ON c.team_id = %(team)s AND c.dataset_id = w.input_dataset_id AND c.{col} = w.input_col
                WHERE w.depth < %(depth)s
            )
            SELECT DISTINCT dataset_id, col, input_dataset_id, input_col, kind, job_id, depth FROM walk
            ORDER BY depth
            """,
            {"team": team.id, "start": dataset.id, "column": column, "depth": depth},
        )
        rows = cursor.fetchall()
    ids = {r[0] for r in rows} | {r[2] for r in rows} | {dataset.id}
    aliases = _aliases(team, list(ids))
    names = {d.id: TeamDataset.of(d, aliases.get(d.id, [])) for d in Dataset.objects.filter(id__in=ids)}
    jobs = dict(SqlJob.objects.filter(team=team, id__in={r[5] for r in rows}).values_list("id", "name"))
    return ColumnLineage(dataset=names[dataset.id], column=column, edges=[
        ColumnStep(dataset=names[r[0]].name, dataset_id=r[0], column=r[1], input_dataset=names[r[2]].name,
                   input_dataset_id=r[2], input_column=r[3], kind=r[4],
                   job=LineageJob(id=r[5], name=jobs.get(r[5], "")), depth=r[6]) for r in rows
        if browsable(aliases.get(r[0], []), policy) and browsable(aliases.get(r[2], []), policy)])


def dataset_columns(*, team: Team, dataset: Dataset) -> list[str]:
    """The columns of `dataset` that have column lineage (written by the team's jobs)."""
    return sorted(set(ColumnEdge.objects.filter(team=team, dataset=dataset).values_list("column", flat=True)))


def impact(*, team: Team, dataset: Dataset, depth: int = MAX_DEPTH, policy: AccessPolicy | None = None) -> Impact:
    """Jobs and datasets downstream of `dataset` (what a late or wrong table affects; what the caller may browse)."""
    graph = lineage_graph(team=team, dataset=dataset, direction="downstream", depth=depth, policy=policy)
    return Impact(dataset=next((d for d in graph.datasets if d.id == dataset.id), None),
                  jobs=sorted(graph.jobs, key=lambda j: j.name),
                  datasets=sorted((d for d in graph.datasets if d.id != dataset.id), key=lambda d: (d.depth, d.name)))
