import { keepPreviousData, useQuery } from "@tanstack/react-query";

import { apiGet } from "@/lib/api-client";
import { runKeys, type RunFilters } from "@/lib/queries/runs";
import { isTerminal, type RunList } from "@/features/runs/types";

export function getRuns(team: string, f: RunFilters): Promise<RunList> {
  return apiGet<RunList>(`teams/${encodeURIComponent(team)}/runs/`, {
    status: f.status,
    user: f.user,
    job: f.job,
    page: f.page && f.page > 1 ? f.page : undefined,
    page_size: 50,
  });
}

/** The runs list, refreshed every few seconds while any run on it is still going. */
export function useRuns(team: string, f: RunFilters) {
  return useQuery({
    queryKey: runKeys.list(team, f),
    queryFn: () => getRuns(team, f),
    placeholderData: keepPreviousData,
    refetchInterval: (q) => (q.state.data?.results.some((r) => !isTerminal(r.status)) ? 3000 : false),
  });
}
