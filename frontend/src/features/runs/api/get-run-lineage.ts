import { useQuery } from "@tanstack/react-query";

import { apiGet } from "@/lib/api-client";

export type RunDataset = { id: number; name: string; statement: number; version: number | null; run_status: string };
export type RunLineageData = { run: number; status: string; inputs: RunDataset[]; outputs: RunDataset[] };

/** What a run read and wrote (lineage API), with Delta versions; refreshed while the run is going. */
export function useRunLineage(team: string, runId: number, finished: boolean) {
  return useQuery({
    queryKey: ["lineage", team, "run", runId, finished],
    queryFn: () => apiGet<RunLineageData>(`teams/${encodeURIComponent(team)}/lineage/runs/${runId}/`),
  });
}
