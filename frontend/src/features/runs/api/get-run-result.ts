import { useQuery } from "@tanstack/react-query";

import { apiGet } from "@/lib/api-client";
import { runKeys } from "@/lib/queries/runs";
import type { RunResult } from "@/features/runs/types";

export function getRunResult(team: string, id: string): Promise<RunResult> {
  return apiGet<RunResult>(`teams/${encodeURIComponent(team)}/runs/${encodeURIComponent(id)}/result/`);
}

export function useRunResult(team: string, id: string, enabled: boolean) {
  return useQuery({ queryKey: runKeys.result(team, id), queryFn: () => getRunResult(team, id), enabled, staleTime: Infinity });
}
