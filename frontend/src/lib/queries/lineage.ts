// Lineage, read by the lineage page, a job's page (what it reads and writes) and a run's page: one key layout
// and one set of query options for all three.
import { queryOptions } from "@tanstack/react-query";

import { apiGet } from "@/lib/api-client";
import type { components } from "@/lib/api-schema";

type Schemas = components["schemas"];

export type Direction = "upstream" | "downstream";

const base = (team: string) => `teams/${encodeURIComponent(team)}/lineage`;

export const lineageKeys = {
  all: (team: string) => ["lineage", team] as const,
  job: (team: string, jobId: string) => ["lineage", team, "job", jobId] as const,
  run: (team: string, runId: number, finished: boolean) => ["lineage", team, "run", runId, finished] as const,
  datasetByName: (team: string, name: string | null) => ["lineage", team, "by-name", name] as const,
  dataset: (team: string, id: number | null) => ["lineage", team, "dataset", id] as const,
  graph: (team: string, id: number | null, direction: Direction, depth: number) => ["lineage", team, direction, id, depth] as const,
  column: (team: string, id: number | null, column: string | null) => ["lineage", team, "column", id, column] as const,
};

/** The tables a job reads and writes, as of its latest runs. */
export function jobLineageQuery(team: string, jobId: string) {
  return queryOptions({
    queryKey: lineageKeys.job(team, jobId),
    queryFn: () => apiGet<Schemas["JobLineageOutput"]>(`${base(team)}/jobs/${encodeURIComponent(jobId)}/`),
    staleTime: 0, // each finished run can change it: read again whenever the job page shows it
  });
}

/** What a run read and wrote, with Delta versions; `finished` is in the key so the final answer is read once more
 * when the run ends. */
export function runLineageQuery(team: string, runId: number, finished: boolean) {
  return queryOptions({
    queryKey: lineageKeys.run(team, runId, finished),
    queryFn: () => apiGet<Schemas["RunLineageOutput"]>(`${base(team)}/runs/${runId}/`),
  });
}

/** The team's dataset with this catalog name (`pg_sales.shop.orders`), if any run touched it. */
export function datasetByNameQuery(team: string, name: string | null) {
  return queryOptions({
    queryKey: lineageKeys.datasetByName(team, name),
    queryFn: () => apiGet<Schemas["DatasetOutput"][]>(`${base(team)}/datasets/?name=${encodeURIComponent(name ?? "")}`),
    enabled: !!name,
  });
}

export function datasetQuery(team: string, id: number | null) {
  return queryOptions({
    queryKey: lineageKeys.dataset(team, id),
    queryFn: () => apiGet<Schemas["DatasetDetailOutput"]>(`${base(team)}/datasets/${id}/`),
    enabled: id !== null,
  });
}

/** Up- or downstream of a dataset, `depth` job hops. */
export function lineageGraphQuery(team: string, id: number | null, direction: Direction, depth: number) {
  return queryOptions({
    queryKey: lineageKeys.graph(team, id, direction, depth),
    queryFn: () => apiGet<Schemas["GraphOutput"]>(`${base(team)}/datasets/${id}/${direction}/?depth=${depth}`),
    enabled: id !== null,
  });
}

export function columnLineageQuery(team: string, id: number | null, column: string | null) {
  return queryOptions({
    queryKey: lineageKeys.column(team, id, column),
    queryFn: () => apiGet<Schemas["ColumnLineageOutput"]>(`${base(team)}/datasets/${id}/columns/${encodeURIComponent(column ?? "")}/`),
    enabled: id !== null && !!column,
  });
}
