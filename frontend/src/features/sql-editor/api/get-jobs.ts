import { useQuery } from "@tanstack/react-query";

import { apiGet, rowsOf, type Paginated } from "@/lib/api-client";
import type { SqlJob } from "@/features/sql-editor/types";

export async function getJobs(team: string): Promise<SqlJob[]> {
  return rowsOf(await apiGet<Paginated<SqlJob> | SqlJob[]>(`teams/${encodeURIComponent(team)}/jobs/`, { page_size: 200 }));
}

export function useJobs(team: string) {
  return useQuery({ queryKey: ["jobs", team], queryFn: () => getJobs(team) });
}
