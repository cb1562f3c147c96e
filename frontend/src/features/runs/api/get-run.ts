import { useQuery } from "@tanstack/react-query";

import { apiGet } from "@/lib/api-client";
import { runKeys } from "@/lib/queries/runs";
import { isTerminal, type Run } from "@/features/runs/types";

export function getRun(team: string, id: string): Promise<Run> {
  return apiGet<Run>(`teams/${encodeURIComponent(team)}/runs/${encodeURIComponent(id)}/`);
}

/** One run, polled every second until it finishes. */
export function useRun(team: string, id: string) {
  return useQuery({
    queryKey: runKeys.detail(team, id),
    queryFn: () => getRun(team, id),
    refetchInterval: (q) => (q.state.error ? false : isTerminal(q.state.data?.status) ? false : 1000),
    staleTime: 0,
  });
}
