import { useQuery } from "@tanstack/react-query";

import { apiGet } from "@/lib/api-client";
import type { SqlJob, SqlJobList } from "@/features/sql-editor/types";

export async function getJobs(team: string): Promise<SqlJob[]> {
  return (await apiGet<SqlJobList>(`teams/${encodeURIComponent(team)}/jobs/`, { page_size: 200 })).results;
}

export function useJobs(team: string) {
  return useQuery({ queryKey: ["jobs", team], queryFn: () => getJobs(team) });
}
