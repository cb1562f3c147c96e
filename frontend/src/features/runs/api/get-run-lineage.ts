import { useQuery } from "@tanstack/react-query";

import { apiGet } from "@/lib/api-client";
import type { RunLineageData } from "@/features/runs/types";

/** What a run read and wrote (lineage API), with Delta versions; refreshed while the run is going. */
export function useRunLineage(team: string, runId: number, finished: boolean) {
  return useQuery({
    queryKey: ["lineage", team, "run", runId, finished],
    queryFn: () => apiGet<RunLineageData>(`teams/${encodeURIComponent(team)}/lineage/runs/${runId}/`),
  });
}
